import Dispatch
import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import Logging
import Synchronization

extension Keychain {
    // MARK: SecItemAdd

    /// Adds an item (SecItemAdd). Returns the new item shaped by the query's return keys
    /// (attributes and ref when there are none).
    public func add(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> ItemResult {
        if query.itemClass == .identity { return try addIdentity(query, token: token) }
        let (item, barrier) = try addedItem(query, token: token)
        do { try store.add(item.record) } catch { throw duplicateOrFailure(error, item.record) }
        return try shape(item.record, query: query, barrier: barrier, secret: query.valueData, decoded: item)
    }

    /// `add`, answered through `completion` once durable: at once, or later on the store's
    /// thread when the store `AddsAnswerLater` (a store commits the adds of many requests together).
    public func add(
        _ query: ItemQuery, token: AccessToken, completion: @escaping @Sendable (Result<ItemResult, KeychainError>) -> Void
    ) {
        if query.itemClass == .identity {
            // Two rows in one transaction, added whole by `addIdentity`, which waits for its
            // commit: when adds answer later, the caller is a thread that serves other requests
            // (a polling thread), so the wait is a thread of libdispatch's. Identity adds are rare.
            let add = { @Sendable [self] in completion(Result { () throws(KeychainError) in try addIdentity(query, token: token) }) }
            return addsAnswerLater ? DispatchQueue.global().async(execute: add) : add()
        }
        let item: DecodedItem
        let barrier: Barrier
        do { (item, barrier) = try addedItem(query, token: token) } catch {
            completion(.failure(error))
            return
        }
        store.add(item.record) { [self] outcome in
            completion(
                Result { () throws(KeychainError) in
                    do { try outcome.get() } catch { throw duplicateOrFailure(error, item.record) }
                    return try shape(item.record, query: query, barrier: barrier, secret: query.valueData, decoded: item)
                })
        }
    }

    /// Whether `search` with a completion may answer later, on another thread.
    public var answersLater: Bool { store is any SearchesAnswerLater }

    /// Whether `add` with a completion may answer later, on another thread.
    public var addsAnswerLater: Bool { store is any AddsAnswerLater }

    /// The item an add writes (its record sealed), after checking the query, the token and the lock.
    func addedItem(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> (DecodedItem, Barrier) {
        try require(.write, token, for: "add")
        try query.check(for: .add)
        let barrier = try barrier()
        let itemClass = query.itemClass!
        let group = query.accessGroup ?? token.defaultGroup
        guard token.grants(group: group) else { throw Self.lacksGroup(group) }
        let protection = query.accessible ?? itemClass.defaultProtection
        let sync = query.synchronizableFilter ?? false
        if sync, protection.isThisDeviceOnly {
            throw .param("accessible: a synchronizable item cannot use \(protection.name)")
        }
        var attributes = query.attributes
        if itemClass == .certificate {
            guard let der = query.valueData else { throw .param("valueData: a certificate item needs its DER certificate") }
            try checkSize(der)
            let derived = Self.derivedAttributes(of: try Self.parseCertificate(der))
            attributes = try Self.certificateAttributes(given: attributes, derived: derived)
        } else if itemClass == .key {
            guard let bytes = query.valueData else { throw .param("valueData: a key item needs its key") }
            try checkSize(bytes)
            attributes = try Self.keyAttributes(attributes, bytes: bytes, defaults: true)
        }
        // A key's startDate and endDate are the server's (never set here): they enter the
        // primary-key digest at their empty default (`DecodedItem.reseal`) but are not stored.
        for key in itemClass.primaryKey where key.access != .serverSet && !attributes.contains(where: { $0.key == key }) {
            attributes.append((key, AttributeValue.emptyDefault(for: key.type)))
        }
        let now = clock.now()
        var item = DecodedItem(
            record: ItemRecord(
                ref: Sodium.randomBytes(PersistentRef.length), itemClass: itemClass.rawValue, group: barrier.groupDigest(group),
                protection: protection.rawValue, synchronizable: sync, created: now, modified: now, version: 1,
                primaryKey: [], attributes: [], secret: nil, lookups: []),
            itemClass: itemClass, group: group, protection: protection, attributes: attributes)
        if let secret = query.valueData {
            try checkSize(secret)
            item.record.secret = try seal(secret, for: item, barrier: barrier)
        }
        try item.reseal(barrier: barrier)
        return (item, barrier)
    }

    /// A failed add's error: errSecDuplicateItem with the colliding item's reference (it shares
    /// the primary key, group included, so the caller may see it), or the store's failure.
    func duplicateOrFailure(_ error: any Error, _ record: ItemRecord) -> KeychainError {
        let error = map(error)
        guard error.status == KeychainError.duplicateItem(persistentRef: nil).status else { return error }
        do {
            let existing = try snapshot { try $0.item(primaryKey: record.primaryKey) }
            return .duplicateItem(persistentRef: existing.map { PersistentRef.encode($0.ref) })
        } catch {
            return error
        }
    }

    // MARK: SecItemCopyMatching

    /// Searches (SecItemCopyMatching): `matchLimit` one by default; errSecItemNotFound when nothing matches.
    /// The first page only: see `searchPage`.
    public func search(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> [ItemResult] {
        try searchPage(query, token: token).items
    }

    /// Searches, one bounded page of the answer at a time (`SearchPage`).
    public func searchPage(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> SearchPage {
        if query.itemClass == .identity { return try identityPage(query, token: token) }
        return try page(query, token: token, plan: searchPlan(query, token: token))
    }

    /// The page `plan` names, read here.
    private func page(_ query: ItemQuery, token: AccessToken, plan: SearchPlan) throws(KeychainError) -> SearchPage {
        var records: [ItemRecord] = []
        if query.certificateMatch.isEmpty, plan.exact.isEmpty {
            do { records = try store.items(matching: plan.filter) } catch { throw map(error) }
        } else {
            // Match keys and exact values filter opened items: read a batch at a time until the
            // page is full.
            let wanted = plan.filter.limit
            let read: (ItemFilter) throws -> [ItemRecord] = { try self.store.items(matching: $0) }
            if wanted != 0 {
                try scanItems(query, filter: plan.filter, exact: plan.exact, token: token, barrier: plan.barrier, read: read) {
                    records.append($0)
                    return wanted.map { records.count < $0 } ?? true
                }
            }
            if let keys = plan.filter.groupKeys { learnGroups(keys, barrier: plan.barrier) }
        }
        return try results(records, query: query, plan: plan)
    }

    /// Opens an item of each group whose name the store's read by `keys` lacked, so that the
    /// next such search reads by primary keys (`GroupKeys`): once a group, for as long as the
    /// barrier keeps the name. Best effort: a failed read or open leaves the group unnamed.
    private func learnGroups(_ keys: GroupKeys, barrier: Barrier) {
        for group in keys.unknownGroups.prefix(Self.maxPrimaryKeyGroups) where barrier.groupName(digest: group) == nil {
            let filter = ItemFilter(classes: [keys.itemClass], groups: [group], limit: 1)
            if let record = try? store.items(matching: filter).first { _ = try? openLearningGroup(record, barrier: barrier) }
        }
    }

    /// `searchPage`, answered through `completion`: at once, or later on the store's thread when
    /// the store `SearchesAnswerLater` (a store on a server batches the searches of many requests).
    public func search(
        _ query: ItemQuery, token: AccessToken,
        completion: @escaping @Sendable (Result<SearchPage, KeychainError>) -> Void
    ) {
        // Certificate match keys read more rows (parents for matchIssuers) while filtering, and
        // an identity is a join: the search runs here, whole, rather than on the store's thread.
        guard query.certificateMatch.isEmpty, query.itemClass != .identity else {
            completion(Result { () throws(KeychainError) in try searchPage(query, token: token) })
            return
        }
        let plan: SearchPlan
        do { plan = try searchPlan(query, token: token) } catch {
            completion(.failure(error))
            return
        }
        guard plan.exact.isEmpty else {
            return readExact(plan.filter, plan: plan, kept: [], query: query, completion: completion)
        }
        store.items(matching: plan.filter) { [self] outcome in
            completion(
                Result { () throws(KeychainError) in
                    let records: [ItemRecord]
                    do { records = try outcome.get() } catch { throw map(error) }
                    return try results(records, query: query, plan: plan)
                })
        }
    }

    /// Reads `filter`'s records through the store's later answer, keeps those holding the plan's
    /// exact values, and reads on past the last one (from the store's thread) until the page
    /// has the items it wants or the store has no more. The first read asks for just those
    /// items: unless an item of the same value in another case is among them, it is the only one.
    private func readExact(
        _ filter: ItemFilter, plan: SearchPlan, kept: [ItemRecord], query: ItemQuery,
        completion: @escaping @Sendable (Result<SearchPage, KeychainError>) -> Void
    ) {
        store.items(matching: filter) { [self] outcome in
            let answer = Result { () throws(KeychainError) -> SearchPage? in
                let batch: [ItemRecord]
                do { batch = try outcome.get() } catch { throw map(error) }
                let kept = try kept + matching(batch, plan.exact, barrier: plan.barrier)
                let wanted = plan.filter.limit ?? Int.max
                guard kept.count < wanted, let last = batch.last, batch.count == filter.limit else {
                    return try results(Array(kept.prefix(wanted)), query: query, plan: plan)
                }
                var next = filter
                next.afterID = last.rowID
                next.limit = Self.scanBatch
                readExact(next, plan: plan, kept: kept, query: query, completion: completion)
                return nil
            }
            switch answer {
            case .success(let page?): completion(.success(page))
            case .success(nil): break
            case .failure(let error): completion(.failure(error))
            }
        }
    }

    /// What a search reads, and how its answer is paged.
    private struct SearchPlan: Sendable {
        var filter: ItemFilter
        /// The string values the items must hold exactly, checked on their opened attributes.
        let exact: ExactValues
        let barrier: Barrier
        /// Items the pages before this one held.
        var returned = 0
        /// Items this page may hold: the page size, or what is left of `matchLimit` when less.
        var pageLimit: Int
        /// Whether `matchLimit` (rather than the page size) ends the answer at `pageLimit` items.
        var limitEndsAnswer: Bool
        /// What the cursor is bound to, when the answer may have more than one page.
        var binding: [UInt8]?
    }

    /// Checks the query and the token's capabilities first, then plans the page.
    private func searchPlan(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> SearchPlan {
        try checkSearch(query, token: token)
        let barrier = try barrier()
        let selection = try filter(for: query, token: token, barrier: barrier)
        let exact = selection.exact
        var filter = selection.filter
        // A key's data answers only when its attributes say it is extractable.
        filter.readsAttributes =
            query.wantsAttributes || !query.hasReturnKey || !exact.isEmpty
            || (query.opensSecrets && filter.classes?.contains(ItemClass.key.rawValue) != false)
        let matchLimit = (query.matchLimit ?? .one).sqlLimit
        let pageSize = max(1, configuration.maxAnswerItems)
        guard matchLimit.map({ $0 > 1 }) ?? true else {
            filter.limit = 1
            return SearchPlan(filter: consume filter, exact: exact, barrier: barrier, pageLimit: 1, limitEndsAnswer: true)
        }
        let binding = PageCursor.binding(
            token: token, filter: filter, exact: exact, matchLimit: matchLimit, certificateMatch: query.certificateMatch,
            caseInsensitive: query.caseInsensitive)
        var plan = SearchPlan(
            filter: consume filter, exact: exact, barrier: barrier, pageLimit: pageSize, limitEndsAnswer: false, binding: binding)
        if let text = query.pageAfter {
            let cursor = try PageCursor(opening: text, barrier: barrier, binding: binding)
            plan.filter.afterID = cursor.afterID
            plan.returned = cursor.returned
        }
        if let matchLimit, matchLimit - plan.returned <= pageSize {
            plan.pageLimit = max(0, matchLimit - plan.returned)
            plan.limitEndsAnswer = true
        }
        // One row past the page tells whether another page follows. With certificate match keys
        // this is how many matches to find (securityd instead reads every row, without a LIMIT).
        plan.filter.limit = plan.limitEndsAnswer ? plan.pageLimit : plan.pageLimit + 1
        return plan
    }

    /// What every search checks first: the query, and the token's capabilities for it.
    func checkSearch(_ query: ItemQuery, token: AccessToken) throws(KeychainError) {
        try query.check(for: .search)
        guard token.has(.read) || token.has(.list) else {
            throw .missingEntitlement("token: the token lacks the read or list capability")
        }
        if query.wantsData, !token.has(.read) {
            throw .missingEntitlement("returnData: the token lacks the read capability")
        }
        if query.wantsRef, !token.has(.read) {
            throw .missingEntitlement("returnRef: the token lacks the read capability")
        }
    }

    /// A search's page from the records it read: at most `pageLimit` items and about
    /// `maxAnswerBytes` of them, with the cursor of the next page when more were read.
    private func results(_ records: [ItemRecord], query: ItemQuery, plan: SearchPlan) throws(KeychainError) -> SearchPage {
        guard !records.isEmpty else { throw .itemNotFound }
        let barrier = plan.barrier
        var count = min(records.count, plan.pageLimit)
        var bytes = 0
        for n in 0..<count {
            bytes += records[n].attributes.count + (query.opensSecrets ? records[n].secret?.count ?? 0 : 0)
            if bytes > configuration.maxAnswerBytes, n > 0 {
                count = n
                break
            }
        }
        if query.opensSecrets {
            // The whole call fails rather than answer a silent part (docs/semantics.md §3).
            // By index here and below: binding each record would copy it, a retain and release per field.
            // A password's reference is nothing: returnRef alone opens only certificates and keys.
            for n in 0..<count
            where records[n].secret != nil && (query.wantsData || records[n].itemClass >= ItemClass.certificate.rawValue) {
                guard barrier.classKey(for: Protection(rawValue: records[n].protection) ?? .whenUnlocked) != nil else {
                    throw Self.locked(query.wantsData ? "returnData" : "returnRef")
                }
            }
        }
        var results: [ItemResult] = []
        results.reserveCapacity(count)
        for n in 0..<count {
            results.append(try shape(records[n], query: query, barrier: barrier, secret: nil))
        }
        var next: String?
        if count < records.count, let binding = plan.binding {
            next = try PageCursor(afterID: records[count - 1].rowID, returned: plan.returned + count)
                .sealed(barrier: barrier, binding: binding)
        }
        return SearchPage(items: results, next: next)
    }

    // MARK: SecItemUpdate

    /// Updates every match (SecItemUpdate), atomically. `expectedVersion` (If-Match) requires
    /// the single matched item to have that version. Returns the updated items' attributes and
    /// refs, or, to a token without `read` or `list`, results carrying only the version.
    @discardableResult
    public func update(
        _ query: ItemQuery, attributesToUpdate changes: ItemQuery, token: AccessToken, expectedVersion: Int64? = nil
    ) throws(KeychainError) -> [ItemResult] {
        try require(.write, token, for: "update")
        try query.check(for: .updateQuery)
        try changes.check(for: .attributesToUpdate)
        guard changes.namesAttribute || changes.valueData != nil else {
            throw .param("attributesToUpdate: names nothing to change")
        }
        if let group = changes.accessGroup, !token.grants(group: group) { throw Self.lacksGroup(group) }
        if let secret = changes.valueData { try checkSize(secret) }
        let barrier = try barrier()
        if query.itemClass == .identity {
            return try updateIdentities(query, changes: changes, token: token, barrier: barrier, expectedVersion: expectedVersion)
        }
        let selection = try filter(for: query, token: token, barrier: barrier)
        let updated = try transaction { writer in
            let records = try self.matching(writer.items(matching: selection.filter), selection.exact, barrier: barrier)
            let updated = try self.applyUpdate(records, changes: changes, expectedVersion: expectedVersion, barrier: barrier)
            for record in updated { try writer.replace(record) }
            return updated
        }
        // What an update answers is a search's answer: a token that may not search learns
        // only that its update applied, and to how many items (as a delete's count).
        guard token.has(.read) || token.has(.list) else {
            return updated.map { ItemResult(ref: $0.ref, version: $0.version, attributes: nil, secret: nil, includesRef: false) }
        }
        return try updated.map { (record) throws(KeychainError) in
            try shape(record, query: ItemQuery(), barrier: barrier, secret: nil)
        }
    }

    /// The records as `changes` leaves them; throws without side effects.
    func applyUpdate(_ records: [ItemRecord], changes: ItemQuery, expectedVersion: Int64?, barrier: Barrier)
        throws(KeychainError) -> [ItemRecord]
    {
        let now = clock.now()
        guard !records.isEmpty else { throw .itemNotFound }
        if let expectedVersion, let record = records.first, records.count == 1, record.version != expectedVersion {
            throw .preconditionFailed("expectedVersion: the item's version is \(record.version), not \(expectedVersion)")
        }
        var updated: [ItemRecord] = []
        for record in records {
            var item = try DecodedItem(record, barrier: barrier)
            let old = item
            for (key, value) in changes.attributes {
                guard key.applies(to: item.itemClass) else {
                    throw .noSuchAttr(key.name, "class \(item.itemClass.name) has no such attribute")
                }
                if key.access == .derived { continue }  // compared below, never set
                if let index = item.attributes.firstIndex(where: { $0.key == key }) {
                    item.attributes[index].value = value
                } else {
                    item.attributes.append((key, value))
                }
            }
            if item.itemClass == .certificate {
                // New DER, new derived attributes; given ones must equal them.
                if let der = changes.valueData {
                    let derived = Self.derivedAttributes(of: try Self.parseCertificate(der))
                    item.attributes = item.attributes.filter { $0.key.access != .derived } + derived
                }
                try Self.checkDerived(changes.attributes, against: item.attributes)
            }
            if item.itemClass == .key, !Self.isExtractable(old), Self.isExtractable(item) {
                throw .param("isExtractable: a key that is not extractable never becomes extractable")
            }
            if item.itemClass == .key,
                changes.valueData != nil || changes.attributes.contains(where: { Self.isKeyShape($0.key) })
            {
                // New bytes or a new type, class or size: checked together again. New bytes get
                // the new key's sizes and label, unless the change gives them.
                if changes.valueData != nil {
                    let k = Self.keyKeys
                    for key in [k.label, k.size, k.effectiveSize] where !changes.attributes.contains(where: { $0.key == key }) {
                        item.attributes.removeAll { $0.key == key }
                    }
                }
                let bytes: [UInt8]
                if let new = changes.valueData {
                    bytes = new
                } else if let sealed = old.record.secret {
                    bytes = try openSecret(sealed, of: old.record, barrier: barrier, key: "valueData")
                } else {
                    throw .param("valueData: the key item has no key to check the change against")
                }
                item.attributes = try Self.keyAttributes(item.attributes, bytes: bytes, defaults: false)
            }
            if let group = changes.accessGroup {
                item.group = group
                item.record.group = barrier.groupDigest(group)
            }
            if let protection = changes.accessible { item.protection = protection }
            if case .only(let sync)? = changes.synchronizable { item.record.synchronizable = sync }
            if item.record.synchronizable, item.protection.isThisDeviceOnly {
                throw .param("accessible: a synchronizable item cannot use \(item.protection.name)")
            }
            item.record.protection = item.protection.rawValue
            // The secret is bound to ref, class and group, and sealed under its class key:
            // a new secret, a new group or a new key class means sealing again.
            if let secret = changes.valueData {
                item.record.secret = try seal(secret, for: item, barrier: barrier)
            } else if let sealed = old.record.secret,
                old.group != item.group || old.protection.keyClass != item.protection.keyClass
            {
                let secret = try openSecret(sealed, of: old.record, barrier: barrier, key: "accessGroup")
                item.record.secret = try seal(secret, for: item, barrier: barrier)
            }
            item.record.modified = max(now, item.record.created)
            item.record.version += 1
            try item.reseal(barrier: barrier)
            updated.append(item.record)
        }
        return updated
    }

    // MARK: SecItemDelete

    /// Deletes every match (SecItemDelete). A query naming no attribute needs `deleteAll: true`.
    @discardableResult
    public func delete(_ query: ItemQuery, token: AccessToken, expectedVersion: Int64? = nil) throws(KeychainError) -> Int {
        try deleteItems(query, token: token, expectedVersion: expectedVersion).count
    }

    /// `delete`, answering the persistent refs (16 bytes each) of the items it deleted.
    public func deleteItems(_ query: ItemQuery, token: AccessToken, expectedVersion: Int64? = nil) throws(KeychainError)
        -> [[UInt8]]
    {
        try require(.delete, token, for: "delete")
        try query.check(for: .delete)
        guard query.namesAttribute || query.deleteAll == true else {
            throw .param("deleteAll: a delete that names no attribute must say \"deleteAll\": true")
        }
        let barrier = try barrier()
        if query.itemClass == .identity {
            return try deleteIdentities(query, token: token, barrier: barrier, expectedVersion: expectedVersion)
        }
        let selection = try filter(for: query, token: token, barrier: barrier)
        return try transaction { writer in
            let records = try self.matching(writer.items(matching: selection.filter), selection.exact, barrier: barrier)
            guard !records.isEmpty else { throw KeychainError.itemNotFound }
            if let expectedVersion, records.count == 1, records[0].version != expectedVersion {
                throw KeychainError.preconditionFailed(
                    "expectedVersion: the item's version is \(records[0].version), not \(expectedVersion)")
            }
            try writer.delete(rowIDs: records.map(\.rowID))
            return records.map(\.ref)
        }
    }

    // MARK: status

    /// The items this token may see, counted without revealing any other group's.
    public func countItems(token: AccessToken) throws(KeychainError) -> Int {
        let barrier = try barrier()
        let filter = ItemFilter(groups: token.allGroups ? nil : groupDigests(of: token, barrier: barrier))
        return try snapshot { try $0.countItems(matching: filter) }
    }

    // MARK: helpers

    public static func lacksGroup(_ group: String) -> KeychainError {
        .missingEntitlement("accessGroup: the token lacks group \"\(group)\"")
    }

    static func locked(_ key: String) -> KeychainError {
        .interactionNotAllowed("\(key): the keychain is locked and the item's protection class needs it unlocked")
    }

    public func require(_ capability: Capability, _ token: AccessToken, for operation: String) throws(KeychainError) {
        guard token.has(capability) else {
            throw .missingEntitlement("token: the token lacks the \(capability.rawValue) capability needed to \(operation)")
        }
    }

    private func checkSize(_ secret: [UInt8]) throws(KeychainError) {
        guard secret.count <= configuration.maxSecretBytes else {
            throw .dataTooLarge("valueData: \(secret.count) bytes exceeds the limit of \(configuration.maxSecretBytes)")
        }
    }

    /// The storage filter for a search, update or delete query, limited to the token's groups,
    /// and the string values the records it selects must hold exactly (unless the query matches
    /// case-insensitively).
    func filter(for query: ItemQuery, token: AccessToken, barrier: Barrier) throws(KeychainError) -> ItemSelection {
        // The attributes with certificate names canonical, beside the query rather than in a
        // copy of it (a copy of every field on every search).
        let attributes = Self.canonicalNames(query.attributes)
        let groups: [String]?
        var digests: [[UInt8]]?
        if let group = query.accessGroup {
            guard token.grants(group: group) else { throw Self.lacksGroup(group) }
            groups = [group]
        } else {
            groups = token.allGroups ? nil : token.accessGroups
            digests = token.allGroups ? nil : groupDigests(of: token, barrier: barrier)
        }
        let (classes, codes) = query.candidateClasses
        // A persistent reference names one item, whatever its synchronizable state.
        let synchronizable = query.persistentRef != nil ? nil : query.synchronizableFilter
        let keyed = primaryKeys(
            for: query, attributes: attributes, classes: classes, groups: groups, synchronizable: synchronizable,
            barrier: barrier)
        var lookups: [[UInt8]] = []
        var exact = ExactValues()
        var groupCondition: [[UInt8]]?
        var groupKeys: GroupKeys?
        // Each primary-key digest binds its group: no separate group condition is needed.
        if keyed == nil {
            groupCondition = digests ?? groups.map { $0.map(barrier.groupDigest) }
            exact.key = keyCheck(for: query, attributes: attributes, classes: classes)
            if groups == nil, let key = exact.key, let synchronizable, store is any GroupListingStore {
                groupKeys = PrimaryKeyGroups(key, attributes: attributes, synchronizable: synchronizable, barrier: barrier)
                exact.groupKeys = groupKeys
            }
        }
        // Read out once: `keyed?.1` in the loop's condition copied the pair, both arrays
        // retained and released, at every attribute.
        let keyedKeys = keyed?.1
        for (key, value) in attributes where !(keyedKeys?.contains(key) ?? false) {
            // The store makes these from the group keys when it reads by lookups.
            if groupKeys != nil, exact.key!.keys.contains(key) { continue }
            lookups.append(barrier.lookup(key, value))
            if !query.caseInsensitive, case .string(let string) = value, !(exact.key?.keys.contains(key) ?? false) {
                exact.values.append((key, string))
            }
        }
        if let accessible = query.accessible {
            lookups.append(barrier.lookup(DecodedItem.accessibleKey, .int(Int64(accessible.rawValue))))
        }
        if let host = query.matchHostOrSubdomainOfHost { lookups.append(barrier.hostSuffix(host)) }
        // Made once, from its parts, rather than a filter changed field by field: that one was
        // copied twice on its way out, a retain and a release per field.
        let filter = ItemFilter(
            // Every stored class is no condition at all: leaving it out lets the store read by id.
            classes: codes.count == ItemClass.stored.count ? nil : codes, groups: groupCondition,
            synchronizable: synchronizable, ref: query.persistentRef, created: query.creationDate,
            modified: query.modificationDate, primaryKeys: keyed?.0, lookups: lookups, groupKeys: groupKeys)
        return ItemSelection(filter: filter, exact: exact)
    }

    /// The group keys of a primary key named whole but for its group, for a store that lists
    /// groups: each group's digest made once its name is known (`Barrier.groupName`), and the
    /// primary key's lookups made only if the store reads by them.
    final class PrimaryKeyGroups: GroupKeys, @unchecked Sendable {
        let key: ExactValues.KeyCheck
        let attributes: [(key: SchemaKey, value: AttributeValue)]
        let barrier: Barrier

        init(_ key: ExactValues.KeyCheck, attributes: [(key: SchemaKey, value: AttributeValue)], synchronizable: Bool, barrier: Barrier) {
            self.key = key
            self.attributes = attributes
            self.barrier = barrier
            super.init(itemClass: key.itemClass.rawValue, synchronizable: synchronizable, maxGroups: Keychain.maxPrimaryKeyGroups)
        }

        override func digest(group: [UInt8]) -> [UInt8]? {
            barrier.groupName(digest: group).map {
                barrier.primaryKey(itemClass: key.itemClass, group: $0, sync: synchronizable, values: key.values)
            }
        }

        override func primaryKeyLookups() -> [[UInt8]] {
            attributes.lazy.filter { attribute in self.key.keys.contains { $0 === attribute.key } }
                .map { self.barrier.lookup($0.key, $0.value) }
        }
    }

    /// The token's group digests: cached with the token when it came through `authenticate`.
    private func groupDigests(of token: AccessToken, barrier: Barrier) -> [[UInt8]] {
        token.groupDigests ?? token.accessGroups.map(barrier.groupDigest)
    }

    /// The primary-key digests a query names, one per group, when it pins a whole primary key:
    /// one class, each of its primary-key attributes matched exactly, a synchronizable state,
    /// and a list of groups. The item is then found by its unique key instead of by lookups.
    /// Also returns the attributes the digests cover.
    private func primaryKeys(
        for query: ItemQuery, attributes: [(key: SchemaKey, value: AttributeValue)], classes: [ItemClass], groups: [String]?,
        synchronizable: Bool?, barrier: Barrier
    ) -> ([[UInt8]], [SchemaKey])? {
        guard !query.caseInsensitive, query.persistentRef == nil, let synchronizable, let groups,
            groups.count <= Self.maxPrimaryKeyGroups
        else { return nil }
        guard classes.count == 1, let itemClass = classes.first else { return nil }
        let keys = itemClass.primaryKey
        guard keys.allSatisfy({ key in attributes.contains { $0.key === key } }) else { return nil }
        let values = keys.lazy.map { key in attributes.first { $0.key === key }!.value }
        // One group (a token of one group, or a query naming one) the usual case: an array
        // literal rather than `map`, whose result buffer is reserved through a slower path.
        let digests =
            groups.count == 1
            ? [barrier.primaryKey(itemClass: itemClass, group: groups[0], sync: synchronizable, values: values)]
            : groups.map { barrier.primaryKey(itemClass: itemClass, group: $0, sync: synchronizable, values: values) }
        return (digests, keys)
    }

    /// The primary key a query names whole but for its group (a token of every group, or of
    /// more than `maxPrimaryKeyGroups`): one class and each of its primary-key attributes, matched
    /// exactly.
    private func keyCheck(for query: ItemQuery, attributes: [(key: SchemaKey, value: AttributeValue)], classes: [ItemClass])
        -> ExactValues.KeyCheck?
    {
        guard !query.caseInsensitive, classes.count == 1, let itemClass = classes.first else { return nil }
        let keys = itemClass.primaryKey
        var values: [AttributeValue] = []
        for key in keys {
            guard let value = attributes.first(where: { $0.key === key })?.value else { return nil }
            values.append(value)
        }
        return ExactValues.KeyCheck(itemClass: itemClass, keys: keys, values: values)
    }

    /// Beyond this many groups a search goes by lookups rather than one primary key per group.
    static let maxPrimaryKeyGroups = 32

    private func seal(_ secret: [UInt8], for item: DecodedItem, barrier: Barrier) throws(KeychainError) -> [UInt8] {
        guard let key = barrier.classKey(for: item.protection) else { throw Self.locked("valueData") }
        if item.protection.keyClass == .whenUnlocked { noteSecretUse() }
        let ad = Barrier.secretAD(ref: item.record.ref, itemClass: item.itemClass, group: item.record.group)
        return try Self.crypto { () throws(CryptoError) in try barrier.sealSecret(secret, key: key, ad: ad) }
    }

    /// Opens a record's secret; needs only the row's clear fields, not its attributes.
    func openSecret(_ sealed: [UInt8], of record: ItemRecord, barrier: Barrier, key name: String) throws(KeychainError) -> [UInt8]
    {
        guard let itemClass = ItemClass(rawValue: record.itemClass), let protection = Protection(rawValue: record.protection)
        else { throw .decode("\(name): a stored item has an unknown class or protection class") }
        guard let key = barrier.classKey(for: protection) else { throw Self.locked(name) }
        if protection.keyClass == .whenUnlocked { noteSecretUse() }
        do {
            return try barrier.openSecret(sealed, key: key, ref: record.ref, itemClass: itemClass, group: record.group)
        } catch {
            logger.error("item secret failed authentication", metadata: ["item.ref": "\(PersistentRef.encode(record.ref))"])
            throw .decode("valueData: the stored secret failed authentication")
        }
    }

    /// Shapes one record as the query's return keys ask (attributes and ref when none is given).
    /// `decoded`: the record's attributes already open (an add's), which are then not opened again.
    func shape(_ record: ItemRecord, query: ItemQuery, barrier: Barrier, secret known: [UInt8]?, decoded: DecodedItem? = nil)
        throws(KeychainError) -> ItemResult
    {
        var decoded = decoded
        let isKey = record.itemClass == ItemClass.key.rawValue
        // A key's bytes leave only when it is extractable: its attributes say.
        if decoded == nil, query.wantsAttributes || !query.hasReturnKey || (isKey && query.opensSecrets) {
            decoded = try DecodedItem(record, barrier: barrier, logger: logger)
        }
        var attributes: ItemAttributes?
        if query.wantsAttributes || !query.hasReturnKey { attributes = decoded?.itemAttributes }
        let extractable = decoded.map(Self.isExtractable) ?? true
        var secret: [UInt8]?
        if query.wantsData, extractable, let sealed = record.secret {
            if let known {
                secret = known
            } else {
                secret = try openSecret(sealed, of: record, barrier: barrier, key: "returnData")
            }
        }
        var reference: ItemReference?
        if query.wantsRef {
            // The bytes the data already opened, or opened now (a certificate's, an extractable key's).
            var bytes = secret ?? known
            if bytes == nil, extractable, let sealed = record.secret, record.itemClass >= ItemClass.certificate.rawValue {
                bytes = try openSecret(sealed, of: record, barrier: barrier, key: "returnRef")
            }
            if record.itemClass == ItemClass.certificate.rawValue {
                reference = ItemReference(certificate: bytes, key: nil, keyType: nil, keyClass: nil)
            } else if isKey, let decoded {
                reference = Self.keyReference(decoded, bytes: extractable ? bytes : nil, certificate: nil)
            }
        }
        return ItemResult(
            ref: record.ref, version: record.version, attributes: attributes, secret: secret,
            includesRef: query.wantsPersistentRef || !query.hasReturnKey, reference: reference)
    }

    /// A key's reference: its bytes (when extractable), type and class, and an identity's certificate.
    static func keyReference(_ key: DecodedItem, bytes: [UInt8]?, certificate: [UInt8]?) -> ItemReference {
        func text(_ schemaKey: SchemaKey) -> String? {
            guard case .string(let value)? = key.attributes.first(where: { $0.key == schemaKey })?.value else { return nil }
            return value
        }
        return ItemReference(
            certificate: certificate, key: bytes, keyType: text(keyKeys.keyType), keyClass: text(keyKeys.keyClass))
    }
}

import Dispatch
import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import Logging
import Synchronization

extension Keychain {
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

    func checkSize(_ secret: [UInt8]) throws(KeychainError) {
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
            if groups == nil, let key = exact.key, let synchronizable, listsGroups {
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

        init(
            _ key: ExactValues.KeyCheck, attributes: [(key: SchemaKey, value: AttributeValue)], synchronizable: Bool,
            barrier: Barrier
        ) {
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

    /// Seals `item`'s secret, bound to whether it has an access object (`Barrier.secretAD`).
    func seal(_ secret: [UInt8], for item: DecodedItem, barrier: Barrier) throws(KeychainError) -> [UInt8] {
        guard let key = barrier.classKey(for: item.protection) else { throw Self.locked("valueData") }
        if item.protection.keyClass == .whenUnlocked { noteSecretUse() }
        let ad = item.secretAD
        return try Self.crypto { () throws(CryptoError) in try barrier.sealSecret(secret, key: key, ad: ad) }
    }

    /// Opens a record's secret for `tag`. Needs only the row's clear fields, unless the item
    /// has an access object: its secret then opens only once the object allows `tag` to
    /// `token` (`nil`: the caller has checked the item's access already). `decoded`: the
    /// record's attributes, when the caller has them open. A record read without them is read
    /// again, whole, when its secret is sealed as guarded (or tampered with).
    func openSecret(
        _ sealed: [UInt8], of record: ItemRecord, barrier: Barrier, key name: String, for tag: AccessTag,
        token: AccessToken?, decoded: DecodedItem? = nil
    ) throws(KeychainError) -> [UInt8] {
        guard let itemClass = ItemClass(rawValue: record.itemClass), let protection = Protection(rawValue: record.protection)
        else { throw .decode("\(name): a stored item has an unknown class or protection class") }
        guard let key = barrier.classKey(for: protection) else { throw Self.locked(name) }
        if protection.keyClass == .whenUnlocked { noteSecretUse() }
        if decoded?.access == nil,
            let secret = try? barrier.openSecret(sealed, key: key, ref: record.ref, itemClass: itemClass, group: record.group)
        {
            return secret
        }
        // Sealed as guarded, or tampered with: the attributes say which. A row read without them
        // is read again, its secret with it (a newer version, if one was written meanwhile), in
        // the group the search found it in.
        if decoded == nil, record.attributes.isEmpty {
            guard let whole = try snapshot({ try $0.items(matching: ItemFilter(ref: record.ref, limit: 1)).first }),
                whole.itemClass == record.itemClass, whole.group == record.group, let resealed = whole.secret,
                !whole.attributes.isEmpty
            else { throw .itemNotFound }
            let decoded = try DecodedItem(whole, barrier: barrier, logger: logger)
            return try openSecret(resealed, of: whole, barrier: barrier, key: name, for: tag, token: token, decoded: decoded)
        }
        let item: DecodedItem
        if let decoded { item = decoded } else { item = try DecodedItem(record, barrier: barrier, logger: logger) }
        if item.access != nil, let token { try checkAccess(item, tag, token: token) }
        do {
            return try barrier.openSecret(
                sealed, key: key, ref: record.ref, itemClass: itemClass, group: record.group, guarded: item.access != nil)
        } catch {
            logger.error(
                "item secret failed authentication",
                metadata: ["item.ref": "\(PersistentRef.encode(record.ref, keychain: self.name))"]
            )
            throw .decode("valueData: the stored secret failed authentication")
        }
    }

    /// Shapes one record as the query's return keys ask (attributes and ref when none is given).
    /// `decoded`: the record's attributes already open (an add's), which are then not opened again.
    /// `token`: whose access the item's access object checks when a secret is opened.
    func shape(
        _ record: ItemRecord, query: ItemQuery, barrier: Barrier, secret known: [UInt8]?, decoded: DecodedItem? = nil,
        token: AccessToken?
    ) throws(KeychainError) -> ItemResult {
        // A password's secret answered is `decrypt`; a certificate's or a key's bytes, `export`.
        let tag: AccessTag = record.itemClass < ItemClass.certificate.rawValue ? .decrypt : .export
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
                secret = try openSecret(
                    sealed, of: record, barrier: barrier, key: "returnData", for: tag, token: token, decoded: decoded)
            }
        }
        var reference: ItemReference?
        if query.wantsRef {
            // The bytes the data already opened, or opened now (a certificate's, an extractable key's).
            var bytes = secret ?? known
            if bytes == nil, extractable, let sealed = record.secret, record.itemClass >= ItemClass.certificate.rawValue {
                bytes = try openSecret(
                    sealed, of: record, barrier: barrier, key: "returnRef", for: tag, token: token, decoded: decoded)
            }
            if record.itemClass == ItemClass.certificate.rawValue {
                reference = ItemReference(certificate: bytes, key: nil, keyType: nil, keyClass: nil)
            } else if isKey, let decoded {
                reference = Self.keyReference(decoded, bytes: extractable ? bytes : nil, certificate: nil)
            }
        }
        return ItemResult(
            ref: record.ref, version: record.version, attributes: attributes, secret: secret,
            includesRef: query.wantsPersistentRef || !query.hasReturnKey, reference: reference, keychain: self.name)
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

import Dispatch
import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import Logging
import Synchronization

extension Keychain {
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
        store.items(matching: plan.filter, later: searchesLater) { [self] outcome in
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
        store.items(matching: filter, later: searchesLater) { [self] outcome in
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
        /// Whose access the items' access objects check when a secret is answered.
        var token: AccessToken? = nil
    }

    /// Checks the query and the token's capabilities first, then plans the page.
    private func searchPlan(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> SearchPlan {
        try checkSearch(query, token: token)
        let barrier = try barrier()
        if query.opensSecrets { try verifyPrompt(token) }
        let selection = try filter(for: query, token: token, barrier: barrier)
        let exact = selection.exact
        var filter = selection.filter
        // A key's data answers only when its attributes say it is extractable. An item with an
        // access object has its row read again, whole, when its secret is opened (`openSecret`).
        filter.readsAttributes =
            query.wantsAttributes || !query.hasReturnKey || !exact.isEmpty
            || (query.opensSecrets && filter.classes?.contains(ItemClass.key.rawValue) != false)
        let matchLimit = (query.matchLimit ?? .one).sqlLimit
        let pageSize = max(1, configuration.maxAnswerItems)
        guard matchLimit.map({ $0 > 1 }) ?? true else {
            filter.limit = 1
            return SearchPlan(
                filter: consume filter, exact: exact, barrier: barrier, pageLimit: 1, limitEndsAnswer: true, token: token)
        }
        let binding = PageCursor.binding(
            token: token, filter: filter, exact: exact, matchLimit: matchLimit, certificateMatch: query.certificateMatch,
            caseInsensitive: query.caseInsensitive)
        var plan = SearchPlan(
            filter: consume filter, exact: exact, barrier: barrier, pageLimit: pageSize, limitEndsAnswer: false, binding: binding,
            token: token)
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
            results.append(try shape(records[n], query: query, barrier: barrier, secret: nil, token: plan.token))
        }
        var next: String?
        if count < records.count, let binding = plan.binding {
            next = try PageCursor(afterID: records[count - 1].rowID, returned: plan.returned + count)
                .sealed(barrier: barrier, binding: binding)
        }
        return SearchPage(items: results, next: next)
    }
}

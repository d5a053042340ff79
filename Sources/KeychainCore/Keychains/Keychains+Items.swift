import Synchronization

/// The item calls across a token's keychains: an add goes to one keychain, a search, update or
/// delete looks in each of a list in order (Keychain Services' search list).
extension Keychains {
    /// The keychains `query` looks in for `token`, in order: the one `useKeychain` or a
    /// persistent reference names, those of `matchSearchList`, or the token's search list. A
    /// keychain a reference names that the token may not use names no item (errSecItemNotFound);
    /// one named outright is errSecNoSuchKeychain. Both answers are the same for a keychain that
    /// is missing and for one the token may not use.
    public func keychains(for query: ItemQuery, token: AccessToken) throws(KeychainError) -> [Keychain] {
        if let name = query.keychain {
            do { return [try keychain(named: name, for: token)] } catch {
                throw query.persistentRef != nil ? .itemNotFound : error
            }
        }
        if let list = query.searchList {
            var keychains: [Keychain] = []
            for name in list where !keychains.contains(where: { $0.name.isSameBytes(as: name) }) {
                keychains.append(try keychain(named: name, for: token))
            }
            return keychains
        }
        let list = searchList(for: token)
        guard !list.isEmpty else { throw .noSuchKeychain }
        return list
    }

    /// The keychain an add of `query` goes to: `useKeychain`'s, or the token's default.
    public func keychainForAdd(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> Keychain {
        if let name = query.keychain { return try keychain(named: name, for: token) }
        return try defaultKeychain(for: token)
    }

    /// SecItemCopyMatching across the keychains of `query`, one page (`SearchPage`), here.
    public func searchPage(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> SearchPage {
        let answer = Mutex<Result<SearchPage, KeychainError>?>(nil)
        search(
            query, token: token,
            run: { keychain, query, completion in
                completion(Result { () throws(KeychainError) in try keychain.searchPage(query, token: token) })
            }, completion: { outcome in answer.withLock { $0 = outcome } })
        // Every step above completes before returning.
        return try answer.withLock { $0 }!.get()
    }

    /// The same, answered through `completion`, later when a keychain's store answers later.
    public func search(
        _ query: ItemQuery, token: AccessToken, completion: @escaping @Sendable (Result<SearchPage, KeychainError>) -> Void
    ) {
        search(
            query, token: token,
            run: { keychain, query, completion in keychain.search(query, token: token, completion: completion) },
            completion: completion)
    }

    typealias Step = @Sendable (Keychain, ItemQuery, @escaping @Sendable (Result<SearchPage, KeychainError>) -> Void) -> Void

    /// Searches the keychains in order until the match limit is reached or a page is full. One
    /// keychain's search is that keychain's, cursor and all; across several, a page's cursor says
    /// where to go on (`SpanCursor`).
    private func search(
        _ query: ItemQuery, token: AccessToken, run: @escaping Step,
        completion: @escaping @Sendable (Result<SearchPage, KeychainError>) -> Void
    ) {
        let list: [Keychain]
        do { list = try keychains(for: query, token: token) } catch { return completion(.failure(error)) }
        if list.count == 1 { return run(list[0], query, completion) }
        var start = SpanCursor(index: 0, before: 0, inThis: 0, inner: nil)
        if let text = query.pageAfter {
            guard let cursor = SpanCursor(text, names: list.map(\.name)) else { return completion(.failure(PageCursor.bad)) }
            start = cursor
        }
        let span = Span(
            query: query, list: list, limit: query.matchLimit ?? .one, pageItems: self.default.configuration.maxAnswerItems)
        span.step(start, answered: [], run: run, completion: completion)
    }

    /// SecItemUpdate in each keychain of `query` that holds a match, in order; errSecItemNotFound
    /// when none does. Each keychain's part is its own transaction.
    public func update(
        _ query: ItemQuery, attributesToUpdate changes: ItemQuery, token: AccessToken, expectedVersion: Int64? = nil
    ) throws(KeychainError) -> [ItemResult] {
        try changes.check(for: .attributesToUpdate)
        return try each(query, token: token) { keychain throws(KeychainError) in
            try keychain.update(query, attributesToUpdate: changes, token: token, expectedVersion: expectedVersion)
        }
    }

    /// SecItemDelete in each keychain of `query`, in order: the deleted items' refs, each with
    /// its keychain's name; errSecItemNotFound when no keychain held a match.
    public func deleteItems(_ query: ItemQuery, token: AccessToken, expectedVersion: Int64? = nil) throws(KeychainError)
        -> [(keychain: String, ref: [UInt8])]
    {
        try each(query, token: token) { keychain throws(KeychainError) in
            try keychain.deleteItems(query, token: token, expectedVersion: expectedVersion).map { (keychain.name, $0) }
        }
    }

    /// `body`'s results in each keychain of `query`, in order; a keychain with no match adds
    /// none, and errSecItemNotFound comes only when none had one.
    private func each<T>(_ query: ItemQuery, token: AccessToken, _ body: (Keychain) throws(KeychainError) -> [T])
        throws(KeychainError) -> [T]
    {
        var results: [T] = []
        for keychain in try keychains(for: query, token: token) {
            do { results += try body(keychain) } catch  where error == .itemNotFound { continue }
        }
        guard !results.isEmpty else { throw .itemNotFound }
        return results
    }
}

/// Where a search across keychains goes on, as its `pageAfter`:
/// `<keychain>.<before>.<inThis>.<cursor>`: the keychain, how many items the keychains before
/// it answered, how many this one answered on earlier pages, and this keychain's own cursor
/// (empty: from its first item). Only the limit depends on the counts, and only the client's
/// own answer: a client that changes them changes nothing else.
struct SpanCursor {
    var index: Int
    var before: Int
    var inThis: Int
    var inner: String?

    init(index: Int, before: Int, inThis: Int, inner: String?) {
        self.index = index
        self.before = before
        self.inThis = inThis
        self.inner = inner
    }

    init?(_ text: String, names: [String]) {
        let parts = text.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let index = names.firstIndex(where: { $0.utf8.elementsEqual(parts[0].utf8) }),
            let before = Int(parts[1]), before >= 0, let inThis = Int(parts[2]), inThis >= 0
        else { return nil }
        self.init(index: index, before: before, inThis: inThis, inner: parts[3].isEmpty ? nil : String(parts[3]))
    }

    func text(names: [String]) -> String { "\(names[index]).\(before).\(inThis).\(inner ?? "")" }
}

/// One search across keychains.
private struct Span: Sendable {
    let query: ItemQuery
    let list: [Keychain]
    let limit: MatchLimit
    let pageItems: Int

    /// Searches keychain `at.index` from `at`, then the next, with what this page holds so far.
    func step(
        _ at: SpanCursor, answered: [ItemResult],
        run: @escaping Keychains.Step,
        completion: @escaping @Sendable (Result<SearchPage, KeychainError>) -> Void
    ) {
        let names = list.map(\.name)
        var query = self.query
        query.keychain = nil
        query.searchList = nil
        query.pageAfter = at.inner
        switch limit {
        case .all: break
        case .one: query.matchLimit = .one
        case .count(let n): query.matchLimit = .count(max(1, n - at.before))
        }
        run(list[at.index], query) { outcome in
            var page = SearchPage(items: [], next: nil)
            switch outcome {
            case .success(let found): page = found
            case .failure(let error) where error == .itemNotFound: break
            case .failure(let error): return completion(.failure(error))
            }
            let answered = answered + page.items
            if let inner = page.next {
                let next = SpanCursor(index: at.index, before: at.before, inThis: at.inThis + page.items.count, inner: inner)
                return completion(.success(SearchPage(items: answered, next: next.text(names: names))))
            }
            let before = at.before + at.inThis + page.items.count
            let reached: Bool
            switch limit {
            case .all: reached = false
            case .one: reached = before >= 1
            case .count(let n): reached = before >= n
            }
            guard !reached, at.index + 1 < list.count else {
                return completion(answered.isEmpty ? .failure(.itemNotFound) : .success(SearchPage(items: answered, next: nil)))
            }
            let following = SpanCursor(index: at.index + 1, before: before, inThis: 0, inner: nil)
            guard answered.count < pageItems else {
                return completion(.success(SearchPage(items: answered, next: following.text(names: names))))
            }
            step(following, answered: answered, run: run, completion: completion)
        }
    }
}

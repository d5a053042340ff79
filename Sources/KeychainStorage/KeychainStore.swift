/// Untrusted storage behind the barrier: it sees ciphertext, digests and opaque ids only.
///
/// `read` may run concurrently with other reads and with a write; `write` runs one at a time
/// and is durable when it returns. Each store lives in its own target and runs the shared
/// conformance suite (`Tests/KeychainStorageTests`); the executable chooses one and hands it to
/// the keychain. What only some stores do is an optional protocol of its own:
/// `SearchesAnswerLater`, `AddsAnswerLater`, `SharedStore`, `GroupListingStore`.
public protocol KeychainStore: Sendable {
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T
    func write<T>(_ body: @escaping (any StoreWriter) throws -> T) throws -> T
    /// The items matching `filter`, read in one statement (its own snapshot): the search fast
    /// path, without a transaction's begin and commit around it.
    func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord]
    /// Adds one item, durably when it returns, in a transaction of its own (which a store may
    /// share with concurrent writes); `uniqueViolation` when its primary key exists.
    func add(_ item: ItemRecord) throws
    /// Releases connections; further calls fail with `unavailable`.
    func close()
    /// Writes a consistent copy of the whole store, as it is stored (sealed), into the new,
    /// empty file at `path`, while reads and writes go on. `unsupported` when the store has no
    /// such copy of its own (PostgreSQL: `pg_dump`).
    func backup(to path: String) throws(StorageError)
}

extension KeychainStore {
    public func backup(to path: String) throws(StorageError) {
        throw .unsupported("this store is not backed up by keychaind")
    }

    /// A write of one insert.
    public func add(_ item: ItemRecord) throws {
        _ = try write { try $0.insert(item) }
    }

    /// `items(matching:)`, answered through `whenAnswered`: later, on another thread, when the
    /// store `SearchesAnswerLater`; else at once, on the caller's thread.
    public func items(
        matching filter: ItemFilter, whenAnswered: @escaping @Sendable (Result<[ItemRecord], StorageError>) -> Void
    ) {
        items(matching: filter, later: self as? any SearchesAnswerLater, whenAnswered: whenAnswered)
    }

    /// The same, with the cast made once by a caller that keeps it: `later` is this store when it
    /// `SearchesAnswerLater`, else `nil`.
    public func items(
        matching filter: ItemFilter, later: (any SearchesAnswerLater)?,
        whenAnswered: @escaping @Sendable (Result<[ItemRecord], StorageError>) -> Void
    ) {
        if let later { return later.items(matching: filter, completion: whenAnswered) }
        whenAnswered(Result { () throws(StorageError) in try items(matching: filter) })
    }

    /// `add(_:)`, answered through `whenDurable`: later, on another thread, when the store
    /// `AddsAnswerLater`; else at once, on the caller's thread.
    public func add(_ item: ItemRecord, whenDurable: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        add(item, later: self as? any AddsAnswerLater, whenDurable: whenDurable)
    }

    /// The same, with the cast made once by a caller that keeps it: `later` is this store when it
    /// `AddsAnswerLater`, else `nil`.
    public func add(
        _ item: ItemRecord, later: (any AddsAnswerLater)?,
        whenDurable: @escaping @Sendable (Result<Void, StorageError>) -> Void
    ) {
        if let later { return later.add(item, completion: whenDurable) }
        whenDurable(
            Result { () throws(StorageError) in
                do { try add(item) } catch let error as StorageError { throw error } catch { throw .failed("\(error)") }
            })
    }
}

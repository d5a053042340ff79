/// Reads a consistent snapshot of the store.
public protocol StoreReader {
    func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord]
    func countItems(matching filter: ItemFilter) throws(StorageError) -> Int
    /// The item whose primary-key digest is `primaryKey`, if any.
    func item(primaryKey: [UInt8]) throws(StorageError) -> ItemRecord?
    func meta(_ key: String) throws(StorageError) -> [UInt8]?
    func token(hash: [UInt8]) throws(StorageError) -> TokenRecord?
    func tokens() throws(StorageError) -> [TokenRecord]
}

/// Writes inside one transaction; nothing is visible or durable until the transaction commits.
///
/// Reads through a writer see every commit before the transaction began, and nothing another
/// writer commits can slip in between them and the transaction's own commit: a read-modify-write
/// inside one `write` cannot lose another writer's update, in this process or in another one
/// sharing the database. (SQLite: `BEGIN IMMEDIATE` takes the database's write lock before the
/// first read. A server database would read with `SELECT … FOR UPDATE`, or run serializable.)
public protocol StoreWriter: StoreReader {
    /// Inserts a new item; `uniqueViolation` if its primary key exists. Returns the row id.
    @discardableResult
    func insert(_ item: ItemRecord) throws(StorageError) -> Int64
    /// Replaces the item with `item.rowID`, lookups included; `uniqueViolation` on a primary-key collision.
    func replace(_ item: ItemRecord) throws(StorageError)
    /// Deletes the items with these row ids.
    func delete(rowIDs: [Int64]) throws(StorageError)
    func setMeta(_ key: String, _ value: [UInt8]?) throws(StorageError)
    /// Creates `key` unless it exists; `false`, changing nothing, when it does. Two writers
    /// creating the same key: exactly one gets `true`.
    func insertMeta(_ key: String, _ value: [UInt8]) throws(StorageError) -> Bool
    func insert(_ token: TokenRecord) throws(StorageError)
    /// Deletes the token with `id`; `false` when there was none.
    func deleteToken(id: String) throws(StorageError) -> Bool
}

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
        if let later = self as? any SearchesAnswerLater { return later.items(matching: filter, completion: whenAnswered) }
        whenAnswered(Result { () throws(StorageError) in try items(matching: filter) })
    }

    /// `add(_:)`, answered through `whenDurable`: later, on another thread, when the store
    /// `AddsAnswerLater`; else at once, on the caller's thread.
    public func add(_ item: ItemRecord, whenDurable: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        if let later = self as? any AddsAnswerLater { return later.add(item, completion: whenDurable) }
        whenDurable(Result { () throws(StorageError) in
            do { try add(item) } catch let error as StorageError { throw error } catch { throw .failed("\(error)") }
        })
    }
}

/// A store whose searches answer later, so that a caller should not wait for them on a thread
/// that serves other requests too: a store on a server batches the searches of many requests
/// into one round trip. Other stores answer `items(matching:)` at once, on the caller's thread.
public protocol SearchesAnswerLater: KeychainStore {
    /// `items(matching:)`, answered through `completion`, which may run later and on another thread.
    func items(matching filter: ItemFilter, completion: @escaping @Sendable (Result<[ItemRecord], StorageError>) -> Void)
}

/// A store whose adds answer later, once durable, so that a caller should not wait for them on
/// a thread that serves other requests too: the store commits the adds of many requests
/// together (SQLite in batches, PostgreSQL in one round trip). Other stores answer `add(_:)` at once.
public protocol AddsAnswerLater: KeychainStore {
    /// `add(_:)`, answered through `completion` once durable, which may run later and on another thread.
    func add(_ item: ItemRecord, completion: @escaping @Sendable (Result<Void, StorageError>) -> Void)
}

/// A store other processes may use at the same time (replicas on one database): the keychain
/// then shares its lock state, revocations and heartbeats through it.
public protocol SharedStore: KeychainStore {}

/// A store that reads a filter's `groupKeys`: lists the groups holding items of the class, in
/// the snapshot it reads the items from, and reads by their primary keys when it can (see
/// `GroupKeys`). Other stores are handed lookups instead.
public protocol GroupListingStore: KeychainStore {}

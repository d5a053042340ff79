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
public protocol StoreWriter: StoreReader {
    /// Inserts a new item; `uniqueViolation` if its primary key exists. Returns the row id.
    @discardableResult
    func insert(_ item: ItemRecord) throws(StorageError) -> Int64
    /// Replaces the item with `item.rowID`, lookups included; `uniqueViolation` on a primary-key collision.
    func replace(_ item: ItemRecord) throws(StorageError)
    /// Deletes the items with these row ids.
    func delete(rowIDs: [Int64]) throws(StorageError)
    func setMeta(_ key: String, _ value: [UInt8]?) throws(StorageError)
    func insert(_ token: TokenRecord) throws(StorageError)
    /// Deletes the token with `id`; `false` when there was none.
    func deleteToken(id: String) throws(StorageError) -> Bool
}

/// Untrusted storage behind the barrier: it sees ciphertext, digests and opaque ids only.
///
/// `read` may run concurrently with other reads and with a write; `write` runs one at a time
/// and is durable when it returns. A PostgreSQL backend implements the same protocol.
public protocol KeychainStore: Sendable {
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T
    func write<T>(_ body: @escaping (any StoreWriter) throws -> T) throws -> T
    /// The items matching `filter`, read in one statement (its own snapshot): the search fast
    /// path, without a transaction's begin and commit around it.
    func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord]
    /// Releases connections; further calls fail with `unavailable`.
    func close()
}

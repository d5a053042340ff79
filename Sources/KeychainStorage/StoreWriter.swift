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
    /// Appends `event` to the events every replica reads, in this transaction: its append
    /// sequence (placed later, `SharedEventLog.placeEvents`), or nil on a store whose events
    /// stay in the process.
    func append(_ event: StoredEvent) throws(StorageError) -> UInt64?
}

extension StoreWriter {
    public func append(_ event: StoredEvent) throws(StorageError) -> UInt64? { nil }
}

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

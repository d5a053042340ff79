import KeychainSQLite
public import KeychainStorage
import Synchronization

/// A store that passes everything to another one until told to fail its writes, as a full disk
/// does: every write then throws `StorageError.failed` and changes nothing; reads still work.
public final class FaultyStore: GroupListingStore {
    public let inner: any GroupListingStore
    private let failing = Atomic<Bool>(false)

    public init(_ inner: any GroupListingStore) {
        self.inner = inner
    }

    /// Over a SQLite store in `directory`, as the fixtures use it.
    public convenience init(sqliteIn directory: String) throws {
        self.init(try SQLiteStore(directory: directory))
    }

    /// Whether writes fail from now on.
    public var failsWrites: Bool {
        get { failing.load(ordering: .relaxed) }
        set { failing.store(newValue, ordering: .relaxed) }
    }

    private func check() throws(StorageError) {
        if failsWrites { throw .failed("disk I/O error (injected: no space left on device)") }
    }

    public func read<T>(_ body: (any StoreReader) throws -> T) throws -> T { try inner.read(body) }

    public func write<T>(_ body: @escaping (any StoreWriter) throws -> T) throws -> T {
        try check()
        return try inner.write(body)
    }

    public func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord] { try inner.items(matching: filter) }

    public func add(_ item: ItemRecord) throws {
        try check()
        try inner.add(item)
    }

    public func close() { inner.close() }
}

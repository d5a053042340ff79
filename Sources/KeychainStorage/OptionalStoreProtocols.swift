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

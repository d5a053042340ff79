/// A keychain event as a shared store keeps it for every replica (`SharedEventLog`): the name of
/// its keychain, and the event sealed under that keychain's attribute key.
public struct StoredEvent: Sendable, Equatable {
    public var keychain: String
    public var sealed: [UInt8]

    public init(keychain: String, sealed: [UInt8]) {
        self.keychain = keychain
        self.sealed = sealed
    }
}

/// A store whose events every replica reads (PostgreSQL): writes append their events in their
/// own transactions (`StoreWriter.append`, `ItemRecord.event`), each answered with its append
/// sequence, without waiting on any other writer. `placeEvents` then gives every committed event
/// a position, one order for every replica, and every replica reads them back by position.
public protocol SharedEventLog: KeychainStore {
    /// The placed events after position `position`, by position, at most `limit`: each with its
    /// position and the sequence its append answered.
    func events(after position: UInt64, limit: Int) throws(StorageError)
        -> [(sequence: UInt64, appended: UInt64, event: StoredEvent)]
    /// The newest event's position; 0 when there is none.
    func lastEventSequence() throws(StorageError) -> UInt64
    /// Places every committed event not placed yet, after those placed before, and tells every
    /// replica when it placed one.
    func placeEvents() throws(StorageError)
    /// Returns when an event may have been appended or placed since the last call (a
    /// notification, or a commit in this process that appended one), or after `timeoutMilliseconds`.
    func waitForEvents(timeoutMilliseconds: Int) throws(StorageError)
    /// Deletes every placed event but the newest `count`.
    func trimEvents(keeping count: Int) throws(StorageError)
}

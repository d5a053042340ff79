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
/// own transactions (`StoreWriter.append`, `ItemRecord.event`), each given the next sequence in
/// the order the transactions commit, and every replica reads them back in that order.
public protocol SharedEventLog: KeychainStore {
    /// The events after `sequence`, oldest first, at most `limit`.
    func events(after sequence: UInt64, limit: Int) throws(StorageError) -> [(sequence: UInt64, event: StoredEvent)]
    /// The newest event's sequence; 0 when there is none.
    func lastEventSequence() throws(StorageError) -> UInt64
    /// Returns when an event may have been appended since the last call (on a connection of
    /// its own), or after `timeoutMilliseconds`.
    func waitForEvents(timeoutMilliseconds: Int) throws(StorageError)
    /// Deletes every event but the newest `count`.
    func trimEvents(keeping count: Int) throws(StorageError)
}

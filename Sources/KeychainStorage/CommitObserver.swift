/// Told of every batch a store commits, for metrics: how many writes shared the transaction
/// and how long it took from BEGIN to the end of COMMIT (with `synchronous=FULL`, or
/// PostgreSQL's `synchronous_commit`, that includes the fsync every write waits for).
///
/// Called on the committing thread once the COMMIT has returned (or failed), while the next
/// batch waits: keep it to a few atomic operations.
public protocol CommitObserver: Sendable {
    func committed(_ path: CommitPath, batchSize: Int, nanoseconds: UInt64)
    /// The COMMIT statement of a SQLite batch alone: its WAL frames written and the `-wal` file
    /// synced (`synchronous=FULL`), the part of a commit that waits for the disk. PostgreSQL
    /// syncs its WAL inside the server, where `pg_stat_wal` times it; its stores never call this.
    func synced(nanoseconds: UInt64)
}

/// Which queue a batch came through.
public enum CommitPath: Sendable, CaseIterable {
    /// `KeychainStore.write` through `GroupCommit`: every write, each in a savepoint.
    case write
    /// A store's batched adds (PostgreSQL: `add(_:completion:)`, one transaction per round trip).
    case add

    /// The metric label's value.
    public var label: String {
        switch self {
        case .write: "write"
        case .add: "add"
        }
    }
}

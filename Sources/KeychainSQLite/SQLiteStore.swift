import Dispatch
internal import Foundation
public import KeychainStorage
import Synchronization

/// The embedded default store: SQLite in WAL mode, one writer, a pool of readers, and the
/// database file locked for this process alone while it is open (see `SQLiteConnection.vfs`).
///
/// Durability: `synchronous=FULL`, so a committed write survives a crash and a power loss.
/// Deleted rows: `secure_delete=ON` and a TRUNCATE checkpoint after every write that deleted,
/// so old rows linger neither in the database pages nor in the `-wal` file. The checkpoint runs
/// on a thread of its own and is retried every few milliseconds until no reader holds it back
/// (`WALCheckpointer`): no commit waits for it, and it waits for no reader.
/// Statement journals: `temp_store=MEMORY`. Group commit runs each add in a savepoint of its
/// own, and SQLite keeps a copy of every page a savepoint changes that an earlier one of the
/// batch had changed: with the default, in an unlinked temporary file under `TMPDIR`, five
/// pages and ten `pwrite`s an add (database pages, sealed, outside the data directory); in
/// memory, a batch's copies are at most a few MiB and freed at its commit
/// (docs/performance.md#statement-journals-in-memory).
///
/// Pages are read through a memory map of the database file (`PRAGMA mmap_size`, `mmapBytes`, 1
/// GiB by default) rather than copied by a `pread` each, a system call and a 4 KiB copy
/// (docs/performance.md#sqlite-reads-through-a-memory-map).
/// SQLite writes with `pwrite` as before (its map is read-only), and pages a commit put in the
/// `-wal` file are read from there until the checkpoint. The mapped pages are the kernel's page
/// cache, which reads by `pread` fill as well: they count in the process's VmRSS (`RssFile`),
/// not in its own memory. A read error of the disk under the map ends the process (SIGBUS)
/// where `pread` would have failed the request.
///
/// Reads: a reader keeps its read transaction open between reads for as long as nothing has
/// been committed since it began, which spares SQLite starting and ending one per search
/// (docs/performance.md#read-transactions-kept-open). This process alone writes the file,
/// and every commit goes through `commit(_:)`, which counts it in `generation`: a reader whose
/// transaction is older than the last commit ends it and begins another before reading, and
/// no reader idle in the pool keeps one past a commit, so none holds back a checkpoint.
public final class SQLiteStore: KeychainStore {
    /// The database file's path.
    public let path: String
    private let writer: Mutex<SQLiteConnection?>
    private let readers: Mutex<[SQLiteConnection]>
    let closed = Atomic<Bool>(false)
    private let groupCommit: GroupCommit
    private let observer: (any CommitObserver)?
    private let checkpointer: WALCheckpointer
    /// Commits so far: raised after each COMMIT returns, before any writer is answered.
    private let generation = Atomic<UInt64>(0)
    /// The adds answered later (`add(_:completion:)`), committed in batches by a thread of their
    /// own: a polling thread hands an add over and goes on serving.
    private let adds: BatchingThreads<PendingAdd, Void>
    let busyTimeoutMilliseconds: Int
    /// Bytes of the database file each connection maps (`PRAGMA mmap_size`); 0: none.
    public let mmapBytes: Int

    /// `mmapBytes` by default: a keychain of two million passwords. SQLite's own limit (Debian's
    /// build) is just under 2 GiB; past the mapped bytes, pages are read with `pread`.
    public static let defaultMmapBytes = 1 << 30

    /// The database's file name in a data directory.
    public static let fileName = "keychain.db"

    /// Opens (creating if needed) `keychain.db` in `directory`, which is created with mode 0700
    /// when missing; `observer` is told of every commit.
    public convenience init(
        directory: String, mmapBytes: Int = defaultMmapBytes, observer: (any CommitObserver)? = nil
    ) throws(StorageError) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unavailable("data directory cannot be created: \(directory)")
        }
        try self.init(path: directory + "/" + Self.fileName, mmapBytes: mmapBytes, observer: observer)
    }

    /// Opens (creating if needed) the database at `path` and applies pending migrations;
    /// `observer` is told of every commit.
    public init(
        path: String, busyTimeoutMilliseconds: Int = 5_000, mmapBytes: Int = defaultMmapBytes,
        observer: (any CommitObserver)? = nil
    ) throws(StorageError) {
        self.path = path
        self.mmapBytes = max(0, mmapBytes)
        groupCommit = GroupCommit(observer: observer)
        self.observer = observer
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        let connection = try SQLiteConnection(path: path, readOnly: false)
        do {
            // The first access takes the process's exclusive lock (see `SQLiteConnection.vfs`).
            try connection.execute(
                """
                PRAGMA busy_timeout = \(busyTimeoutMilliseconds);
                PRAGMA journal_mode = WAL;
                PRAGMA synchronous = FULL;
                PRAGMA secure_delete = ON;
                PRAGMA foreign_keys = OFF;
                PRAGMA temp_store = MEMORY;
                PRAGMA mmap_size = \(self.mmapBytes);
                """)
        } catch  where error.code == .busy {
            throw .busy("\(path) is in use by another process (a running keychaind owns its data directory)")
        }
        try Migrations.apply(to: connection)
        checkpointer = try WALCheckpointer(path: path)
        writer = Mutex(connection)
        readers = Mutex([])
        adds = BatchingThreads(
            name: "sqlite-adds", threads: 1,
            handle: { batch, _ in
                batch.first?.store.commitAdds(batch)
                return []
            },
            refuse: { $0.completion(.failure(.unavailable("store is closed"))) })
    }

    /// A pragma's value on a reader connection (for tests).
    package func readerPragma(_ name: String) throws(StorageError) -> Int64? {
        let connection = try checkOutReader()
        defer { checkIn(connection) }
        return try connection.scalarInt("PRAGMA \(name)")
    }

    /// A pragma's value on the writer connection (for tests).
    package func writerPragma(_ name: String) throws(StorageError) -> Int64? {
        try writer.withLock { (slot: inout SQLiteConnection?) throws(StorageError) -> Int64? in
            guard let connection = slot else { throw .unavailable("store is closed") }
            return try connection.scalarInt("PRAGMA \(name)")
        }
    }

    /// Closes every connection and stops the checkpointer's thread (after a last checkpoint).
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Every add handed over is answered before the writer goes: those still queued are
        // refused, a batch already committing ends (or fails as closed).
        adds.close()
        readers.withLock { $0.removeAll() }
        // A last checkpoint, with the idle readers gone.
        checkpointer.stop()
        writer.withLock { $0 = nil }
    }

    /// Returns once every delete committed so far has left the `-wal` file, or the store has
    /// closed. Deletes do not wait for this (see `WALCheckpointer`); tests and backups may.
    public func waitForCheckpoints() {
        checkpointer.waitUntilCheckpointed()
    }

    public func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        let connection = try checkOutReader()
        defer { checkIn(connection) }
        try beginSnapshot(on: connection)
        do {
            return try body(SQLiteSession(connection: connection))
        } catch {
            endSnapshot(on: connection)
            throw error
        }
    }

    /// Durable when it returns. Concurrent callers are committed together (see `GroupCommit`):
    /// one transaction and one fsync for the batch, each body in a savepoint of its own.
    public func write<T>(_ body: @escaping (any StoreWriter) throws -> T) throws -> T {
        try write(writes: 1, body)
    }

    /// `write(_:)` of a body that makes `writes` writes (a batch of adds), as the observer counts them.
    private func write<T>(writes: Int, _ body: @escaping (any StoreWriter) throws -> T) throws -> T {
        try groupCommit.submit(writes: writes, body) { batch in self.commit(batch) }
    }

    /// An add answered later, and the store that commits it.
    private struct PendingAdd: Sendable {
        let item: ItemRecord
        let completion: @Sendable (Result<Void, StorageError>) -> Void
        let store: SQLiteStore
    }

    /// Queued for the adds' thread, which commits every add queued meanwhile in one write (one
    /// transaction shared with concurrent writes, one fsync), each in a savepoint of its own, so
    /// that a duplicate fails alone; `completion` runs there, after the COMMIT.
    public func add(_ item: ItemRecord, completion: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        adds.submit(PendingAdd(item: item, completion: completion, store: self))
    }

    /// Commits a batch of adds and answers each: a failure of the whole write (the COMMIT, a
    /// closed store) is every add's. The observer counts each add as a write of the batch.
    private func commitAdds(_ batch: [PendingAdd]) {
        let outcomes: [Result<Void, StorageError>]
        do {
            outcomes = try write(writes: batch.count) { writer -> [Result<Void, StorageError>] in
                // `write` hands this store's own session.
                let session = writer as! SQLiteSession
                return try batch.map { add throws(StorageError) in try session.addInSavepoint(add.item) }
            }
        } catch let error as StorageError {
            outcomes = Array(repeating: .failure(error), count: batch.count)
        } catch {
            outcomes = Array(repeating: .failure(.failed("\(error)")), count: batch.count)
        }
        for (add, outcome) in zip(batch, outcomes) { add.completion(outcome) }
    }

    /// Runs `batch` in one transaction on the writer connection and records each outcome.
    private func commit(_ batch: [GroupCommit.Pending]) {
        writer.withLock { slot in
            guard let connection = slot, !closed.load(ordering: .acquiring) else {
                for pending in batch { pending.result = .failure(StorageError.unavailable("store is closed")) }
                return
            }
            let session = SQLiteSession(connection: connection)
            do {
                try connection.statement("BEGIN IMMEDIATE").run([])
                for pending in batch {
                    try connection.statement("SAVEPOINT write").run([])
                    do {
                        pending.result = .success(try pending.body(session))
                        try connection.statement("RELEASE write").run([])
                    } catch {
                        pending.result = .failure(error)
                        try connection.statement("ROLLBACK TO write").run([])
                        try connection.statement("RELEASE write").run([])
                    }
                }
                let syncing = observer == nil ? 0 : DispatchTime.now().uptimeNanoseconds
                try connection.statement("COMMIT").run([])
                observer?.synced(nanoseconds: DispatchTime.now().uptimeNanoseconds &- syncing)
            } catch {
                try? connection.execute("ROLLBACK")
                for pending in batch { pending.result = .failure(error) }
                return
            }
            // Readers must see this commit: from now on each ends an older read transaction
            // before reading, and the idle ones end theirs here.
            generation.add(1, ordering: .releasing)
            readers.withLock { pool in
                for reader in pool { endSnapshot(on: reader) }
            }
            if session.deleted {
                // The WAL's frames move into the database (where secure_delete zeroed the freed
                // space) and the -wal file is truncated, so deleted rows leave no copy behind:
                // on the checkpointer's thread, which neither this commit nor the next waits for.
                checkpointer.request()
            }
        }
    }

    public func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord] {
        let connection = try checkOutReader()
        defer { checkIn(connection) }
        try beginSnapshot(on: connection)
        do {
            return try SQLiteSession(connection: connection).items(matching: filter)
        } catch {
            endSnapshot(on: connection)
            throw error
        }
    }

    /// Makes sure `connection` has a read transaction that began after the last commit.
    ///
    /// The generation is read before BEGIN, and SQLite takes the snapshot at the first read
    /// after it, so the snapshot holds at least every commit that generation counts.
    private func beginSnapshot(on connection: SQLiteConnection) throws(StorageError) {
        let current = generation.load(ordering: .acquiring)
        guard connection.snapshotGeneration != current else { return }
        endSnapshot(on: connection)
        // Prepared once per connection: sqlite3_exec would parse these on every read.
        try connection.statement("BEGIN DEFERRED").run([])
        connection.snapshotGeneration = current
    }

    private func endSnapshot(on connection: SQLiteConnection) {
        guard connection.snapshotGeneration != nil else { return }
        connection.snapshotGeneration = nil
        connection.listedGroups = nil
        // A read transaction has nothing to commit; should COMMIT fail, ROLLBACK ends it.
        do { try connection.statement("COMMIT").run([]) } catch { try? connection.execute("ROLLBACK") }
    }

    private func checkOutReader() throws(StorageError) -> SQLiteConnection {
        guard !closed.load(ordering: .acquiring) else { throw .unavailable("store is closed") }
        if let pooled = readers.withLock({ $0.popLast() }) { return pooled }
        let connection = try SQLiteConnection(path: path, readOnly: true)
        try connection.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds); PRAGMA mmap_size = \(mmapBytes);")
        return connection
    }

    private func checkIn(_ connection: SQLiteConnection) {
        guard !closed.load(ordering: .acquiring) else { return }
        readers.withLock { pool in
            // Under the pool's lock: a commit raises the generation, then ends the snapshots
            // of the pooled readers under it, so a reader coming back with an older snapshot
            // is either seen here or there.
            if connection.snapshotGeneration != generation.load(ordering: .acquiring) { endSnapshot(on: connection) }
            if pool.count < 64 { pool.append(connection) }
        }
    }
}

// A connection is used by one thread at a time: the pool hands each out exclusively, and the
// writer is only touched under its mutex.
extension SQLiteConnection: @unchecked Sendable {}

/// Searches are answered at once; adds later, on the adds' thread.
extension SQLiteStore: AddsAnswerLater {}

/// A filter's group keys are read in the snapshot of its items (`SQLiteSession`).
extension SQLiteStore: GroupListingStore {}

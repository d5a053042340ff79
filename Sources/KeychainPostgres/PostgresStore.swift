import Dispatch
public import KeychainStorage
import Synchronization

/// A store on PostgreSQL, shared by every replica, through libpq: per process, one writer
/// connection, a pool of readers, one connection for batched searches and two for batched adds.
///
/// Writes: concurrent writers of this process share one transaction (`GroupCommit`), and every
/// such transaction, from any replica, first takes one transaction-scoped advisory lock. Writers
/// thus run one at a time across replicas, as SQLite's `BEGIN IMMEDIATE` makes them run on one
/// file: what a writer reads is what it will overwrite (the `StoreWriter` contract). Adds read
/// nothing and take no lock: the unique index on the primary key decides (see `commit(_:on:connect:)`).
/// A write returns after its COMMIT, which PostgreSQL makes durable (`synchronous_commit` on, its default).
///
/// Reads: a `read` runs in a REPEATABLE READ, READ ONLY transaction (one snapshot for all its
/// reads); `items(matching:)` is one statement, its own snapshot, and so is each search of a
/// batch. All begin after the calls that return before them, so a write acknowledged by any
/// replica is seen by the next read.
///
/// Failures: a connection that fails, or whose server turns read-only, is dropped with every
/// connection made before it, and the call answers `unavailable`; the next call connects again,
/// to the writable server among the URL's hosts (`PGConnector`), so the store recovers by
/// itself when the database comes back or a standby is promoted.
public final class PostgresStore: KeychainStore {
    /// Every connection of this store, to the writable server among the URL's hosts.
    private let connector: PGConnector
    /// The advisory lock this store's write transactions take: one per schema, so that writes
    /// to different keychains do not wait for each other.
    private let writeLock: Int64
    /// The events' table, schema-qualified: the default keychain's, for every keychain.
    let eventsTable: String
    /// The connection that listens for new events (`waitForEvents`), made when first needed.
    private let listener = Mutex<PGConnection?>(nil)
    /// Wakes `waitForEvents` when a commit of this process appended an event.
    private let wake = EventWake()

    /// The channel a placing of events notifies (`placeEvents`).
    static let eventChannel = "keychaind_events"
    private let writer = Mutex<PGConnection?>(nil)
    private let readers = Mutex<[PGConnection]>([])
    private let closed = Atomic<Bool>(false)
    private let groupCommit: GroupCommit
    /// Searches and adds of every request, each kind in batches on a connection of its own.
    private let searches: BatchingThreads<Search, PGConnection>
    private let adds: BatchingThreads<Add, PGConnection>

    /// The advisory lock key every write transaction takes: "kcdwrite" as eight bytes.
    static let writeLockKey: Int64 = 0x6B63_6477_7269_7465

    /// Connects to `url` and applies pending migrations. `url` is a `postgres://` URL or a libpq
    /// connection string, which may not carry a password: it is `password` (read from a file),
    /// or what libpq's password file (`PGPASSFILE`) gives. `observer` is told of every commit,
    /// of writes and of batched adds.
    ///
    /// With `schema` (`isSchemaName`), the store is that schema of the database, created when
    /// missing: one database holds several keychains, each in a schema of its own. `eventSchema`
    /// is the schema of the events' table (`defaultSchema`); without it, this store's own.
    public init(
        url: String, password: String? = nil, schema: String? = nil, eventSchema: String? = nil,
        observer: (any CommitObserver)? = nil
    ) throws(StorageError) {
        try PGConnection.refusePassword(in: url)
        if let schema, !Self.isSchemaName(schema) { throw .failed("postgres: \(schema) is not a keychain schema's name") }
        let connector = try PGConnector(url: url, password: password, schema: schema)
        self.connector = connector
        writeLock = schema.map(Self.lockKey(schema:)) ?? Self.writeLockKey
        groupCommit = GroupCommit(observer: observer)
        if let schema {
            let setUp = try PGConnection(url: url, password: password)
            try setUp.execute("CREATE SCHEMA IF NOT EXISTS \(schema)")
        }
        let connect = { @Sendable () throws(StorageError) in try connector.connect() }
        let first = try connect()
        var eventsSchema = eventSchema
        if eventsSchema == nil { eventsSchema = try first.execute("SELECT current_schema()").text(0, 0) }
        let events = Self.quotedIdentifier(eventsSchema ?? "public") + ".keychaind_events"
        eventsTable = events
        EventWake.register(wake, table: events)
        searches = BatchingThreads(
            name: "postgres-searches", threads: 1,
            handle: { batch, connection in Self.answer(batch, on: &connection, connect: connect) },
            refuse: { $0.completion(.failure(.unavailable("store is closed"))) })
        adds = BatchingThreads(
            name: "postgres-adds", threads: 2,
            handle: { batch, connection in
                let started = DispatchTime.now().uptimeNanoseconds
                defer {
                    observer?.committed(
                        .add, batchSize: batch.count, nanoseconds: DispatchTime.now().uptimeNanoseconds &- started)
                }
                return Self.commit(batch, events: events, on: &connection, connect: connect)
            },
            refuse: { $0.completion(.failure(.unavailable("store is closed"))) })
        try PostgresMigrations.apply(on: first)
        writer.withLock { $0 = first }
    }

    /// PostgreSQL's own tools back it up consistently while replicas serve (`pg_dump -Fc`, one
    /// REPEATABLE READ snapshot), and restore it into a new database (`pg_restore`).
    public func backup(to path: String) throws(StorageError) {
        throw .unsupported(
            "a keychain on PostgreSQL is backed up with pg_dump -Fc and restored with pg_restore (docs/backups-and-migration.md, Backups)"
        )
    }

    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        searches.close()
        adds.close()
        readers.withLock { $0.removeAll() }
        writer.withLock { $0 = nil }
        listener.withLock { $0 = nil }
        EventWake.unregister(wake, table: eventsTable)
    }

    public func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try withReader { connection in
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                let result = try body(PostgresSession(connection: connection, events: eventsTable))
                try connection.execute("COMMIT")
                return result
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    public func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord] {
        let connection = try checkOutReader()
        defer { checkIn(connection) }
        return try PostgresSession(connection: connection, events: eventsTable).items(matching: filter)
    }

    /// Queued for the searches' thread, which sends every queued search in one round trip;
    /// `completion` runs there.
    public func items(
        matching filter: ItemFilter, completion: @escaping @Sendable (Result<[ItemRecord], StorageError>) -> Void
    ) {
        searches.submit(Search(filter: filter, completion: completion))
    }

    /// Queued for the adds' thread, which commits every queued add in one transaction and one
    /// round trip, with no write lock (see `commit(_:on:connect:)`); `completion` runs there,
    /// after the COMMIT.
    public func add(_ item: ItemRecord, completion: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        adds.submit(Add(item: item, completion: completion))
    }

    /// Durable when it returns: the add's batch has committed.
    public func add(_ item: ItemRecord) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Void, StorageError>?>(nil)
        add(item) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        try outcome.withLock { $0! }.get()
    }

    /// Durable when it returns. Concurrent callers are committed together (see `GroupCommit`):
    /// one transaction for the batch, each body in a savepoint of its own.
    public func write<T>(_ body: @escaping (any StoreWriter) throws -> T) throws -> T {
        try groupCommit.submit(body) { batch in self.commit(batch) }
    }

    private func commit(_ batch: [GroupCommit.Pending]) {
        writer.withLock { slot in
            do {
                guard !closed.load(ordering: .acquiring) else { throw StorageError.unavailable("store is closed") }
                let connection = try slot.flatMap { $0.isHealthy ? $0 : nil } ?? connect()
                slot = connection
                do {
                    try run(batch, on: connection)
                } catch {
                    if connection.isHealthy { _ = try? connection.execute("ROLLBACK") } else { slot = nil }
                    throw error
                }
            } catch {
                for pending in batch { pending.result = .failure(error) }
            }
        }
    }

    /// One transaction for the batch, each body in a savepoint of its own. Transaction control
    /// travels with its neighbours, several statements in one round trip: per body, its own
    /// statements and one more.
    private func run(_ batch: [GroupCommit.Pending], on connection: PGConnection) throws {
        let session = PostgresSession(connection: connection, events: eventsTable)
        try connection.execute("BEGIN; SELECT pg_advisory_xact_lock(\(writeLock)); SAVEPOINT write")
        for (index, pending) in batch.enumerated() {
            let next = index == batch.count - 1 ? "COMMIT" : "SAVEPOINT write"
            do {
                pending.result = .success(try pending.body(session))
            } catch {
                // A body that failed because the connection did fails the batch.
                guard connection.isHealthy else { throw error }
                pending.result = .failure(error)
                try connection.execute("ROLLBACK TO write; RELEASE write; \(next)")
                continue
            }
            try connection.execute("RELEASE write; \(next)")
        }
        if session.appended { EventWake.signal(table: eventsTable) }
    }

    private func withReader<T>(_ body: (PGConnection) throws -> T) throws -> T {
        let connection = try checkOutReader()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// A pooled reader, or a new connection when the pool has no healthy one (those of an
    /// earlier generation are dropped: their server may no longer be the primary).
    private func checkOutReader() throws(StorageError) -> PGConnection {
        guard !closed.load(ordering: .acquiring) else { throw .unavailable("store is closed") }
        while let pooled = readers.withLock({ $0.popLast() }) {
            if pooled.isHealthy { return pooled }
        }
        return try connect()
    }

    private func connect() throws(StorageError) -> PGConnection {
        try connector.connect()
    }

    /// Whether `name` may name a keychain's schema: `kc_` and then `a`–`z`, `0`–`9` and `_`, at
    /// most 63 bytes (PostgreSQL's identifiers), so that it needs no quoting anywhere.
    public static func isSchemaName(_ name: String) -> Bool {
        name.hasPrefix("kc_") && name.utf8.count <= 63
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
    }

    /// Drops the schema `schema` (`isSchemaName`) and every table in it: a keychain deleted.
    public static func dropSchema(url: String, password: String? = nil, schema: String) throws(StorageError) {
        guard isSchemaName(schema) else { throw .failed("postgres: \(schema) is not a keychain schema's name") }
        try PGConnection(url: url, password: password).execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
    }

    /// The schema of the keychain `name` (a-z, 0-9, - and _): `kc_`, the name's first 32
    /// characters with `-` as `_`, and 16 hex digits of its FNV-1a, which tell apart names that
    /// read the same there (`a-b`, `a_b`). At most 52 bytes.
    public static func schema(forKeychain name: String) -> String {
        let readable = String(name.prefix(32).map { $0 == "-" ? "_" : $0 })
        let hash = UInt64(bitPattern: fnv1a(name))
        let hex = String(hash, radix: 16)
        return "kc_" + readable + "_" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A schema's write lock: FNV-1a of its name, beside the default store's `writeLockKey`.
    static func lockKey(schema: String) -> Int64 { fnv1a(schema) }

    private static func fnv1a(_ text: String) -> Int64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return Int64(bitPattern: hash)
    }

    /// Back into the pool, unless its connection failed (then it is dropped) or the store closed.
    private func checkIn(_ connection: PGConnection) {
        guard connection.isHealthy, !closed.load(ordering: .acquiring) else { return }
        readers.withLock { pool in if pool.count < 64 { pool.append(connection) } }
    }
}

// A connection is used by one thread at a time: the pool hands each out exclusively, and the
// writer is only touched under its mutex.
extension PGConnection: @unchecked Sendable {}

/// Every replica shares the database.
extension PostgresStore: SharedStore {}

extension PostgresStore: SharedEventLog {
    /// The lock the placers of events take (`placeEvents`): "kcdplace" as eight bytes.
    static let placeLockKey: Int64 = 0x6B63_6470_6C61_6365

    public func events(after position: UInt64, limit: Int) throws(StorageError)
        -> [(sequence: UInt64, appended: UInt64, event: StoredEvent)]
    {
        let connection = try checkOutReader()
        defer { checkIn(connection) }
        let result = try connection.run(
            "SELECT pos, seq, keychain, sealed FROM \(eventsTable) WHERE pos > $1 ORDER BY pos LIMIT $2",
            [.int(Int64(clamping: position)), .int(Int64(limit))])
        return (0..<result.rows).map { row in
            (
                UInt64(result.int64(row, 0)), UInt64(result.int64(row, 1)),
                StoredEvent(keychain: result.text(row, 2) ?? "", sealed: result.blob(row, 3))
            )
        }
    }

    public func lastEventSequence() throws(StorageError) -> UInt64 {
        let connection = try checkOutReader()
        defer { checkIn(connection) }
        return UInt64(try connection.run("SELECT coalesce(max(pos), 0)::int8 FROM \(eventsTable)").int64(0, 0))
    }

    /// Writers append without a lock, so their sequences follow neither their commits nor one
    /// order: every committed event not placed yet is placed after the last placed, in append
    /// order, one placer at a time, and the replicas are notified. An event of a transaction
    /// still running is not visible here; it is placed, after these, once it commits.
    public func placeEvents() throws(StorageError) {
        let connection = try checkOutReader()
        defer { checkIn(connection) }
        try connection.execute("BEGIN; SELECT pg_advisory_xact_lock(\(Self.placeLockKey))")
        do {
            // Its own statement, so its snapshot follows the lock: every placing before it is visible.
            let placed = try connection.run(Self.placeSQL(eventsTable)).int64(0, 0)
            if placed > 0 { try connection.execute("SELECT pg_notify('\(Self.eventChannel)', '')") }
            try connection.execute("COMMIT")
        } catch {
            if connection.isHealthy { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// Places the committed events not placed yet; answers how many.
    static func placeSQL(_ events: String) -> String {
        """
        WITH base AS (SELECT coalesce(max(pos), 0) AS last FROM \(events)),
        ready AS (SELECT seq, row_number() OVER (ORDER BY seq) AS n FROM \(events) WHERE pos IS NULL),
        placed AS (
            UPDATE \(events) AS e SET pos = base.last + ready.n FROM ready, base WHERE e.seq = ready.seq RETURNING 1
        )
        SELECT count(*)::int8 FROM placed
        """
    }

    public func waitForEvents(timeoutMilliseconds: Int) throws(StorageError) {
        guard !closed.load(ordering: .acquiring) else { throw .unavailable("store is closed") }
        // Taken out while it waits: a connection serves one thread at a time.
        guard let connection = listener.withLock({ slot in slot.take() }), connection.isHealthy else {
            let connection = try connect()
            try connection.execute("LISTEN \(Self.eventChannel)")
            listener.withLock { if $0 == nil, !closed.load(ordering: .acquiring) { $0 = connection } }
            // Whatever was appended before the LISTEN is read by the caller's next read.
            return
        }
        try connection.awaitNotification(timeoutMilliseconds: timeoutMilliseconds, orReadable: wake.descriptor)
        wake.drain()
        listener.withLock { if $0 == nil, !closed.load(ordering: .acquiring) { $0 = connection } }
    }

    public func trimEvents(keeping count: Int) throws(StorageError) {
        let connection = try checkOutReader()
        defer { checkIn(connection) }
        try connection.run(
            "DELETE FROM \(eventsTable) WHERE pos <= (SELECT max(pos) FROM \(eventsTable)) - $1", [.int(Int64(count))])
    }

    /// The schema a connection to `url` without a schema of its own works in (the default
    /// keychain's, which holds the events of every keychain).
    public static func defaultSchema(url: String, password: String? = nil) throws(StorageError) -> String {
        try PGConnection(url: url, password: password).execute("SELECT current_schema()").text(0, 0) ?? "public"
    }

    /// `name` as an SQL identifier: in double quotes, its own doubled.
    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Searches and adds are queued for threads that send each batch in one round trip.
extension PostgresStore: SearchesAnswerLater, AddsAnswerLater {}

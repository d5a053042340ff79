import Dispatch
import Glibc
import KeychainStorage
import Synchronization
import TestSupport
import Testing

@testable import KeychainPostgres

/// What only the PostgreSQL store promises, on the tests' own PostgreSQL: replicas starting
/// together migrate once, a password never travels in the URL, and a connection the database
/// dropped is made again by itself.
@Suite(.enabled(if: PostgresServer.isInstalled, PostgresServer.notInstalled))
struct PostgresStoreTests {
    /// Eight stores opened at once on a new database (replicas starting together) all open, and
    /// each migration ran once: the advisory lock makes them wait for each other.
    @Test func storesOpeningTogetherMigrateOnce() throws {
        let server = try PostgresServer.shared
        let url = try server.createDatabase()
        let failures = Mutex<[String]>([])
        let stores = Mutex<[PostgresStore]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do {
                let store = try PostgresStore(url: url)
                stores.withLock { $0.append(store) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(stores.withLock { $0.count } == 8)
        stores.withLock { for store in $0 { store.close() } }
        let database = String(url.split(separator: "/").last ?? "")
        #expect(try server.execute("SELECT count(*) FROM keychaind_schema", database: database) == "6")
        #expect(try server.execute("SELECT max(version) FROM keychaind_schema", database: database) == "6")
    }

    /// Writers append events without waiting on each other, and an event is placed once its
    /// transaction has committed: one still running is not placed (nor read) while a later one
    /// is, and is placed after it once it commits, so a reader going by position misses neither.
    @Test func anEventIsPlacedOnceCommittedAfterThosePlacedBefore() throws {
        let url = try PostgresServer.shared.createDatabase()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let running = try PGConnection(url: url, password: nil)
        try running.execute("BEGIN")
        try running.run(
            "INSERT INTO keychaind_events (keychain, sealed) VALUES ($1, $2)",
            [PGValue.text("default"), .blob(Array("running".utf8))])
        let appended = try store.write { try $0.append(StoredEvent(keychain: "default", sealed: Array("committed".utf8))) }
        #expect(try store.events(after: 0, limit: 10).isEmpty, "appended, not placed yet")
        try store.placeEvents()
        let first = try store.events(after: 0, limit: 10)
        #expect(first.map(\.event.sealed) == [Array("committed".utf8)] && first.map(\.sequence) == [1])
        #expect(first.first?.appended == appended)
        try running.execute("COMMIT")
        try store.placeEvents()
        #expect(try store.events(after: 1, limit: 10).map(\.event.sealed) == [Array("running".utf8)])
        #expect(try store.events(after: 0, limit: 10).map(\.sequence) == [1, 2])
        #expect(try store.lastEventSequence() == 2)
        try store.trimEvents(keeping: 1)
        #expect(try store.events(after: 0, limit: 10).map(\.sequence) == [2])
    }

    /// The store tells its observer of each commit, by path: a write through group commit, and
    /// an add through the batched adds' own transaction. It never reports a sync of its own:
    /// PostgreSQL syncs its WAL inside the server.
    @Test func commitsAreObservedOnBothPaths() throws {
        final class Recorder: CommitObserver {
            let seen = Mutex<[(CommitPath, Int)]>([])
            let syncs = Mutex(0)
            func committed(_ path: CommitPath, batchSize: Int, nanoseconds: UInt64) {
                seen.withLock { $0.append((path, batchSize)) }
            }
            func synced(nanoseconds: UInt64) { syncs.withLock { $0 += 1 } }
        }
        let recorder = Recorder()
        let store = try PostgresStore(url: try PostgresServer.shared.createDatabase(), observer: recorder)
        defer { store.close() }
        try store.add(StoreConformanceTests.record(1))
        _ = try store.write { try $0.setMeta("observed", [1]) }
        let seen = recorder.seen.withLock { $0 }
        #expect(seen.map(\.0) == [.add, .write] && seen.map(\.1) == [1, 1], "\(seen)")
        #expect(recorder.syncs.withLock { $0 } == 0)
    }

    /// A password in the URL (its user part, a parameter, a keyword) is refused before any
    /// connection, and the message says why without repeating the URL.
    @Test(arguments: [
        "postgresql://keychaind:hunter2@127.0.0.1/keychain",
        "postgresql://keychaind@127.0.0.1/keychain?password=hunter2",
        "host=127.0.0.1 dbname=keychain password=hunter2",
    ])
    func aURLCarryingAPasswordIsRefused(url: String) {
        do {
            _ = try PostgresStore(url: url)
            Issue.record("a URL with a password was taken")
        } catch {
            #expect(error.message.contains("password"))
            #expect(!error.message.contains("hunter2"))
        }
    }

    /// The database drops every connection of the store (as a restart does): the calls that
    /// meet a dropped connection answer `unavailable`, never another error, and the next ones
    /// connect again and succeed.
    @Test func aConnectionTheDatabaseDroppedIsMadeAgain() throws {
        let server = try PostgresServer.shared
        let url = try server.createDatabase()
        let database = String(url.split(separator: "/").last ?? "")
        let store = try PostgresStore(url: url)
        defer { store.close() }
        try store.write { try $0.setMeta("k", [1]) }
        #expect(try store.read { try $0.meta("k") } == [1])
        try server.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()")

        var writeRefusals = 0
        var readRefusals = 0
        for attempt in 0..<2 {
            do {
                try store.write { try $0.setMeta("k", [2]) }
            } catch let error as StorageError {
                #expect(error == .unavailable(""), "\(error)")
                writeRefusals += 1
                #expect(attempt == 0, "the second write connects again")
            }
            do {
                _ = try store.read { try $0.meta("k") }
            } catch let error as StorageError {
                #expect(error == .unavailable(""), "\(error)")
                readRefusals += 1
                #expect(attempt == 0, "the second read connects again")
            }
        }
        #expect(writeRefusals <= 1 && readRefusals <= 1)
        #expect(try store.read { try $0.meta("k") } == [2])
    }

    /// A connection whose server turns read-only under it (the setting comes back with the next
    /// answer) or that meets a read-only refusal (SQLSTATE 25006) answers unavailable, and is
    /// left with every connection of its generation: their server may no longer be the primary.
    @Test func aConnectionWhoseServerTurnsReadOnlyIsLeftWithItsGeneration() throws {
        let url = try PostgresServer.shared.createDatabase()
        let generation = PGGeneration()
        let first = try PGConnection(url: url, password: nil, generation: generation)
        let second = try PGConnection(url: url, password: nil, generation: generation)
        #expect(first.isHealthy && second.isHealthy)
        #expect(throws: StorageError.unavailable("")) { try first.execute("SET default_transaction_read_only = on") }
        #expect(!first.isHealthy && !second.isHealthy)

        let third = try PGConnection(url: url, password: nil, generation: generation)
        #expect(third.isHealthy)
        try third.execute("BEGIN READ ONLY")
        #expect(throws: StorageError.unavailable("")) { try third.execute("CREATE TABLE refused (x int)") }
        #expect(!third.isHealthy)
    }

    /// A primary fenced read-only (here: the sessions of the store's role, ended and made
    /// read-only by default) takes no write and serves no read: each answers unavailable and
    /// nothing is stored. Once it accepts writes again, the store returns to it by itself, with
    /// every write acknowledged before it was fenced.
    @Test func aFencedPrimaryTakesNoWriteAndIsReturnedTo() throws {
        let server = try PostgresServer.shared
        let database = String(try server.createDatabase().split(separator: "/").last ?? "")
        let role = "fenced_\(database)"
        try server.execute("CREATE ROLE \(role) LOGIN SUPERUSER")
        let store = try PostgresStore(url: "postgresql://\(role)@127.0.0.1:\(server.port)/\(database)")
        defer { store.close() }
        try store.write { try $0.setMeta("k", [1]) }
        try store.add(StoreConformanceTests.record(1))

        try server.execute("ALTER ROLE \(role) SET default_transaction_read_only = on")
        try server.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'")
        for _ in 0..<3 {
            #expect(throws: StorageError.unavailable("")) { try store.write { try $0.setMeta("k", [2]) } }
            #expect(throws: StorageError.unavailable("")) { try store.add(StoreConformanceTests.record(2)) }
            #expect(throws: StorageError.unavailable("")) { try store.read { try $0.meta("k") } }
        }

        try server.execute("ALTER ROLE \(role) RESET default_transaction_read_only")
        #expect(eventually { (try? store.read { try $0.meta("k") }) == [1] }, "no write was taken while fenced")
        try store.write { try $0.setMeta("k", [3]) }
        try store.add(StoreConformanceTests.record(2))
        let both = [StoreConformanceTests.record(1), StoreConformanceTests.record(2)].map(\.primaryKey)
        #expect(try store.items(matching: ItemFilter(primaryKeys: both)).count == 2)
        #expect(try store.read { try $0.meta("k") } == [3])
    }

    /// The URL's hosts, each with the settings that choose it (a port each, or one for all);
    /// one host, or none, is left to libpq as written.
    @Test func theURLsHostsAreReadOneByOne() throws {
        func hosts(_ url: String) throws -> [[String]] {
            PGConnector.hosts(try PGConnection.options(of: url)).map { $0.map { "\($0.0)=\($0.1)" } }
        }
        #expect(try hosts("postgresql://k@db1:5432,db2:5433/k") == [["host=db1", "port=5432"], ["host=db2", "port=5433"]])
        #expect(try hosts("host=db1,db2 port=6432 dbname=k") == [["host=db1", "port=6432"], ["host=db2", "port=6432"]])
        #expect(try hosts("postgresql://k@db1/k") == [[]])
        #expect(try hosts("dbname=k") == [[]])
    }

    /// Of the URL's hosts, the store works on the one that accepts its session, whatever the
    /// others do: one refuses connections, one accepts them and never answers.
    @Test func theServerIsFoundAmongHostsThatRefuseOrNeverAnswer() throws {
        let server = try PostgresServer.shared
        let database = String(try server.createDatabase().split(separator: "/").last ?? "")
        let refusing = try freeLoopbackPort()
        let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(silent, 8) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(silent, $0, &length) }
        }
        let silentPort = Int(UInt16(bigEndian: address.sin_port))
        let url = "postgresql://postgres@127.0.0.1:\(refusing),127.0.0.1:\(silentPort),127.0.0.1:\(server.port)/\(database)"
        let store = try PostgresStore(url: url)
        defer { store.close() }
        try store.write { try $0.setMeta("k", [1]) }
        #expect(try store.read { try $0.meta("k") } == [1])
    }

    /// A host whose name's lookup hangs (a DNS server asked for a stopped container's name)
    /// holds back neither the search nor the connections after it: the other host's server is
    /// found, and a later connection made, while that lookup is still blocked (it is released
    /// only when the test ends).
    @Test func aHostWhoseLookupHangsHoldsBackNoSearch() throws {
        let server = try PostgresServer.shared
        let database = String(try server.createDatabase().split(separator: "/").last ?? "")
        let release = DispatchSemaphore(value: 0)
        let lookups = Mutex<[String]>([])
        let resolver = PGResolver { name in
            lookups.withLock { $0.append(name) }
            if name == "vanished.invalid" { release.wait() }
            return name == "database.invalid" ? .success(["127.0.0.1"]) : .failure(.init(message: "no such name"))
        }
        defer { release.signal() }
        let url = "postgresql://postgres@vanished.invalid:\(server.port),database.invalid:\(server.port)/\(database)"
        let connector = try PGConnector(url: url, password: nil, schema: nil, resolver: resolver)
        let first = try connector.connect()
        let second = try connector.connect()
        #expect(first.isHealthy && second.isHealthy)
        // One lookup of the hanging name, however often it was needed meanwhile.
        #expect(lookups.withLock { $0.filter { $0 == "vanished.invalid" }.count } == 1)
    }

    /// The threads that send batches run as SCHED_BATCH (3 in <sched.h>), so that a wake-up
    /// does not preempt the polling thread still reading requests for the same batch.
    @Test func batchingThreadsRunAsBatchScheduled() throws {
        let policy = Mutex<Int32?>(nil)
        let handled = DispatchSemaphore(value: 0)
        let threads = BatchingThreads<Int, Void>(
            name: "test-batches", threads: 1,
            handle: { _, _ in
                policy.withLock { $0 = sched_getscheduler(0) }
                handled.signal()
                return []
            }, refuse: { _ in })
        defer { threads.close() }
        threads.submit(1)
        try #require(handled.wait(timeout: .now() + 10) == .success)
        #expect(policy.withLock { $0 } == 3)
    }

    /// A batch of searches by primary key shares one SELECT (one statement prepared on the
    /// connection, whatever the batch holds), and each search gets what it would alone: its class,
    /// group, synchronizable and limit conditions applied, its items in insertion order, its
    /// attributes left unread when it asks so. A search of another kind keeps its own statement.
    @Test func aBatchOfPrimaryKeySearchesSharesOneStatementAndEachAnswersAsAlone() throws {
        let url = try PostgresServer.shared.createDatabase()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        func record(_ n: UInt8) -> ItemRecord {
            ItemRecord(
                ref: [n], itemClass: Int(n % 2), group: [n % 3], protection: 1, synchronizable: n % 4 == 0, created: 1,
                modified: 1,
                version: 1, primaryKey: [n, 0xAA], attributes: [n], secret: [n, n], lookups: [[n % 5]])
        }
        try store.write { w in for n in UInt8(0)..<12 { _ = try w.insert(record(n)) } }
        func keys(_ ns: [UInt8]) -> [[UInt8]] { ns.map { record($0).primaryKey } }
        var withoutAttributes = ItemFilter(primaryKeys: keys([5, 6]))
        withoutAttributes.readsAttributes = false
        let filters: [ItemFilter] = [
            ItemFilter(primaryKeys: keys([3])),
            ItemFilter(primaryKeys: keys([9, 1, 4])),  // insertion order, not the keys' order
            ItemFilter(primaryKeys: keys([9, 1, 4]), limit: 2),
            ItemFilter(classes: [0], primaryKeys: keys([1, 2, 3, 4])),
            ItemFilter(groups: [[1], [2]], primaryKeys: keys([3, 4, 5, 6])),
            ItemFilter(synchronizable: true, primaryKeys: keys([3, 4, 8])),
            ItemFilter(primaryKeys: keys([3]), lookups: [[3]]),  // not folded: a lookup
            ItemFilter(primaryKeys: [[0xEE]]),
            ItemFilter(primaryKeys: keys([7])),  // a duplicate of another search's key
            ItemFilter(primaryKeys: keys([7]), limit: 1),
            withoutAttributes,
        ]
        let expected = try filters.map { try store.items(matching: $0) }
        #expect(expected[1].map(\.ref) == [[1], [4], [9]])
        #expect(expected[10].allSatisfy { $0.attributes.isEmpty && $0.primaryKey.isEmpty } && expected[10].count == 2)

        let answers = Mutex<[Int: Result<[ItemRecord], StorageError>]>([:])
        let batch = filters.enumerated().map { n, filter in
            PostgresStore.Search(filter: filter) { result in answers.withLock { $0[n] = result } }
        }
        var connection: PGConnection? = try PGConnection(url: url, password: nil)
        let skipped = PostgresStore.answer(batch, on: &connection) { () throws(StorageError) in
            try PGConnection(url: url, password: nil)
        }
        #expect(skipped.isEmpty)
        // The fold reading attributes, the one leaving them unread, and the search with a lookup.
        #expect(connection?.preparedCount == 3)
        for n in filters.indices {
            #expect(try answers.withLock { $0[n] }?.get() == expected[n], "search \(n)")
        }
    }

    /// A database written by the first schema (lookups found by an index on their item) opens
    /// under the second: each item's digests are copied to it, and a replace or a delete then
    /// removes exactly that item's lookups.
    @Test func theSecondMigrationKeepsEveryLookup() throws {
        let server = try PostgresServer.shared
        let url = try server.createDatabase()
        let database = String(url.split(separator: "/").last ?? "")
        try server.execute(
            "CREATE TABLE keychaind_schema (version bigint NOT NULL); \(PostgresMigrations.steps[0]); INSERT INTO keychaind_schema VALUES (1)",
            database: database)
        for n in 1...2 {
            try server.execute(
                """
                WITH i AS (INSERT INTO items (ref, class, grp, pdmn, sync, cdat, mdat, version, pk, attrs, secret)
                    VALUES ('\\x0\(n)', 1, '\\x01', 1, 0, 1, 1, 1, '\\x0\(n)aa', '\\x0\(n)', NULL) RETURNING id)
                INSERT INTO lookups (digest, item_id) SELECT d, i.id FROM i, unnest(ARRAY['\\x0a', '\\x1\(n)']::bytea[]) AS d
                """, database: database)
        }
        let store = try PostgresStore(url: url)
        defer { store.close() }
        #expect(try server.execute("SELECT count(*) FROM pg_indexes WHERE indexname = 'lookups_item'", database: database) == "0")
        let both = try store.items(matching: ItemFilter(lookups: [[0x0A]]))
        #expect(both.map(\.ref) == [[0x01], [0x02]])

        var first = both[0]
        first.lookups = [[0x1B], [0x0C]]
        try store.write { try $0.replace(first) }
        try store.write { try $0.delete(rowIDs: [both[1].rowID]) }
        #expect(try store.items(matching: ItemFilter(lookups: [[0x0A]])).isEmpty)
        #expect(try store.items(matching: ItemFilter(lookups: [[0x0C]])).map(\.ref) == [[0x01]])
        #expect(
            try server.execute("SELECT string_agg(encode(digest, 'hex'), ',' ORDER BY digest) FROM lookups", database: database)
                == "0c,1b")
    }
}

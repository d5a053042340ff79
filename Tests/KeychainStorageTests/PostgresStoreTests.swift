import Dispatch
import KeychainPostgres
import KeychainStorage
import Synchronization
import TestSupport
import Testing

/// What only the PostgreSQL store promises, on the tests' own PostgreSQL: replicas starting
/// together migrate once, a password never travels in the URL, and a connection the database
/// dropped is made again by itself.
@Suite struct PostgresStoreTests {
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
        stores.withLock { $0.forEach { $0.close() } }
        let database = String(url.split(separator: "/").last ?? "")
        #expect(try server.execute("SELECT count(*) FROM keychaind_schema", database: database) == "1")
        #expect(try server.execute("SELECT max(version) FROM keychaind_schema", database: database) == "1")
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
}

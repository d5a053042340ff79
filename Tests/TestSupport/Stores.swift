import KeychainPostgres
import KeychainSQLite
public import KeychainStorage

/// A store backend the conformance suites run against: every backend runs the same tests
/// (`@Test(arguments: StoreBackend.all)`).
public struct StoreBackend: Sendable, CustomStringConvertible {
    public let name: String
    /// Opens the backend's store for a keychain whose data directory is `directory`.
    public let open: @Sendable (_ directory: String) throws -> any KeychainStore

    public var description: String { name }

    /// The embedded default: SQLite in the data directory.
    public static let sqlite = StoreBackend(name: "SQLite") { try SQLiteStore(directory: $0) }

    /// PostgreSQL: a database of its own on the tests' server (`PostgresServer`).
    public static let postgres = StoreBackend(name: "PostgreSQL") { _ in
        try PostgresStore(url: PostgresServer.shared.createDatabase())
    }

    /// Every backend this build has, less PostgreSQL on a machine without it (the suites that
    /// need it say so: `PostgresServer.notInstalled`).
    public static let all: [StoreBackend] = PostgresServer.isInstalled ? [.sqlite, .postgres] : [.sqlite]

    /// The backends several processes share (`SharedStore`): replicas.
    public static let shared: [StoreBackend] = PostgresServer.isInstalled ? [.postgres] : []
}

/// A store of one backend in a temporary directory of its own, closed and removed when the value goes.
public final class TestStore {
    public let directory = TemporaryDirectory(prefix: "kcd-store")
    public let store: any KeychainStore

    public init(_ backend: StoreBackend = .sqlite) throws {
        store = try backend.open(directory.path)
    }

    deinit { store.close() }
}

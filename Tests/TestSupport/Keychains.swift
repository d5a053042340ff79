public import KeychainCore
public import KeychainCrypto
import KeychainPostgres
import KeychainSQLite
public import Logging

/// The passphrase the test keychains are created with.
public let testPassphrase = "correct horse battery staple"

extension KeychainConfiguration {
    /// A configuration for tests: libsodium's minimum Argon2id limits (allowed for tests only).
    public static func testing(
        _ directory: String, clock: (any KeychainClock)? = nil, lockInterval: Int = 300
    ) -> KeychainConfiguration {
        var configuration = KeychainConfiguration(dataDirectory: directory)
        configuration.kdfLimits = .insecureMinimumForTesting
        configuration.allowWeakKDFForTesting = true
        if let clock { configuration.clock = clock }
        configuration.defaultLockInterval = lockInterval
        return configuration
    }
}

extension Keychain {
    /// The keychain of `configuration.dataDirectory`, on `backend`'s store kept there.
    public static func open(
        _ configuration: KeychainConfiguration, backend: StoreBackend = .sqlite, logger: Logger = Logger(label: "test")
    ) throws -> Keychain {
        try Keychain(configuration: configuration, store: backend.open(configuration.dataDirectory), logger: logger)
    }
}

extension Keychains {
    /// The keychains of `keychain`'s server, the others in SQLite files under
    /// `<data directory>/keychains`, as `keychaind serve` keeps them.
    public static func onSQLite(_ keychain: Keychain, logger: Logger = Logger(label: "test")) throws -> Keychains {
        let storage = Keychains.Storage.directories(under: keychain.dataDirectory + "/keychains") { directory in
            try SQLiteStore(directory: directory)
        }
        return try Keychains(default: keychain, storage: storage, logger: logger)
    }
}

extension Keychains {
    /// The keychains of a replica whose default keychain is `keychain`, on the PostgreSQL
    /// database `url`: the others in schemas of it, as `keychaind serve --database` keeps them.
    public static func onPostgres(_ keychain: Keychain, url: String, logger: Logger = Logger(label: "test")) throws
        -> Keychains
    {
        let storage = Keychains.Storage(
            open: { name in
                try PostgresStore(
                    url: url, schema: PostgresStore.schema(forKeychain: name),
                    eventSchema: PostgresStore.defaultSchema(url: url))
            },
            remove: { name in try PostgresStore.dropSchema(url: url, schema: PostgresStore.schema(forKeychain: name)) })
        return try Keychains(default: keychain, storage: storage, logger: logger)
    }
}

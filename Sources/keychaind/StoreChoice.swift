import Foundation
import KeychainCore
import KeychainPostgres
import KeychainSQLite
import KeychainStorage
import Logging

/// Where the keychain's items live.
enum StoreChoice {
    /// The embedded default: `keychain.db` in the data directory.
    case sqlite
    /// PostgreSQL, shared by every replica.
    case postgres(url: String, password: String?)
}

/// The keychain of `configuration` on the store `choice` names; `observer` is told of its commits.
/// SQLite maps `sqliteMmapBytes` of its file (`SQLiteStore.mmapBytes`).
func openKeychain(
    _ configuration: KeychainConfiguration, store choice: StoreChoice, sqliteMmapBytes: Int = SQLiteStore.defaultMmapBytes,
    observer: (any CommitObserver)? = nil, logger: Logger
) throws -> Keychain {
    let store: any KeychainStore
    do {
        switch choice {
        case .sqlite:
            store = try SQLiteStore(directory: configuration.dataDirectory, mmapBytes: sqliteMmapBytes, observer: observer)
        case .postgres(let url, let password): store = try PostgresStore(url: url, password: password, observer: observer)
        }
    } catch {
        throw KeychainError.notAvailable("storage unavailable: \(error.message)")
    }
    return try Keychain(configuration: configuration, store: store, logger: logger)
}

/// Where `serve` keeps the keychains other than `default`: on SQLite, each in
/// `<data>/keychains/<name>/keychain.db`; on PostgreSQL, each in a schema of the database
/// (`PostgresStore.schema(forKeychain:)`).
func keychainStorage(
    _ configuration: KeychainConfiguration, store choice: StoreChoice, sqliteMmapBytes: Int = SQLiteStore.defaultMmapBytes,
    observer: (any CommitObserver)? = nil
) -> Keychains.Storage {
    switch choice {
    case .sqlite:
        return .directories(under: configuration.dataDirectory + "/keychains") { directory in
            try SQLiteStore(directory: directory, mmapBytes: sqliteMmapBytes, observer: observer)
        }
    case .postgres(let url, let password):
        return Keychains.Storage(
            open: { name in
                // Its events go to the default keychain's table, which every replica reads.
                try PostgresStore(
                    url: url, password: password, schema: PostgresStore.schema(forKeychain: name),
                    eventSchema: PostgresStore.defaultSchema(url: url, password: password), observer: observer)
            },
            remove: { name in
                try PostgresStore.dropSchema(url: url, password: password, schema: PostgresStore.schema(forKeychain: name))
            })
    }
}

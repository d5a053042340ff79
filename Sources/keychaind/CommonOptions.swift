import ArgumentParser
import Foundation
import KeychainCore
import KeychainLog
import KeychainJSON
import KeychainCrypto
import KeychainPostgres
import KeychainSQLite
import KeychainStorage
import Logging

/// Options every subcommand that opens a data directory shares.
struct StoreOptions: ParsableArguments {
    @Option(help: "The data directory (env KEYCHAIND_DATA_DIR).")
    var dataDir: String?

    @Option(help: "The instance key file (env KEYCHAIND_KEY_FILE; default <data-dir>/instance.key).")
    var keyFile: String?

    @Option(help: "A JSON configuration file (env KEYCHAIND_CONFIG); flags and environment override it.")
    var config: String?

    @Option(help: """
        PostgreSQL instead of the data directory's SQLite file, shared by every replica: a postgres:// URL or a \
        libpq connection string, without a password (env KEYCHAIND_DATABASE_URL).
        """)
    var database: String?

    @Option(help: """
        The database password: this file's first line (env KEYCHAIND_DATABASE_PASSWORD_FILE). Without it, \
        libpq's password file (PGPASSFILE, default ~/.pgpass).
        """)
    var databasePasswordFile: String?

    @Flag(help: """
        Use a data directory, key file, passphrase or password file that another user owns or that group or others \
        can read or write, with a warning naming each (env KEYCHAIND_ALLOW_INSECURE_PERMISSIONS=1). Refused by default.
        """)
    var allowInsecurePermissions = false

    /// Flag, then environment variable, then configuration file.
    func setting(_ flag: String?, env: String, key: String) throws -> String? {
        if let flag { return flag }
        if let value = ProcessInfo.processInfo.environment[env], !value.isEmpty { return value }
        return try ConfigFile.load(config ?? ProcessInfo.processInfo.environment["KEYCHAIND_CONFIG"])[key]
    }

    func keychainConfiguration() throws -> KeychainConfiguration {
        guard let dataDir = try setting(dataDir, env: "KEYCHAIND_DATA_DIR", key: "dataDir") else {
            throw ValidationError("--data-dir (or KEYCHAIND_DATA_DIR) is required")
        }
        var configuration = KeychainConfiguration(dataDirectory: dataDir)
        configuration.keyFile = try setting(keyFile, env: "KEYCHAIND_KEY_FILE", key: "keyFile")
        return configuration
    }

    /// The PostgreSQL URL, when one is given.
    func databaseURL() throws -> String? {
        try setting(database, env: "KEYCHAIND_DATABASE_URL", key: "database")
    }

    /// The file holding the database password, when one is given.
    func databasePasswordPath() throws -> String? {
        try setting(databasePasswordFile, env: "KEYCHAIND_DATABASE_PASSWORD_FILE", key: "databasePasswordFile")
    }

    /// The store these options name: PostgreSQL when a database URL is given, else SQLite.
    func storeChoice() throws -> StoreChoice {
        guard let url = try databaseURL() else { return .sqlite }
        let password = try databasePasswordPath().map { path in
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ValidationError("database password file \(path) cannot be read")
            }
            return String(decoding: contents, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .first.map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) } ?? ""
        }
        return .postgres(url: url, password: password)
    }

    /// The keychain these options name, for a command-line administration step: the process
    /// hardened first, and its files (with the `passphraseFiles` the step reads) checked.
    func openKeychain(passphraseFiles: [String] = []) throws -> Keychain {
        Hardening.apply()
        let logger = makeLogger(level: "warning")
        let configuration = try keychainConfiguration()
        try checkPermissions(configuration, passphraseFiles: passphraseFiles, logger: logger)
        return try keychaind.openKeychain(configuration, store: storeChoice(), logger: logger)
    }
}

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

/// The optional JSON configuration file: a flat object of setting names to strings or numbers.
enum ConfigFile {
    static func load(_ path: String?) throws -> [String: String] {
        guard let path else { return [:] }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("configuration file \(path) cannot be read")
        }
        guard case .object(let object) = try? JSON.parse([UInt8](data)) else {
            throw ValidationError("configuration file \(path) is not a JSON object")
        }
        var settings: [String: String] = [:]
        for (key, value) in object {
            switch value {
            case .string(let s): settings[key] = s
            case .int(let i): settings[key] = String(i)
            case .bool(let b): settings[key] = String(b)
            case .array(let a): settings[key] = a.compactMap(\.stringValue).joined(separator: ",")
            default: throw ValidationError("configuration file \(path): \(key) must be a string, number or list")
            }
        }
        return settings
    }
}

/// Reading passphrases: from a file (first line) or a prompt without echo; never argv or env.
enum PassphraseInput {
    static func fromFile(_ path: String) throws -> SecureBytes {
        guard var bytes = FileManager.default.contents(atPath: path).map([UInt8].init) else {
            throw ValidationError("passphrase file \(path) cannot be read")
        }
        if let newline = bytes.firstIndex(of: 0x0A) { bytes.removeSubrange(newline...) }
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else { throw ValidationError("passphrase file \(path) is empty") }
        return try SecureBytes(consuming: &bytes)
    }

    /// Prompts on the terminal with echo off.
    static func prompt(_ message: String) throws -> SecureBytes {
        guard isatty(STDIN_FILENO) == 1 else {
            throw ValidationError("no terminal to prompt for the passphrase; use --passphrase-file")
        }
        FileHandle.standardError.write(Data(message.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        var bytes: [UInt8] = []
        var c: UInt8 = 0
        while read(STDIN_FILENO, &c, 1) == 1, c != 0x0A { bytes.append(c) }
        guard !bytes.isEmpty else { throw ValidationError("the passphrase is empty") }
        return try SecureBytes(consuming: &bytes)
    }

    /// Prompts twice and requires both to match.
    static func promptNew() throws -> SecureBytes {
        let first = try prompt("New passphrase: ")
        let second = try prompt("Repeat it: ")
        guard first.constantTimeEquals(second) else { throw ValidationError("the passphrases differ") }
        return first
    }
}

/// A logger writing to standard error through the buffered writer (flushed at exit and on SIGHUP).
func makeLogger(level: String?) -> Logger {
    var logger = Logger(label: "keychaind") { label in BufferedLogHandler(label: label, writer: .standardError) }
    logger.logLevel = level.flatMap(Logger.Level.init(rawValue:)) ?? .info
    return logger
}

/// Exits with a keychain error's message (never a secret: messages are built not to hold one).
func fail(_ error: any Error) -> Never {
    FileHandle.standardError.write(Data("keychaind: \(error)\n".utf8))
    exit(1)
}

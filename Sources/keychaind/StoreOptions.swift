import ArgumentParser
import Foundation
import KeychainCore
import Logging

/// Options every subcommand that opens a data directory shares.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong(Setting.dataDir.flag), help: Setting.dataDir.help)
    var dataDir: String?

    @Option(name: .customLong(Setting.keyFile.flag), help: Setting.keyFile.help)
    var keyFile: String?

    @Option(name: .customLong(Setting.config.flag), help: Setting.config.help)
    var config: String?

    @Option(name: .customLong(Setting.database.flag), help: Setting.database.help)
    var database: String?

    @Option(name: .customLong(Setting.databasePasswordFile.flag), help: Setting.databasePasswordFile.help)
    var databasePasswordFile: String?

    @Flag(name: .customLong(Setting.allowInsecurePermissions.flag), help: Setting.allowInsecurePermissions.help)
    var allowInsecurePermissions = false

    func keychainConfiguration() throws -> KeychainConfiguration {
        guard let dataDir = try value(.dataDir, flag: dataDir) else {
            throw ValidationError("--data-dir (or KEYCHAIND_DATA_DIR) is required")
        }
        var configuration = KeychainConfiguration(dataDirectory: dataDir)
        configuration.keyFile = try value(.keyFile, flag: keyFile)
        return configuration
    }

    /// The PostgreSQL URL, when one is given.
    func databaseURL() throws -> String? {
        try value(.database, flag: database)
    }

    /// The file holding the database password, when one is given.
    func databasePasswordPath() throws -> String? {
        try value(.databasePasswordFile, flag: databasePasswordFile)
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

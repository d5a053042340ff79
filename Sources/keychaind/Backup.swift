import ArgumentParser
import Foundation
import KeychainCore
import KeychainSQLite
import KeychainStorage
import Logging

extension Keychaind {
    /// `keychaind backup --to FILE`: a consistent copy of a keychain, still sealed, from the
    /// running server (`POST /v1/keychain/backup`), or from the data directory when no server
    /// runs (or with `--offline`).
    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a consistent, still encrypted copy of the keychain to a file.",
            discussion: """
                Asks the running server (an admin token of every group: --token-file or KEYCHAIND_TOKEN, never on \
                the command line); when nothing listens at --url, or with --offline, copies the data directory's \
                database itself. The copy opens only with the instance key file: keep that apart. PostgreSQL: pg_dump.
                """)

        @OptionGroup var store: StoreOptions

        @Option(help: "The file to write (a new file of mode 0600, renamed over the path once complete).")
        var to: String

        @Option(name: .customLong(Setting.backupURL.flag), help: Setting.backupURL.help)
        var url: String?

        @Option(name: .customLong(Setting.backupTokenFile.flag), help: Setting.backupTokenFile.help)
        var tokenFile: String?

        @Flag(help: "Copy the data directory's database directly (no server may be running on it).")
        var offline = false

        @Option(help: "The keychain to copy (default: the token's default keychain; offline, default).")
        var keychain: String?

        func validate() throws {
            if let keychain, !KeychainName.isValid(keychain) {
                throw ValidationError("--keychain: \(keychain) is not a keychain's name (docs/keychains.md)")
            }
        }

        func run() throws {
            Hardening.apply()
            if try store.databaseURL() != nil {
                throw FileError(
                    "a keychain on PostgreSQL is backed up with pg_dump -Fc and restored with pg_restore (docs/backups-and-migration.md, Backups)"
                )
            }
            if !offline {
                let client = try BackupClient(url: serverURL())
                do {
                    var size = 0
                    try PrivateFile.replace(to, purpose: "backup file") { file in
                        size = try client.fetch(token: token, keychain: keychain, into: file)
                        try file.finish()
                        try Self.verify(file.path)
                    }
                    print("backup: \(size) bytes from \(client.host):\(client.port) written to \(to)")
                    return
                } catch is BackupClient.Refused {
                    guard try store.value(.dataDir, flag: store.dataDir) != nil else {
                        throw FileError(
                            "backup: no server answers at \(client.host):\(client.port), and no --data-dir to copy instead")
                    }
                    FileHandle.standardError.write(
                        Data(
                            "backup: no server answers at \(client.host):\(client.port); copying the data directory instead\n"
                                .utf8))
                }
            }
            try offlineBackup()
        }

        /// The copy made here, from the data directory, which no server may hold.
        private func offlineBackup() throws {
            let opened = try store.openKeychain()
            let configuration = try store.keychainConfiguration()
            let keychains = try Keychains(
                default: opened, storage: keychainStorage(configuration, store: .sqlite), logger: Logger(label: "keychaind"))
            defer { keychains.close() }
            guard let source = keychains.keychain(named: keychain ?? KeychainName.default) else {
                throw FileError("backup: \(configuration.dataDirectory) holds no keychain \(keychain ?? "")")
            }
            try PrivateFile.replace(to, purpose: "backup file") { file in
                try file.finish()
                try source.backup(to: file.path, caller: nil)
                try Self.verify(file.path)
            }
            print("backup: \(source.dataDirectory) copied to \(to)")
        }

        /// `--url`, `KEYCHAIND_URL`, or the address `serve` listens on by the same settings.
        private func serverURL() throws -> String {
            if let url = try store.value(.backupURL, flag: url) { return url }
            let (host, port) = try Listen.parse(try store.value(.listen) ?? Listen.defaultAddress)
            let reachable = host == "0.0.0.0" ? "127.0.0.1" : (host == "::" ? "::1" : host)
            return "http://\(reachable.contains(":") ? "[\(reachable)]" : reachable):\(port)"
        }

        /// The admin token: `--token-file`'s first line, or `KEYCHAIND_TOKEN`. Never an argument,
        /// and never in a message.
        private func token() throws -> String {
            let text: String
            if let tokenFile {
                guard let data = FileManager.default.contents(atPath: tokenFile) else {
                    throw FileError("--token-file \(tokenFile) cannot be read")
                }
                text =
                    String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first.map(
                        String.init) ?? ""
            } else if let value = ProcessInfo.processInfo.environment[Setting.backupTokenFile.environment!], !value.isEmpty {
                text = value
            } else {
                throw FileError("backup: a running server needs an admin token: --token-file FILE or KEYCHAIND_TOKEN")
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            // Goes into a header line: visible ASCII only.
            guard !token.isEmpty, token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw FileError("backup: the token (from \(tokenFile ?? "KEYCHAIND_TOKEN")) is not a bearer token")
            }
            return token
        }

        /// Refuses a copy that is not a whole keychaind database.
        static func verify(_ path: String) throws {
            do { _ = try SQLiteStore.inspect(path: path) } catch {
                throw FileError("backup: the copy does not check out, nothing was written: \(error.message)")
            }
        }
    }
}

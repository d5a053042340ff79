import ArgumentParser
import Foundation
import KeychainCore
import KeychainSQLite
import KeychainStorage
import Logging

extension Keychaind {
    /// `keychaind restore --from FILE --data-dir D`: puts a backup in place as D's database,
    /// with the server stopped, once it is known to be a keychaind database that D's instance
    /// key file opens. Anything refused changes nothing.
    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a backup in place as one of the data directory's keychains (the server stopped).",
            discussion: """
                The backup must pass SQLite's integrity_check, have a schema this build knows, and open with the \
                instance key file of the data directory (--key-file): copy the key file of the keychain it was taken \
                from there first. Refuses a data directory that holds the keychain already, unless --force. A keychain \
                other than default (--keychain) must be one the default keychain lists: restore default's backup first.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var choice: KeychainChoice

        @Option(help: "The backup file (from keychaind backup or POST /v1/keychain/backup).")
        var from: String

        @Flag(help: "Replace the keychain the data directory holds.")
        var force = false

        func run() throws {
            Hardening.apply()
            if try store.databaseURL() != nil {
                throw FileError(
                    "restore: a keychain on PostgreSQL is restored with pg_restore into a new database (docs/backups-and-migration.md, Backups)"
                )
            }
            let logger = makeLogger(level: "warning")
            let configuration = try targetConfiguration(logger: logger)
            let target = configuration.dataDirectory + "/" + SQLiteStore.fileName
            if !force, let size = (try? FileManager.default.attributesOfItem(atPath: target))?[.size] as? Int, size > 0 {
                throw FileError(
                    "restore: \(configuration.dataDirectory) holds a keychain already (\(SQLiteStore.fileName)); --force replaces it"
                )
            }
            guard let source = FileHandle(forReadingAtPath: from) else { throw FileError("restore: \(from) cannot be read") }
            defer { try? source.close() }

            // A private copy beside the database, checked there, then renamed over it.
            let copy = try PrivateFile(creating: PrivateFile.temporaryPath(beside: target), purpose: "restored database")
            var placed = false
            defer {
                if !placed {
                    copy.discard()
                    for suffix in ["-wal", "-shm", "-journal"] { unlink(copy.path + suffix) }
                }
            }
            while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
                try chunk.withUnsafeBytes { try copy.append($0) }
            }
            try copy.finish()
            let inspection: SQLiteStore.Inspection
            do { inspection = try SQLiteStore.inspect(path: copy.path) } catch {
                throw FileError("restore: \(from) is not a keychaind backup: \(error.message); nothing was changed")
            }
            try Self.checkKeys(copy.path, configuration: configuration, from: from, logger: logger)
            do {
                try SQLiteStore.replace(databaseAt: target, with: copy.path)
            } catch {
                throw FileError("restore: \(error.message); nothing was changed")
            }
            placed = true
            print(
                "restore: \(from) is now the keychain \(choice.keychain) of \(configuration.dataDirectory) (schema version \(inspection.schemaVersion)); start keychaind serve and unlock it with its passphrase"
            )
        }

        /// The configuration of the keychain restored: the data directory's for `default`; for
        /// another, its own directory under `keychains/`, which the default keychain must list
        /// (restore the default keychain's backup, which lists its keychains, first).
        private func targetConfiguration(logger: Logger) throws -> KeychainConfiguration {
            let configuration = try store.keychainConfiguration()
            try store.checkPermissions(configuration, passphraseFiles: [], logger: logger)
            let name = choice.keychain
            guard !name.isSameBytes(as: KeychainName.default) else { return configuration }
            let listed: [String]
            do {
                let opened = try store.openKeychain()
                defer { opened.close() }
                listed = try Keychains.names(listedIn: opened)
            }
            guard listed.contains(where: { $0.isSameBytes(as: name) }) else {
                throw FileError(
                    "restore: the default keychain of \(configuration.dataDirectory) lists no keychain \(name): create it (POST "
                        + "/v1/keychains) or restore the default keychain's backup, which lists it, first; nothing was changed")
            }
            let directory = configuration.dataDirectory + "/keychains/" + name
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var named = Keychains.sharedKeyFile(name, configuration)
            named.dataDirectory = directory
            return named
        }

        /// Opens the copy as a keychain with the instance key file: its wrapped keys must open.
        private static func checkKeys(_ path: String, configuration: KeychainConfiguration, from: String, logger: Logger) throws {
            let keychain: Keychain
            do {
                keychain = try Keychain(configuration: configuration, store: try SQLiteStore(path: path), logger: logger)
            } catch let error as KeychainError where error.status == KeychainError.decode("").status {
                throw FileError(
                    "restore: the instance key file \(configuration.resolvedKeyFile) does not open the keys of \(from): a backup "
                        + "opens only with the key file of the keychain it was taken from; nothing was changed")
            } catch let error as KeychainError {
                throw FileError("restore: \(from) cannot be opened: \(error.message); nothing was changed")
            } catch let error as StorageError {
                throw FileError("restore: \(from) cannot be opened: \(error.message); nothing was changed")
            }
            defer { keychain.close() }
            guard keychain.state != .uninitialized else {
                throw FileError("restore: \(from) holds no keychain (no keys); nothing was changed")
            }
        }
    }
}

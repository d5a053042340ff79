import ArgumentParser
import Foundation
import KeychainCore
import KeychainHost
import KeychainSQLite
import Logging

extension StoreOptions {
    /// `--allow-insecure-permissions`, `KEYCHAIND_ALLOW_INSECURE_PERMISSIONS` (1/true/yes or
    /// 0/false/no) or `allowInsecurePermissions` in the configuration file.
    func insecurePermissionsAllowed() throws -> Bool {
        if allowInsecurePermissions { return true }
        let text = try value(.allowInsecurePermissions)
        switch text?.lowercased() {
        case nil, "0", "false", "no": return false
        case "1", "true", "yes": return true
        default: throw ValidationError("KEYCHAIND_ALLOW_INSECURE_PERMISSIONS/allowInsecurePermissions: expected 1 or 0")
        }
    }

    /// Checks every file the keychain of `configuration` is kept in, and the `passphraseFiles`
    /// and database password file it reads (`FilePermissions`), before any of them is read:
    /// throws `InsecurePermissions` naming each problem, or with the override logs a warning
    /// naming each path it lets through.
    ///
    /// Creates the data directory (0700) first when it is missing, then checks what is there:
    /// checking a missing directory and then creating it would use one another user made
    /// meanwhile. The PostgreSQL store keeps no file of its own, but its key file and data
    /// directory are checked all the same.
    func checkPermissions(_ configuration: KeychainConfiguration, passphraseFiles: [String], logger: Logger) throws {
        let directory = configuration.dataDirectory
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw FileError("data directory cannot be created: \(directory)")
        }
        var paths: [(String, FilePermissions.Kind)] = [(directory, .dataDirectory), (configuration.resolvedKeyFile, .keyFile)]
        if try databaseURL() == nil {
            let database = directory + "/" + SQLiteStore.fileName
            paths += [database, database + "-wal", database + "-shm"].map { ($0, .databaseFile) }
        } else if let passwordFile = try databasePasswordPath() {
            paths.append((passwordFile, .databasePasswordFile))
        }
        paths += passphraseFiles.map { ($0, .passphraseFile) }
        let problems = paths.compactMap { path, kind in FilePermissions.check(path: path, kind: kind).map { (path, $0) } }
        guard !problems.isEmpty else { return }
        guard try insecurePermissionsAllowed() else { throw InsecurePermissions(problems: problems.map(\.1)) }
        for (path, problem) in problems {
            logger.warning(
                "insecure permissions allowed by --allow-insecure-permissions",
                metadata: ["path": "\(path)", "problem": "\(problem)"])
        }
    }
}

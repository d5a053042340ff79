internal import Foundation
import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import Logging

extension Keychain {
    /// The data directory: where the instance key file lives by default, and where the embedded
    /// store keeps its database (and a backup its temporary copy).
    public var dataDirectory: String { configuration.dataDirectory }

    /// Writes a consistent copy of the whole keychain, as stored, into the new, empty file at
    /// `path`, while the keychain serves: items, tokens' hashes, settings and wrapped keys, all
    /// still sealed. The copy opens only with this keychain's instance key file (and its
    /// secrets, but for `always` items, only with the passphrase too).
    ///
    /// Needs an `admin` token of every group (`caller` `nil`: local administration); works
    /// locked or unlocked, since nothing is opened. errSecUnimplemented, naming `store`, on a
    /// store that keychaind does not copy itself (PostgreSQL: `pg_dump`).
    public func backup(to path: String, caller: AccessToken?) throws(KeychainError) {
        try requireKeychainAdmin(caller, for: "taking a backup")
        guard try loadBarrier() != nil else { throw .notAvailable("the keychain is not initialized; run keychaind init") }
        do {
            try store.backup(to: path)
        } catch  where error.isUnsupported {
            throw .unimplemented("store: \(error.message)")
        } catch {
            throw map(error)
        }
        logger.info("backup taken", metadata: ["token.id": "\(caller?.id ?? "-")"])
    }

    /// What the names of a backup's temporary copies in the data directory start with.
    static let backupCopyPrefix = ".keychain-backup-"

    /// A new, empty, private file (0600, created exclusively, never through a link) in the data
    /// directory, for a backup's copy: its path. The caller unlinks it.
    public func newBackupCopy() throws(KeychainError) -> String {
        let name = Self.backupCopyPrefix + Sodium.randomBytes(8).map { String($0, radix: 16) }.joined() + ".db"
        let path = dataDirectory + "/" + name
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            throw .notAvailable(
                "backup: a temporary file cannot be created in the data directory: \(String(cString: strerror(errno)))")
        }
        Glibc.close(created)
        return path
    }

    /// Removes the temporary copies (and SQLite's files beside them) that backups left in the
    /// data directory when the process died while taking them: each is a whole copy of the
    /// keychain, sealed, but taking the disk's space. Only for a process that holds the data
    /// directory alone: `serve` on the embedded store, once the store is open (SQLite then holds
    /// its database exclusively, so no other keychaind takes a backup here). Returns how many
    /// files it removed.
    @discardableResult
    public func removeLeftBackupCopies() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory)) ?? []
        var removed = 0
        for name in names where name.hasPrefix(Self.backupCopyPrefix) {
            if unlink(dataDirectory + "/" + name) == 0 { removed += 1 }
        }
        if removed > 0 {
            logger.notice("removed the temporary copies an interrupted backup left", metadata: ["files": "\(removed)"])
        }
        return removed
    }
}

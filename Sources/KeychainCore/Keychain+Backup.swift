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
        } catch where error.isUnsupported {
            throw .unimplemented("store: \(error.message)")
        } catch {
            throw map(error)
        }
        logger.info("backup taken", metadata: ["token.id": "\(caller?.id ?? "-")"])
    }
}

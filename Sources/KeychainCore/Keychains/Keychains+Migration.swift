public import KeychainCrypto

extension Keychains {
    /// A migration bundle of every keychain of the server, each item named by its keychain, in
    /// the order of `all` (`BundleExport.make`). Needs a server admin (admin of every group and
    /// every keychain; `nil`: local administration) and every keychain unlocked. Runs Argon2id
    /// with the default keychain's limits.
    public func exportBundle(passphrase: SecureBytes, caller: AccessToken?) throws(KeychainError) -> BundleExport {
        try Self.requireServerAdmin(caller, for: "exporting every keychain")
        return try BundleExport.make(of: all, passphrase: passphrase)
    }

    /// Imports a migration bundle, each item into the keychain of the name the bundle gives it
    /// (`default` for a format-1 bundle, which names none): errSecNoSuchKeychain naming the
    /// first keychain the bundle names that this server lacks, errSecInteractionNotAllowed
    /// naming one that is locked, and otherwise as `Keychain.importBundle` refuses, with nothing
    /// written. Every keychain's collisions are checked before any is written; each keychain's
    /// share is then written in a transaction of its own. Needs a server admin.
    public func importBundle(
        _ bundle: UnsafeRawBufferPointer, passphrase: SecureBytes, conflict: ConflictPolicy, caller: AccessToken?,
        tokens: ImportedTokens? = nil
    ) throws(KeychainError) -> BundleImport {
        try Self.requireServerAdmin(caller, for: "importing into every keychain")
        let known: ImportedTokens
        if let tokens { known = tokens } else { known = ImportedTokens(known: try self.default.tokenIDs()) }
        return try Keychain.importBundle(
            bundle, passphrase: passphrase, conflict: conflict, deriving: self.default, tokens: known
        ) {
            (name: String?) throws(KeychainError) -> Keychain in
            let name = name ?? KeychainName.default
            guard let keychain = keychain(named: name) else {
                throw .noSuchKeychain("keychain: the bundle holds items of \(name), a keychain this server lacks")
            }
            return keychain
        }
    }
}

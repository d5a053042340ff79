import ArgumentParser
import KeychainCore

/// `--keychain NAME`: which of the server's keychains a command on a stopped server acts on.
struct KeychainChoice: ParsableArguments {
    @Option(help: "The keychain to act on (docs/keychains.md).")
    var keychain: String = KeychainName.default

    func validate() throws {
        guard KeychainName.isValid(keychain) else {
            throw ValidationError("--keychain: \(keychain) is not a keychain's name (docs/keychains.md)")
        }
    }

    /// The server's keychains, opened from `store`, and the one chosen among them: close the
    /// keychains when done.
    func open(_ store: StoreOptions, passphraseFiles: [String] = []) throws -> (keychains: Keychains, keychain: Keychain) {
        let opened = try store.openKeychain(passphraseFiles: passphraseFiles)
        let keychains: Keychains
        do {
            keychains = try Keychains(
                default: opened, storage: keychainStorage(try store.keychainConfiguration(), store: try store.storeChoice()),
                logger: makeLogger(level: "warning"))
        } catch {
            opened.close()
            throw error
        }
        guard let chosen = keychains.keychain(named: keychain) else {
            keychains.close()
            throw FileError("--keychain: the server has no keychain \(keychain) (keychaind lists them: GET /v1/keychains)")
        }
        return (keychains, chosen)
    }
}

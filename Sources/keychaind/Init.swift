import ArgumentParser
import KeychainCore
import KeychainCrypto
import Logging

extension Keychaind {
    /// `keychaind init`: creates the keychain and its first admin token.
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a keychain: instance key, wrapped keys, an admin token.")

        @OptionGroup var store: StoreOptions

        @Option(help: "Read the passphrase from this file's first line instead of prompting.")
        var passphraseFile: String?

        @Option(help: "Write the admin token to this file (mode 0600) instead of printing it.")
        var adminTokenFile: String?

        func run() throws {
            Hardening.apply()
            let keychain = try store.openKeychain()
            defer { keychain.close() }
            let passphrase = try passphraseFile.map(PassphraseInput.fromFile) ?? PassphraseInput.promptNew()
            let issued = try keychain.initialize(passphrase: passphrase)
            if let adminTokenFile {
                try writePrivateFile(adminTokenFile, issued.secret + "\n")
                print("keychain created; admin token \(issued.token.id) written to \(adminTokenFile)")
            } else {
                print("keychain created. Admin token (shown once, store it now):\n\(issued.secret)")
            }
        }
    }
}

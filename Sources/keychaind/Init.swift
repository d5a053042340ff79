import ArgumentParser
import KeychainCore
import KeychainCrypto
import Logging

extension Keychaind {
    /// `keychaind init`: creates the keychain and its first admin token.
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the default keychain: instance key, wrapped keys, an admin token.")

        @OptionGroup var store: StoreOptions

        @Option(help: "Read the passphrase from this file's first line instead of prompting.")
        var passphraseFile: String?

        @Option(help: "Write the admin token to this new file (mode 0600; an existing file or link is refused), not stdout.")
        var adminTokenFile: String?

        func run() throws {
            let keychain = try store.openKeychain(passphraseFiles: [passphraseFile].compactMap(\.self))
            defer { keychain.close() }
            // Created before the keychain is, so that a path already taken (by a file or a link
            // planted there) is refused while nothing has happened yet.
            let tokenFile = try adminTokenFile.map { try PrivateFile(creating: $0, purpose: "admin token file") }
            let issued: IssuedToken
            do {
                let passphrase = try passphraseFile.map(PassphraseInput.fromFile) ?? PassphraseInput.promptNew()
                issued = try keychain.initialize(passphrase: passphrase)
            } catch {
                tokenFile?.discard()
                throw error
            }
            if let tokenFile {
                do { try tokenFile.finish(issued.secret + "\n") } catch {
                    // The keychain exists now. The token is not printed instead: an operator who
                    // asked for a file may have standard output in a journal. Nobody holds its
                    // secret, so it is revoked, and local administration makes another.
                    tokenFile.discard()
                    try? keychain.revokeToken(id: issued.token.id, caller: nil)
                    let directory = try store.keychainConfiguration().dataDirectory
                    print(
                        """
                        keychain created, but the admin token could not be written to \(tokenFile.path): \(error).
                        That token is revoked; create another with
                          keychaind token create --data-dir \(directory) --name admin --group '*' \
                        --capability read --capability list --capability write --capability delete --capability lock --capability admin
                        """)
                    throw ExitCode.failure
                }
                print("keychain created; admin token \(issued.token.id) written to \(tokenFile.path)")
            } else {
                print("keychain created. Admin token (shown once, store it now):\n\(issued.secret)")
            }
        }
    }
}

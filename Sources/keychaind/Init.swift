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
                    // The keychain exists now: the token is shown rather than lost.
                    tokenFile.discard()
                    print("keychain created, but \(error). Admin token (shown once, store it now):\n\(issued.secret)")
                    throw ExitCode.failure
                }
                print("keychain created; admin token \(issued.token.id) written to \(tokenFile.path)")
            } else {
                print("keychain created. Admin token (shown once, store it now):\n\(issued.secret)")
            }
        }
    }
}

import ArgumentParser
import Foundation
import KeychainAPI
import KeychainCore
import KeychainCrypto

extension Keychaind {
    /// `keychaind export`: a migration bundle of a stopped server's data directory.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a migration bundle of a keychain's items but the ThisDeviceOnly ones (a stopped server's).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var choice: KeychainChoice
        @Option(help: "The bundle file to create (mode 0600; never an existing file).") var to: String
        @Option(help: "Read the keychain's passphrase from this file (default: prompt).") var passphraseFile: String?
        @Option(help: "Read the bundle's passphrase from this file (default: prompt twice).") var bundlePassphraseFile: String?

        func run() throws {
            let (keychains, keychain) = try choice.open(
                store, passphraseFiles: [passphraseFile, bundlePassphraseFile].compactMap(\.self))
            defer { keychains.close() }
            let passphrase = try passphraseFile.map(PassphraseInput.fromFile) ?? PassphraseInput.prompt("Keychain passphrase: ")
            try keychain.unlock(passphrase: passphrase, from: .host)
            let bundlePassphrase = try bundlePassphraseFile.map(PassphraseInput.fromFile) ?? PassphraseInput.promptNew()
            let file = try PrivateFile(creating: to, purpose: "bundle file")
            do {
                // Written as it is sealed, a batch at a time: the bundle is never whole in memory.
                let export = try keychain.exportBundle(passphrase: bundlePassphrase, caller: nil)
                while let piece = try export.next() { try piece.withUnsafeBytes { try file.append($0) } }
                try file.finish()
                print(String(decoding: KeychainResponder.manifestText(export.manifest), as: UTF8.self))
            } catch {
                file.discard()
                throw error
            }
        }
    }
}

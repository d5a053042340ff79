import ArgumentParser
import Foundation
import KeychainAPI
import KeychainCore
import KeychainCrypto

extension Keychaind {
    /// `keychaind import`: a migration bundle into a stopped server's data directory.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import a migration bundle into a keychain, whole or not at all (a stopped server's).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var choice: KeychainChoice
        @Option(help: "The bundle file.") var from: String
        @Option(help: "On a collision with an item already here: fail (nothing imported), skip or replace.")
        var conflict: String = "fail"
        @Option(help: "Read the keychain's passphrase from this file (default: prompt).") var passphraseFile: String?
        @Option(help: "Read the bundle's passphrase from this file (default: prompt).") var bundlePassphraseFile: String?

        func run() throws {
            guard let policy = ConflictPolicy(rawValue: conflict) else {
                throw ValidationError("--conflict: expected fail, skip or replace")
            }
            guard let data = FileManager.default.contents(atPath: from) else {
                throw ValidationError("bundle file \(from) cannot be read")
            }
            let (keychains, keychain) = try choice.open(
                store, passphraseFiles: [passphraseFile, bundlePassphraseFile].compactMap(\.self))
            defer { keychains.close() }
            let passphrase = try passphraseFile.map(PassphraseInput.fromFile) ?? PassphraseInput.prompt("Keychain passphrase: ")
            try keychain.unlock(passphrase: passphrase, from: .host)
            let bundlePassphrase =
                try bundlePassphraseFile.map(PassphraseInput.fromFile) ?? PassphraseInput.prompt("Bundle passphrase: ")
            let result = try keychain.importBundle([UInt8](data), passphrase: bundlePassphrase, conflict: policy, caller: nil)
            print("imported \(result.imported), skipped \(result.skipped), replaced \(result.replaced)")
        }
    }
}

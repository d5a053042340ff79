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
        @Option(
            name: .customLong("map-token"),
            help: "tok_old:tok_new: an access object trusting the bundle's token tok_old trusts tok_new here (repeatable).")
        var tokenMap: [String] = []

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
            let tokens = try ImportedTokens(known: keychains.default.tokenIDs(), pairs: tokenMap, key: "--map-token")
            let passphrase = try passphraseFile.map(PassphraseInput.fromFile) ?? PassphraseInput.prompt("Keychain passphrase: ")
            try keychain.unlock(passphrase: passphrase, from: .host)
            let bundlePassphrase =
                try bundlePassphraseFile.map(PassphraseInput.fromFile) ?? PassphraseInput.prompt("Bundle passphrase: ")
            let result = try keychain.importBundle(
                [UInt8](data), passphrase: bundlePassphrase, conflict: policy, caller: nil, tokens: tokens)
            print("imported \(result.imported), skipped \(result.skipped), replaced \(result.replaced)")
        }
    }
}

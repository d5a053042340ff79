import ArgumentParser
import KeychainCore

extension Keychaind {
    /// `keychaind passwd`: changes the passphrase (re-wraps keys; no item is touched).
    struct Passwd: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a keychain's passphrase (a stopped server's).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var choice: KeychainChoice
        @Option(help: "Read the current passphrase from this file.") var oldPassphraseFile: String?
        @Option(help: "Read the new passphrase from this file.") var newPassphraseFile: String?

        func run() throws {
            let (keychains, keychain) = try choice.open(
                store, passphraseFiles: [oldPassphraseFile, newPassphraseFile].compactMap(\.self))
            defer { keychains.close() }
            let old = try oldPassphraseFile.map(PassphraseInput.fromFile) ?? PassphraseInput.prompt("Current passphrase: ")
            let new = try newPassphraseFile.map(PassphraseInput.fromFile) ?? PassphraseInput.promptNew()
            try keychain.changePassphrase(old: old, new: new)
            print("passphrase changed")
        }
    }
}

import ArgumentParser

/// `keychaind`: Apple's Keychain Services as an HTTP service.
@main
struct Keychaind: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keychaind",
        abstract: "Keychain Services semantics over HTTP, encrypted at rest with libsodium.",
        subcommands: [
            Serve.self, Init.self, Token.self, Passwd.self, Audit.self, Backup.self, Restore.self, Export.self, Import.self,
            SettingsCommand.self,
        ],
        defaultSubcommand: Serve.self)
}

import ArgumentParser

extension Keychaind {
    /// `keychaind settings --markdown`: prints `docs/settings.md`, which `make check` compares.
    struct SettingsCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings", abstract: "Print every setting as a markdown table.", shouldDisplay: false)

        @Flag(help: "Markdown: the contents of docs/settings.md.")
        var markdown = false

        func run() throws {
            guard markdown else { throw ValidationError("settings: only --markdown is supported") }
            print(Setting.markdown, terminator: "")
        }
    }
}

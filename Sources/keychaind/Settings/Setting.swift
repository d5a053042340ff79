import ArgumentParser

/// One setting of the daemon: the names it goes by as a flag, an environment variable and a
/// configuration-file key, its default and its help, in one row of `Setting.all`.
///
/// The `--help` text of its option and its row in `docs/settings.md` are both built from here,
/// so the three names and the default cannot drift apart.
struct Setting: Sendable {
    /// The long flag, without its dashes (`data-dir`).
    let flag: String
    /// The environment variable (`KEYCHAIND_DATA_DIR`), when there is one.
    var environment: String?
    /// What to know about the environment variable's value (`comma-separated`), when anything.
    var environmentNote: String?
    /// The configuration file's key (`dataDir`), when the file may set it.
    var key: String?
    /// The default as a sentence fragment (`127.0.0.1:8700`), when there is one worth naming.
    var defaultValue: String?
    /// What the setting does: its help without the closing period.
    let summary: String
    /// The subcommands that take it.
    let commands: Commands
    /// The flag may be given more than once.
    var repeatable = false

    /// Who takes a setting.
    enum Commands: Sendable {
        /// Every subcommand that opens a data directory (`StoreOptions`).
        case store
        /// These subcommands only.
        case only([String])
    }

    /// The option's `--help`: the summary, then its environment variable and default.
    var help: ArgumentHelp {
        var notes: [String] = []
        if let environment { notes.append("env " + environment + (environmentNote.map { ", " + $0 } ?? "")) }
        if let defaultValue { notes.append("default " + defaultValue) }
        if repeatable { notes.insert("repeatable", at: 0) }
        return ArgumentHelp(summary + (notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")") + ".")
    }

    /// `serve --listen`, or `--data-dir` for a setting every store subcommand takes.
    var displayedFlags: [String] {
        switch commands {
        case .store: ["--" + flag]
        case .only(let names): names.map { $0 + " --" + flag }
        }
    }
}

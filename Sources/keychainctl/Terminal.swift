import Foundation
import KeychainHost

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal: the program's name as `getprogname()` gives it, standard error, prompts
/// without echo, and the progress bar.
enum Terminal {
    /// The name this program was run as (`keychainctl`, or `security` through a link of that name).
    static let programName: String = {
        let path = CommandLine.arguments.first ?? "keychainctl"
        return path.split(separator: "/").last.map(String.init) ?? "keychainctl"
    }()

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Writes `bytes` to standard error as they are.
    static func errorBytes(_ bytes: [UInt8]) {
        FileHandle.standardError.write(Data(bytes))
    }

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func outBytes(_ bytes: [UInt8]) {
        FileHandle.standardOutput.write(Data(bytes))
    }

    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    static var standardInputIsTerminal: Bool { TerminalInput.isTerminal }

    /// A line typed at `prompt` on the terminal without echo; when standard input is not a
    /// terminal, its next line (so that `printf 'pw\n' | keychainctl unlock-keychain` works).
    static func secret(prompt: String) throws(ToolFailure) -> String {
        guard standardInputIsTerminal else {
            guard let line = readLine(strippingNewline: true) else { throw ToolFailure(message: "no password on standard input") }
            return line
        }
        guard let line = TerminalInput.silentLine(prompt: prompt) else { throw ToolFailure(message: "no password entered") }
        return String(decoding: line, as: UTF8.self)
    }
}

/// `-w` as the last argument of an add: the password is prompted for, as `security`
/// does, so that it never has to be on a command line.
enum PromptedValue {
    static let flag = "--prompt-for-password"
    static let verbs: Set = ["add-generic-password", "add-internet-password"]

    static func rewrite(_ arguments: [String]) -> [String] {
        guard let verb = arguments.first, verbs.contains(verb), let last = arguments.last, last == "-w" else {
            return arguments
        }
        return arguments.dropLast() + [flag]
    }

    /// The new item's password, asked twice as `security` asks it (three tries).
    static func prompt() throws(ToolFailure) -> String { try Terminal.newSecret(what: "new item", data: true) }
}

extension Terminal {
    /// A new password (of a new item, a new keychain), asked twice as `security` asks it (three
    /// tries); from standard input once when it is not a terminal.
    static func newSecret(what: String, data: Bool = false) throws(ToolFailure) -> String {
        let noun = data ? "password data" : "password"
        for _ in 0..<3 {
            let first = try Terminal.secret(prompt: "\(noun) for \(what): ")
            guard Terminal.standardInputIsTerminal else { return first }
            let second = try Terminal.secret(prompt: "retype \(noun) for \(what): ")
            if first == second { return first }
            Terminal.error("passwords don't match")
        }
        throw ToolFailure(message: "passwords don't match")
    }
}

/// A bar on standard error while long work goes on, drawn only when standard error is a
/// terminal (nothing is written to a pipe or a file).
final class ProgressBar {
    private let label: String
    private let total: Int?
    private var done = 0
    private var lastDrawn = -1
    private let enabled: Bool

    init(_ label: String, total: Int?, enabled: Bool = Terminal.standardErrorIsTerminal) {
        self.label = label
        self.total = total
        self.enabled = enabled
    }

    func advance(by count: Int = 1) {
        done += count
        guard enabled else { return }
        let percent = total.map { $0 > 0 ? min(100, done * 100 / $0) : 100 } ?? -1
        // Redrawn when the percentage moves, or every 1,000 items without a total.
        let mark = total == nil ? done / 1000 : percent
        guard mark != lastDrawn else { return }
        lastDrawn = mark
        var line = "\r\(label) "
        if let total {
            let width = 30
            let filled = total > 0 ? min(width, done * width / total) : width
            line += "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            line += "\(percent)% \(done)/\(total)"
        } else {
            line += "\(done)"
        }
        Terminal.errorBytes(Array(line.utf8))
    }

    func finish() {
        guard enabled, lastDrawn >= 0 else { return }
        Terminal.errorBytes(Array("\n".utf8))
    }
}

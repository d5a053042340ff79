import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainHost

/// Reading passphrases: from a file (first line) or a prompt without echo; never argv or env.
enum PassphraseInput {
    static func fromFile(_ path: String) throws -> SecureBytes {
        guard var bytes = FileManager.default.contents(atPath: path).map([UInt8].init) else {
            throw ValidationError("passphrase file \(path) cannot be read")
        }
        if let newline = bytes.firstIndex(of: 0x0A) { bytes.removeSubrange(newline...) }
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else { throw ValidationError("passphrase file \(path) is empty") }
        return try SecureBytes(consuming: &bytes)
    }

    /// Prompts on the terminal with echo off.
    static func prompt(_ message: String) throws -> SecureBytes {
        guard TerminalInput.isTerminal else {
            throw ValidationError("no terminal to prompt for the passphrase; use --passphrase-file")
        }
        var bytes = TerminalInput.silentLine(prompt: message) ?? []
        guard !bytes.isEmpty else { throw ValidationError("the passphrase is empty") }
        return try SecureBytes(consuming: &bytes)
    }

    /// Prompts twice and requires both to match.
    static func promptNew() throws -> SecureBytes {
        let first = try prompt("New passphrase: ")
        let second = try prompt("Repeat it: ")
        guard first.constantTimeEquals(second) else { throw ValidationError("the passphrases differ") }
        return first
    }
}

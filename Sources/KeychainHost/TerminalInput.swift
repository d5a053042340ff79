#if canImport(Glibc)
    import Glibc
#endif

/// A line typed on the terminal without echo, for passphrases and passwords: `prompt` on
/// standard error, the echo off while the line is read.
public enum TerminalInput {
    /// Whether standard input is a terminal one can prompt on.
    public static var isTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// The bytes of the line typed after `prompt`, without its newline; `nil` at end of input.
    public static func silentLine(prompt: String) -> [UInt8]? {
        _ = prompt.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            _ = write(STDERR_FILENO, "\n", 1)
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            guard read(STDIN_FILENO, &byte, 1) == 1 else { return bytes.isEmpty ? nil : bytes }
            if byte == 0x0A { return bytes }
            bytes.append(byte)
        }
    }
}

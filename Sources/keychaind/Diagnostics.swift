import Foundation
import KeychainLog
import Logging

/// A logger writing to standard error through the buffered writer (flushed at exit and on SIGHUP).
func makeLogger(level: String?) -> Logger {
    var logger = Logger(label: "keychaind") { label in BufferedLogHandler(label: label, writer: .standardError) }
    logger.logLevel = level.flatMap(Logger.Level.init(rawValue:)) ?? .info
    return logger
}

/// Exits with a keychain error's message (never a secret: messages are built not to hold one).
func fail(_ error: any Error) -> Never {
    FileHandle.standardError.write(Data("keychaind: \(error)\n".utf8))
    exit(1)
}

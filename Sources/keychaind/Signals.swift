import Foundation
import KeychainAPI
import KeychainAudit
import KeychainCore
import KeychainLog
import Logging

/// SIGTERM and SIGINT shut down cleanly; SIGUSR1 locks every keychain at once ("lock on sleep");
/// SIGUSR2 unlocks the default keychain with `--passphrase-file` (from the host); SIGHUP writes the buffered log lines
/// and reopens the audit log (logrotate).
enum Signals {
    static func run(server: KeychainServer, unlock: HostUnlock?, audit: AuditLog?, logger: Logger) {
        let done = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "keychaind.signals")
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                if signalNumber == SIGHUP {
                    LogWriter.standardError.flush()
                    do { try audit?.reopen() } catch {
                        logger.error("the audit log cannot be reopened", metadata: ["error": "\(error)"])
                    }
                } else if signalNumber == SIGUSR1 {
                    _ = try? server.keychains.lockAll()
                    logger.notice("locked on SIGUSR1")
                } else if signalNumber == SIGUSR2 {
                    guard let unlock else {
                        return logger.warning("SIGUSR2 unlocks with --passphrase-file, and none was given")
                    }
                    unlock.run(server.keychain, when: "on SIGUSR2")
                    if server.keychain.state == .unlocked { logger.notice("unlocked on SIGUSR2") }
                } else {
                    logger.notice("shutting down")
                    done.signal()
                }
            }
            source.resume()
            sources.append(source)
        }
        done.wait()
        server.shutdown()
        audit?.close()
        for source in sources { source.cancel() }
        logger.notice("stopped; keys zeroed, store closed")
        LogWriter.standardError.flush()
    }
}

import ArgumentParser
import ExtrasBase64
import CLinux
import Foundation
import KeychainAPI
import KeychainAudit
import KeychainCore
import KeychainCrypto
import KeychainLog
import KeychainSQLite
import Logging
import MicroHTTP

extension Keychaind {
    /// `keychaind serve`: serves the HTTP API; starts locked.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve the HTTP API (starts locked).")

        @OptionGroup var store: StoreOptions

        @Option(help: "Address to listen on, host:port or [v6]:port (env KEYCHAIND_LISTEN; default 127.0.0.1:8700).")
        var listen: String?

        @Option(help: """
            Also serve GET /metrics without a token on this address, host:port or [v6]:port (env \
            KEYCHAIND_METRICS_LISTEN; default: none, metrics only on the API port to a token with the metrics \
            capability). A loopback or private (RFC 1918, fc00::/7) address only.
            """)
        var metricsListen: String?

        @Option(help: "Polling threads (env KEYCHAIND_THREADS; default: the number of cores).")
        var threads: Int?

        @Option(name: .customLong("trusted-proxy"), help: "A proxy address whose X-Forwarded-For is believed (repeatable; env KEYCHAIND_TRUSTED_PROXIES, comma-separated).")
        var trustedProxies: [String] = []

        @Option(help: "Largest request body in bytes (env KEYCHAIND_MAX_BODY_BYTES; default 1048576).")
        var maxBodyBytes: Int?

        @Option(help: """
            Largest migration bundle in bytes that an import takes, held in memory whole (an export streams, \
            whatever its size) (env KEYCHAIND_MAX_BUNDLE_BYTES; default 268435456).
            """)
        var maxBundleBytes: Int?

        @Option(help: "Largest secret in bytes (env KEYCHAIND_MAX_SECRET_BYTES; default 65536).")
        var maxSecretBytes: Int?

        @Option(help: "Seconds an idle connection is kept (env KEYCHAIND_CONNECTION_TIMEOUT; default 10).")
        var connectionTimeout: Int?

        @Option(help: "Most connections at once (env KEYCHAIND_CONNECTION_LIMIT; default 1024).")
        var connectionLimit: Int?

        @Option(help: """
            Most connections one client address holds at once; at the limit its longest-idle keep-alive connection is \
            closed to make room, and with none idle its new request is answered 503 with Retry-After (env \
            KEYCHAIND_MAX_CONNECTIONS_PER_ADDRESS; default 64; trusted proxies have no limit).
            """)
        var maxConnectionsPerAddress: Int?

        @Option(help: "trace, debug, info, notice, warning, error or critical (env KEYCHAIND_LOG_LEVEL; default info).")
        var logLevel: String?

        @Option(help: """
            Unlock at start, and on SIGUSR2, with the passphrase in this file (for unattended restarts); it must be owned \
            by this user or root and unreadable by others.
            """)
        var passphraseFile: String?

        @Flag(help: "Serve a throw-away keychain in a temporary directory, unlocked; prints its token and passphrase.")
        var dev = false

        @Option(help: "With --dev: write the admin token to this file (a new file of mode 0600, renamed over the path).")
        var devTokenFile: String?

        @Option(help: "With --dev: write the passphrase to this file (a new file of mode 0600, renamed over the path).")
        var devPassphraseFile: String?

        @Option(help: "Append an audit line for every request to this file, or - for standard output (env KEYCHAIND_AUDIT_LOG; default: none).")
        var auditLog: String?

        @Option(help: """
            Bytes of the SQLite database file read through a memory map rather than with pread (env \
            KEYCHAIND_SQLITE_MMAP_SIZE; default 1073741824; 0: none).
            """)
        var sqliteMmapSize: Int?

        @Flag(help: "Run even as root (refused by default).")
        var allowRoot = false

        func run() throws {
            Hardening.apply()
            if geteuid() == 0, !allowRoot {
                throw ValidationError("refusing to run as root; use an unprivileged user or --allow-root")
            }
            let logger = makeLogger(level: try store.setting(logLevel, env: "KEYCHAIND_LOG_LEVEL", key: "logLevel"))
            let (host, port) = try Listen.parse(try store.setting(listen, env: "KEYCHAIND_LISTEN", key: "listen") ?? "127.0.0.1:8700")
            var http = HTTPServerConfiguration(host: host, port: port)
            if let threads = try int(threads, "KEYCHAIND_THREADS", "threads") { http.threads = threads }
            if let max = try int(maxBodyBytes, "KEYCHAIND_MAX_BODY_BYTES", "maxBodyBytes") { http.maxBodyBytes = max }
            if let timeout = try int(connectionTimeout, "KEYCHAIND_CONNECTION_TIMEOUT", "connectionTimeout") {
                http.connectionTimeoutSeconds = timeout
            }
            if let limit = try int(connectionLimit, "KEYCHAIND_CONNECTION_LIMIT", "connectionLimit") { http.connectionLimit = limit }
            if let limit = try int(maxConnectionsPerAddress, "KEYCHAIND_MAX_CONNECTIONS_PER_ADDRESS", "maxConnectionsPerAddress") {
                guard limit >= 1 else { throw ValidationError("--max-connections-per-address: expected 1 or more connections") }
                http.perAddressConnectionLimit = limit
            }
            let metricsListener = try metricsListenerConfiguration()
            var api = APIConfiguration()
            api.trustedProxies = trustedProxies.isEmpty
                ? (try store.setting(nil, env: "KEYCHAIND_TRUSTED_PROXIES", key: "trustedProxies") ?? "")
                    .split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                : trustedProxies
            // The proxies carry many clients' connections: no per-address limit for them.
            http.unlimitedAddresses = api.trustedProxies
            if let max = try int(maxBundleBytes, "KEYCHAIND_MAX_BUNDLE_BYTES", "maxBundleBytes") { api.maxBundleBytes = max }
            // Access lines straight into the writer the logger writes through (makeLogger).
            api.accessLogWriter = .standardError

            var devDirectory: String?
            var configuration: KeychainConfiguration
            var storeChoice = StoreChoice.sqlite
            if dev {
                var template = Array((NSTemporaryDirectory() + "keychaind-dev-XXXXXX").utf8CString)
                guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
                    throw ValidationError("cannot create a temporary directory")
                }
                devDirectory = String(cString: made)
                configuration = KeychainConfiguration(dataDirectory: devDirectory!)
            } else {
                configuration = try store.keychainConfiguration()
                try store.checkPermissions(configuration, passphraseFiles: [passphraseFile].compactMap(\.self), logger: logger)
                storeChoice = try store.storeChoice()
            }
            let allowInsecure = try store.insecurePermissionsAllowed()
            if let max = try int(maxSecretBytes, "KEYCHAIND_MAX_SECRET_BYTES", "maxSecretBytes") { configuration.maxSecretBytes = max }
            // Before the store, which reports its commits to it.
            let metrics = KeychainMetrics()
            api.metrics = metrics
            let mmapBytes = try int(sqliteMmapSize, "KEYCHAIND_SQLITE_MMAP_SIZE", "sqliteMmapSize") ?? SQLiteStore.defaultMmapBytes
            guard mmapBytes >= 0 else { throw ValidationError("--sqlite-mmap-size: expected 0 or more bytes") }
            let keychain = try openKeychain(
                configuration, store: storeChoice, sqliteMmapBytes: mmapBytes, observer: metrics, logger: logger)
            if case .sqlite = storeChoice { keychain.removeLeftBackupCopies() }
            if dev { try startDev(keychain, directory: devDirectory!, port: port) }
            if keychain.state == .uninitialized {
                logger.warning("the keychain is not initialized: run keychaind init --data-dir \(configuration.dataDirectory)")
            }
            let unlock = passphraseFile.map {
                HostUnlock(passphraseFile: $0, allowInsecurePermissions: allowInsecure, logger: logger)
            }
            unlock?.run(keychain, when: "at start")
            let audit = try openAuditLog(configuration)
            if let warning = audit?.openWarning { logger.warning("\(warning)") }
            api.auditLog = audit
            // An imported bundle is written beside the keychain as it arrives, not held in memory.
            http.spoolDirectory = configuration.dataDirectory
            let server = try KeychainServer(keychain: keychain, http: http, api: api, metricsListener: metricsListener, logger: logger)
            var serving: Logger.Metadata = [
                "listen": "\(host):\(server.port)", "keychain.state": "\(keychain.state.rawValue)", "threads": "\(http.threads)",
            ]
            if let metricsListener, let port = server.metricsPort { serving["metrics.listen"] = "\(metricsListener.host):\(port)" }
            logger.notice("keychaind serving", metadata: serving)
            if dev {
                print("Listening on http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)")
                fflush(nil)
            }
            Signals.run(server: server, unlock: unlock, audit: audit, logger: logger)
            if let devDirectory { try? FileManager.default.removeItem(atPath: devDirectory) }
        }

        /// The metrics listener `--metrics-listen` names: on a loopback or private address only,
        /// since it answers without a token (docs/threat-model.md); one polling thread, few connections.
        private func metricsListenerConfiguration() throws -> HTTPServerConfiguration? {
            guard let text = try store.setting(metricsListen, env: "KEYCHAIND_METRICS_LISTEN", key: "metricsListen") else { return nil }
            let (host, port) = try Listen.parse(text, option: "--metrics-listen")
            switch AddressScope(host: host) {
            case .loopback?, .privateNetwork?: break
            case .wildcard?, .other?:
                throw ValidationError("""
                    --metrics-listen: \(host) is reachable beyond this host and private networks; metrics are served there \
                    without a token, so bind a loopback or private address (or scrape the API port with a metrics token)
                    """)
            case nil: throw ValidationError("--metrics-listen: \(host) is not an IPv4 or IPv6 address")
            }
            var configuration = HTTPServerConfiguration(host: host, port: port)
            configuration.threads = 1
            configuration.connectionLimit = 64
            configuration.workerPoolThreads = 2
            return configuration
        }

        /// The audit log `--audit-log` names, its keys derived from the instance key.
        private func openAuditLog(_ configuration: KeychainConfiguration) throws -> AuditLog? {
            guard let path = try store.setting(auditLog, env: "KEYCHAIND_AUDIT_LOG", key: "auditLog") else { return nil }
            let instanceKey: SecureBytes
            do { instanceKey = try configuration.readInstanceKey() } catch {
                throw ValidationError("--audit-log: the audit log's keys derive from the instance key, and there is none yet: run keychaind init first")
            }
            return try AuditLog(destination: path == "-" ? .standardOutput : .file(path), keys: AuditKeys(instanceKey: instanceKey))
        }

        private func int(_ flag: Int?, _ env: String, _ key: String) throws -> Int? {
            if let flag { return flag }
            guard let text = try store.setting(nil, env: env, key: key) else { return nil }
            guard let value = Int(text) else { throw ValidationError("\(env)/\(key): not an integer") }
            return value
        }

        /// Initialises the throw-away keychain and says how to use it.
        private func startDev(_ keychain: Keychain, directory: String, port: Int) throws {
            let random = Base64.encodeToString(bytes: Sodium.randomBytes(12), options: [.base64UrlAlphabet, .omitPaddingCharacter])
            let passphraseText = "dev-" + random
            let issued = try keychain.initialize(passphrase: SecureBytes(utf8: passphraseText))
            if let devTokenFile { try PrivateFile.replace(devTokenFile, with: issued.secret + "\n", purpose: "dev token file") }
            if let devPassphraseFile {
                try PrivateFile.replace(devPassphraseFile, with: passphraseText + "\n", purpose: "dev passphrase file")
            }
            let host = port == 0 ? "127.0.0.1:PORT" : "127.0.0.1:\(port)"
            print(
                """
                keychaind --dev: a throw-away keychain in \(directory), unlocked. Everything is deleted at exit.
                Paste these two lines into another shell (the README's walk-through uses them):
                  export KEYCHAIND_TOKEN=\(issued.secret)
                  export KEYCHAIND_PASSPHRASE=\(passphraseText)
                Then try:
                  curl -s -H "Authorization: Bearer $KEYCHAIND_TOKEN" http://\(host)/v1/keychain
                """)
            fflush(nil)
        }
    }
}

/// `host:port` and `[v6]:port`.
enum Listen {
    static func parse(_ text: String, option: String = "--listen") throws -> (String, Int) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ValidationError("\(option): expected [address]:port")
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw ValidationError("\(option): expected host:port") }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard let number = Int(port), (0...65535).contains(number) else { throw ValidationError("\(option): bad port") }
        let address = host.isEmpty ? "0.0.0.0" : (host == "localhost" ? "127.0.0.1" : String(host))
        return (address, number)
    }
}

/// Process hardening at start: no core dumps, not ptrace-able by other users' processes, and
/// every file it creates (database, WAL, key file) readable by its owner only.
enum Hardening {
    static func apply() {
        umask(0o077)
        // A file size limit then makes a write fail (EFBIG), which the audit log reports,
        // rather than kill the process.
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        _ = kcd_set_not_dumpable()
    }
}

/// Unlock from the host: the passphrase file, read at start and on SIGUSR2.
///
/// Never throttled by network failures and never counted toward them; a wrong or unreadable
/// file leaves the keychain locked with the reason in the log, and the server serving (a unit
/// that exited here would restart in a loop).
struct HostUnlock {
    let passphraseFile: String
    /// `--allow-insecure-permissions`: the file is used whoever can read it.
    let allowInsecurePermissions: Bool
    let logger: Logger

    func run(_ keychain: Keychain, when: String) {
        // Checked at start before serving (refused there); checked again here for SIGUSR2.
        if !allowInsecurePermissions, let problem = FilePermissions.check(path: passphraseFile, kind: .passphraseFile) {
            return logger.error("the passphrase file is not used \(when); the keychain stays locked", metadata: [
                "path": "\(passphraseFile)", "error": "\(problem)",
            ])
        }
        do {
            try keychain.unlock(passphrase: PassphraseInput.fromFile(passphraseFile), from: .host)
        } catch let error as KeychainError {
            logger.error("the passphrase file did not unlock the keychain \(when); it stays locked", metadata: [
                "path": "\(passphraseFile)", "error": "\(error.message)",
            ])
        } catch {
            logger.error("the passphrase file cannot be used \(when); the keychain stays locked", metadata: [
                "path": "\(passphraseFile)", "error": "\(error)",
            ])
        }
    }
}

/// SIGTERM and SIGINT shut down cleanly; SIGUSR1 locks the keychain at once ("lock on sleep");
/// SIGUSR2 unlocks it with `--passphrase-file` (from the host); SIGHUP writes the buffered log lines
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
                    do { try audit?.reopen() } catch { logger.error("the audit log cannot be reopened", metadata: ["error": "\(error)"]) }
                } else if signalNumber == SIGUSR1 {
                    try? server.keychain.lock()
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
        sources.forEach { $0.cancel() }
        logger.notice("stopped; keys zeroed, store closed")
        LogWriter.standardError.flush()
    }
}

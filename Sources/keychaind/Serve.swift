import ArgumentParser
import CLinux
import ExtrasBase64
import Foundation
import KeychainAPI
import KeychainAudit
import KeychainCore
import KeychainCrypto
import KeychainHost
import KeychainLog
import KeychainSQLite
import Logging
import MicroHTTP

extension Keychaind {
    /// `keychaind serve`: serves the HTTP API; starts locked.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve the HTTP API (starts locked).")

        @OptionGroup var store: StoreOptions

        @Option(name: .customLong(Setting.listen.flag), help: Setting.listen.help)
        var listen: String?

        @Option(name: .customLong(Setting.metricsListen.flag), help: Setting.metricsListen.help)
        var metricsListen: String?

        @Option(name: .customLong(Setting.threads.flag), help: Setting.threads.help)
        var threads: Int?

        @Option(name: .customLong(Setting.trustedProxies.flag), help: Setting.trustedProxies.help)
        var trustedProxies: [String] = []

        @Option(name: .customLong(Setting.kvMounts.flag), help: Setting.kvMounts.help)
        var kvMounts: [String] = []

        @Option(name: .customLong(Setting.maxBodyBytes.flag), help: Setting.maxBodyBytes.help)
        var maxBodyBytes: Int?

        @Option(name: .customLong(Setting.maxBundleBytes.flag), help: Setting.maxBundleBytes.help)
        var maxBundleBytes: Int?

        @Option(name: .customLong(Setting.maxSecretBytes.flag), help: Setting.maxSecretBytes.help)
        var maxSecretBytes: Int?

        @Option(name: .customLong(Setting.connectionTimeout.flag), help: Setting.connectionTimeout.help)
        var connectionTimeout: Int?

        @Option(name: .customLong(Setting.connectionLimit.flag), help: Setting.connectionLimit.help)
        var connectionLimit: Int?

        @Option(name: .customLong(Setting.maxConnectionsPerAddress.flag), help: Setting.maxConnectionsPerAddress.help)
        var maxConnectionsPerAddress: Int?

        @Option(name: .customLong(Setting.logLevel.flag), help: Setting.logLevel.help)
        var logLevel: String?

        @Option(name: .customLong(Setting.passphraseFile.flag), help: Setting.passphraseFile.help)
        var passphraseFile: String?

        @Flag(help: "Serve a throw-away keychain in a temporary directory, unlocked; prints its token and passphrase.")
        var dev = false

        @Option(help: "With --dev: write the admin token to this file (a new file of mode 0600, renamed over the path).")
        var devTokenFile: String?

        @Option(help: "With --dev: write the passphrase to this file (a new file of mode 0600, renamed over the path).")
        var devPassphraseFile: String?

        @Option(name: .customLong(Setting.auditLog.flag), help: Setting.auditLog.help)
        var auditLog: String?

        @Option(name: .customLong(Setting.sqliteMmapSize.flag), help: Setting.sqliteMmapSize.help)
        var sqliteMmapSize: Int?

        @Flag(name: .customLong(Setting.allowRoot.flag), help: Setting.allowRoot.help)
        var allowRoot: Bool = false

        func run() throws {
            Hardening.apply()
            if geteuid() == 0, !allowRoot {
                throw ValidationError("refusing to run as root; use an unprivileged user or --allow-root")
            }
            let logger = makeLogger(level: try store.value(.logLevel, flag: logLevel))
            let (host, port) = try Listen.parse(try store.value(.listen, flag: listen) ?? Listen.defaultAddress)
            var http = HTTPServerConfiguration(host: host, port: port)
            if let threads = try store.int(.threads, flag: threads) { http.threads = threads }
            if let max = try store.int(.maxBodyBytes, flag: maxBodyBytes) { http.maxBodyBytes = max }
            if let timeout = try store.int(.connectionTimeout, flag: connectionTimeout) {
                http.connectionTimeoutSeconds = timeout
            }
            if let limit = try store.int(.connectionLimit, flag: connectionLimit) { http.connectionLimit = limit }
            if let limit = try store.int(.maxConnectionsPerAddress, flag: maxConnectionsPerAddress) {
                guard limit >= 1 else { throw ValidationError("--max-connections-per-address: expected 1 or more connections") }
                http.perAddressConnectionLimit = limit
            }
            let metricsListener = try metricsListenerConfiguration()
            var api = APIConfiguration()
            api.trustedProxies =
                trustedProxies.isEmpty
                ? (try store.value(.trustedProxies) ?? "")
                    .split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                : trustedProxies
            // The proxies carry many clients' connections: no per-address limit for them.
            http.unlimitedAddresses = api.trustedProxies
            if let max = try store.int(.maxBundleBytes, flag: maxBundleBytes) { api.maxBundleBytes = max }
            let mounts: [String]? =
                kvMounts.isEmpty
                ? try store.value(.kvMounts).map {
                    $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                }
                : kvMounts
            if let mounts {
                switch APIConfiguration.kvMounts(mounts) {
                case .success(let parsed): api.kvMounts = parsed
                case .failure(let error):
                    throw ValidationError(
                        "--\(Setting.kvMounts.flag): \(error.entry) is not mount=group, one path segment (not "
                            + APIConfiguration.reservedMountNames + ") and a group, each mount once")
                }
            }
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
            if let max = try store.int(.maxSecretBytes, flag: maxSecretBytes) { configuration.maxSecretBytes = max }
            // Before the store, which reports its commits to it.
            let metrics = KeychainMetrics()
            api.metrics = metrics
            let mmapBytes = try store.int(.sqliteMmapSize, flag: sqliteMmapSize) ?? SQLiteStore.defaultMmapBytes
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
            let keychains = try Keychains(
                default: keychain,
                storage: keychainStorage(configuration, store: storeChoice, sqliteMmapBytes: mmapBytes, observer: metrics),
                logger: logger)
            let server = try KeychainServer(
                keychains: keychains, http: http, api: api, metricsListener: metricsListener, logger: logger)
            var serving: Logger.Metadata = [
                "listen": "\(host):\(server.port)", "keychain.state": "\(keychain.state.rawValue)", "threads": "\(http.threads)",
            ]
            if let metricsListener, let port = server.metricsPort {
                serving["metrics.listen"] = "\(metricsListener.host):\(port)"
            }
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
            guard let text = try store.value(.metricsListen, flag: metricsListen) else { return nil }
            let (host, port) = try Listen.parse(text, option: "--metrics-listen")
            switch AddressScope(host: host) {
            case .loopback?, .privateNetwork?: break
            case .wildcard?, .other?:
                throw ValidationError(
                    """
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
            guard let path = try store.value(.auditLog, flag: auditLog) else { return nil }
            let instanceKey: SecureBytes
            do { instanceKey = try configuration.readInstanceKey() } catch {
                throw ValidationError(
                    "--audit-log: the audit log's keys derive from the instance key, and there is none yet: run keychaind init first"
                )
            }
            return try AuditLog(
                destination: path == "-" ? .standardOutput : .file(path), keys: AuditKeys(instanceKey: instanceKey))
        }

        /// Initialises the throw-away keychain and says how to use it.
        private func startDev(_ keychain: Keychain, directory: String, port: Int) throws {
            let random = Base64.encodeToString(
                bytes: Sodium.randomBytes(12), options: [.base64UrlAlphabet, .omitPaddingCharacter])
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

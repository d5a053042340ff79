import KeychainAPI
import KeychainCore
import KeychainSQLite
import MicroHTTP

/// Every setting, in the order `docs/settings.md` lists them.
///
/// Written by hand rather than with swift-configuration: its providers derive the environment
/// variable from the key, while these names predate it (`KEYCHAIND_DATABASE_URL` is `database`),
/// and it would bring six packages into a build for a lookup of a few lines (`StoreOptions.value`).
/// A numeric default is read off the configuration the server starts from, so the docs cannot
/// name another.
extension Setting {
    /// The transport's defaults, which the numeric rows name.
    private static let http = HTTPServerConfiguration()

    static let all: [Setting] = [
        dataDir, keyFile, config, database, databasePasswordFile, allowInsecurePermissions,
        listen, threads, trustedProxies, kvMounts, maxBodyBytes, maxBundleBytes, maxSecretBytes, connectionTimeout,
        connectionLimit,
        maxConnectionsPerAddress, logLevel, passphraseFile, auditLog, metricsListen, sqliteMmapSize, allowRoot,
        backupURL, backupTokenFile,
    ]

    // MARK: Every subcommand with a data directory

    static let dataDir = Setting(
        flag: "data-dir", environment: "KEYCHAIND_DATA_DIR", key: "dataDir", defaultValue: nil,
        summary: "The data directory, required but by serve --dev, which makes a temporary one", commands: .store)

    static let keyFile = Setting(
        flag: "key-file", environment: "KEYCHAIND_KEY_FILE", key: "keyFile", defaultValue: "<data-dir>/instance.key",
        summary: "The instance key file", commands: .store)

    static let config = Setting(
        flag: "config", environment: "KEYCHAIND_CONFIG",
        summary: "A JSON configuration file: a flat object of the keys docs/settings.md lists; flags and environment override it",
        commands: .store)

    static let database = Setting(
        flag: "database", environment: "KEYCHAIND_DATABASE_URL", key: "database",
        defaultValue: "none: SQLite in the data directory",
        summary: """
            PostgreSQL instead of the data directory's SQLite file, shared by every replica: a postgres:// URL or a \
            libpq connection string, without a password
            """,
        commands: .store)

    static let databasePasswordFile = Setting(
        flag: "database-password-file", environment: "KEYCHAIND_DATABASE_PASSWORD_FILE", key: "databasePasswordFile",
        defaultValue: "libpq's password file, PGPASSFILE or ~/.pgpass",
        summary: "The database password: this file's first line", commands: .store)

    static let allowInsecurePermissions = Setting(
        flag: "allow-insecure-permissions", environment: "KEYCHAIND_ALLOW_INSECURE_PERMISSIONS",
        environmentNote: "1 or 0", key: "allowInsecurePermissions", defaultValue: "refused",
        summary: """
            Use a data directory, key file, passphrase or password file that another user owns or that group or others \
            can read or write, with a warning naming each
            """,
        commands: .store)

    // MARK: serve

    static let listen = Setting(
        flag: "listen", environment: "KEYCHAIND_LISTEN", key: "listen", defaultValue: Listen.defaultAddress,
        summary: "Address to listen on, host:port or [v6]:port", commands: .only(["serve"]))

    static let threads = Setting(
        flag: "threads", environment: "KEYCHAIND_THREADS", key: "threads", defaultValue: "the number of cores",
        summary: "Polling threads", commands: .only(["serve"]))

    static let trustedProxies = Setting(
        flag: "trusted-proxy", environment: "KEYCHAIND_TRUSTED_PROXIES", environmentNote: "comma-separated",
        key: "trustedProxies", defaultValue: "none",
        summary: "A proxy address whose X-Forwarded-For is believed", commands: .only(["serve"]), repeatable: true)

    static let kvMounts = Setting(
        flag: "kv-mount", environment: "KEYCHAIND_KV_MOUNTS", environmentNote: "comma-separated",
        key: "kvMounts", defaultValue: "secret=default",
        summary: "A Vault KV version 2 mount and the access group it stands for, mount=group (docs/vault-kv.md)",
        commands: .only(["serve"]), repeatable: true)

    static let maxBodyBytes = Setting(
        flag: "max-body-bytes", environment: "KEYCHAIND_MAX_BODY_BYTES", key: "maxBodyBytes",
        defaultValue: String(http.maxBodyBytes),
        summary: "Largest request body in bytes", commands: .only(["serve"]))

    static let maxBundleBytes = Setting(
        flag: "max-bundle-bytes", environment: "KEYCHAIND_MAX_BUNDLE_BYTES", key: "maxBundleBytes",
        defaultValue: String(APIConfiguration().maxBundleBytes),
        summary: """
            Largest migration bundle in bytes that an import takes, held in memory whole (an export streams, \
            whatever its size)
            """,
        commands: .only(["serve"]))

    static let maxSecretBytes = Setting(
        flag: "max-secret-bytes", environment: "KEYCHAIND_MAX_SECRET_BYTES", key: "maxSecretBytes",
        defaultValue: String(KeychainConfiguration(dataDirectory: "").maxSecretBytes),
        summary: "Largest secret in bytes", commands: .only(["serve"]))

    static let connectionTimeout = Setting(
        flag: "connection-timeout", environment: "KEYCHAIND_CONNECTION_TIMEOUT", key: "connectionTimeout",
        defaultValue: String(http.connectionTimeoutSeconds), summary: "Seconds an idle connection is kept",
        commands: .only(["serve"]))

    static let connectionLimit = Setting(
        flag: "connection-limit", environment: "KEYCHAIND_CONNECTION_LIMIT", key: "connectionLimit",
        defaultValue: String(http.connectionLimit),
        summary: "Most connections at once", commands: .only(["serve"]))

    static let maxConnectionsPerAddress = Setting(
        flag: "max-connections-per-address", environment: "KEYCHAIND_MAX_CONNECTIONS_PER_ADDRESS",
        key: "maxConnectionsPerAddress", defaultValue: "\(http.perAddressConnectionLimit); trusted proxies have no limit",
        summary: """
            Most connections one client address holds at once; at the limit its longest-idle keep-alive connection is \
            closed to make room, and with none idle its new request is answered 503 with Retry-After
            """,
        commands: .only(["serve"]))

    static let logLevel = Setting(
        flag: "log-level", environment: "KEYCHAIND_LOG_LEVEL", key: "logLevel", defaultValue: "info",
        summary: "trace, debug, info, notice, warning, error or critical", commands: .only(["serve"]))

    static let passphraseFile = Setting(
        flag: "passphrase-file",
        summary: """
            Unlock at start, and on SIGUSR2, with the passphrase in this file (for unattended restarts); it must be owned \
            by this user or root and unreadable by others
            """,
        commands: .only(["serve"]))

    static let auditLog = Setting(
        flag: "audit-log", environment: "KEYCHAIND_AUDIT_LOG", key: "auditLog", defaultValue: "none",
        summary: "Append an audit line for every request to this file, or - for standard output", commands: .only(["serve"]))

    static let metricsListen = Setting(
        flag: "metrics-listen", environment: "KEYCHAIND_METRICS_LISTEN", key: "metricsListen",
        defaultValue: "none, metrics only on the API port to a token with the metrics capability",
        summary: """
            Also serve GET /metrics without a token on this address, host:port or [v6]:port; a loopback or private \
            (RFC 1918, fc00::/7) address only
            """,
        commands: .only(["serve"]))

    static let sqliteMmapSize = Setting(
        flag: "sqlite-mmap-size", environment: "KEYCHAIND_SQLITE_MMAP_SIZE", key: "sqliteMmapSize",
        defaultValue: "\(SQLiteStore.defaultMmapBytes); 0: none",
        summary: "Bytes of the SQLite database file read through a memory map rather than with pread",
        commands: .only(["serve"]))

    static let allowRoot = Setting(
        flag: "allow-root", defaultValue: "refused", summary: "Run even as root", commands: .only(["serve"]))

    // MARK: backup

    static let backupURL = Setting(
        flag: "url", environment: "KEYCHAIND_URL", key: "url",
        defaultValue: "http:// and the serve --listen setting, " + Listen.defaultAddress,
        summary: "The running server", commands: .only(["backup"]))

    static let backupTokenFile = Setting(
        flag: "token-file", environment: "KEYCHAIND_TOKEN", environmentNote: "the token itself",
        defaultValue: "none: needed to ask a running server",
        summary: "A file whose first line is an admin token of every group", commands: .only(["backup"]))
}

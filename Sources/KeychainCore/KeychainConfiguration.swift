public import KeychainCrypto

/// Where a keychain lives and how it behaves.
public struct KeychainConfiguration: Sendable {
    /// Holds the instance key file by default (and the embedded store's database, which the
    /// store's own factory opens there).
    public var dataDirectory: String
    /// The keychain's name (`KeychainName`): `default` for the first, whose data and references
    /// are those of a server that has only one.
    public var name = KeychainName.default
    /// The instance key file (mode 0600); mountable apart from the data. Default: `<dataDirectory>/instance.key`.
    public var keyFile: String?
    /// Argon2id limits for a new keychain; at least MODERATE unless `allowWeakKDFForTesting`.
    public var kdfLimits: KDFLimits = .moderate
    /// Lets tests use libsodium's minimum Argon2id limits. Never set by the daemon.
    public var allowWeakKDFForTesting = false
    /// The largest secret (`valueData`) accepted, in bytes: errSecDataTooLarge above.
    public var maxSecretBytes = 64 * 1024
    /// The most items one search answer holds; past it the answer has a `next` page (`SearchPage`).
    public var maxAnswerItems = 1000
    /// About the most bytes of items one search answer holds (sealed attributes and secrets, as
    /// stored): the page ends at the first item past it, and holds one item at least.
    public var maxAnswerBytes = 1 << 20
    /// `lockInterval` of a new keychain, in seconds (macOS's default for new keychains: 300).
    public var defaultLockInterval = 300
    /// The events kept for subscribers resuming with `Last-Event-ID` (`KeychainEvents`).
    public var eventHistory = 10_000
    public var clock: any KeychainClock = SystemClock()

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }

    /// The instance key file's path: `keyFile`, or `instance.key` in the data directory.
    public var resolvedKeyFile: String { keyFile ?? dataDirectory + "/instance.key" }

    /// The instance key, read from its file: what the audit log's keys derive from
    /// (`keychaind audit`, which reads no database and so runs beside a serving keychain).
    public func readInstanceKey() throws(KeychainError) -> SecureBytes {
        try KeyFile.read(resolvedKeyFile)
    }
}

/// The keychain's state (docs/semantics.md §1).
public enum KeychainState: String, Sendable {
    case uninitialized, locked, unlocked
}

public import KeychainCore
public import KeychainCrypto
public import Logging

/// The passphrase the test keychains are created with.
public let testPassphrase = "correct horse battery staple"

extension KeychainConfiguration {
    /// A configuration for tests: libsodium's minimum Argon2id limits (allowed for tests only).
    public static func testing(
        _ directory: String, clock: (any KeychainClock)? = nil, lockInterval: Int = 300
    ) -> KeychainConfiguration {
        var configuration = KeychainConfiguration(dataDirectory: directory)
        configuration.kdfLimits = .insecureMinimumForTesting
        configuration.allowWeakKDFForTesting = true
        if let clock { configuration.clock = clock }
        configuration.defaultLockInterval = lockInterval
        return configuration
    }
}

extension Keychain {
    /// The keychain of `configuration.dataDirectory`, on `backend`'s store kept there.
    public static func open(
        _ configuration: KeychainConfiguration, backend: StoreBackend = .sqlite, logger: Logger = Logger(label: "test")
    ) throws -> Keychain {
        try Keychain(configuration: configuration, store: backend.open(configuration.dataDirectory), logger: logger)
    }
}

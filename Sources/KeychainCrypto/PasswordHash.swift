internal import CSodium

/// Argon2id limits (`crypto_pwhash`), stored beside the salt so they can be raised later.
public struct KDFLimits: Sendable, Equatable, Codable {
    public var opsLimit: UInt64
    public var memLimit: Int

    public init(opsLimit: UInt64, memLimit: Int) {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    /// libsodium's MODERATE limits (3 passes, 256 MiB, ~0.5 s here): the floor for a real keychain.
    public static let moderate = KDFLimits(
        opsLimit: UInt64(crypto_pwhash_OPSLIMIT_MODERATE), memLimit: Int(crypto_pwhash_MEMLIMIT_MODERATE))
    /// libsodium's SENSITIVE limits (4 passes, 1 GiB).
    public static let sensitive = KDFLimits(
        opsLimit: UInt64(crypto_pwhash_OPSLIMIT_SENSITIVE), memLimit: Int(crypto_pwhash_MEMLIMIT_SENSITIVE))
    /// libsodium's minimum limits. Only for tests, which would otherwise spend minutes in Argon2id;
    /// `KeychainConfiguration` refuses them unless told it is a test.
    public static let insecureMinimumForTesting = KDFLimits(
        opsLimit: UInt64(crypto_pwhash_OPSLIMIT_MIN), memLimit: Int(crypto_pwhash_MEMLIMIT_MIN))

    /// Whether these limits are at least MODERATE on both axes.
    public var isAtLeastModerate: Bool {
        opsLimit >= KDFLimits.moderate.opsLimit && memLimit >= KDFLimits.moderate.memLimit
    }
}

/// Passphrase → key-encryption key with Argon2id.
public enum PasswordHash {
    public static let saltLength = Int(crypto_pwhash_SALTBYTES)

    /// Derives a 32-byte key from `passphrase` and `salt`. Slow by design: never call on a polling thread.
    public static func deriveKey(passphrase: SecureBytes, salt: [UInt8], limits: KDFLimits) throws(CryptoError) -> SecureBytes {
        guard salt.count == saltLength else { throw .invalidLength("salt") }
        Sodium.ensureInitialized()
        let key = try SecureBytes(count: AEAD.keyLength)
        let rc = key.withUnsafeMutableBytes { out in
            passphrase.withUnsafeBytes { pw in
                salt.withUnsafeBytes { s in
                    crypto_pwhash(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(out.count),
                        pw.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(pw.count),
                        s.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        limits.opsLimit, limits.memLimit, crypto_pwhash_ALG_ARGON2ID13)
                }
            }
        }
        guard rc == 0 else { throw .keyDerivationFailed }
        return key
    }
}

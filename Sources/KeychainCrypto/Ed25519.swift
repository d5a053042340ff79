internal import CSodium

/// Ed25519 signing (RFC 8032) with libsodium, the key in `sodium_malloc` memory throughout.
///
/// libsodium's secret key is the seed followed by the public key, which signing hashes with the
/// message: given the public key, a signature costs one scalar multiplication instead of two
/// (deriving the public key from the seed is the other), which is why a caller that knows it
/// passes it in.
public enum Ed25519 {
    public static let seedLength = Int(crypto_sign_SEEDBYTES)
    public static let publicKeyLength = Int(crypto_sign_PUBLICKEYBYTES)

    /// The public key of `seed` (Apple's external representation of an Ed25519 private key).
    public static func publicKey(seed: SecureBytes) throws(CryptoError) -> [UInt8] {
        guard seed.count == seedLength else { throw .invalidLength("seed") }
        Sodium.ensureInitialized()
        let secret = try SecureBytes(count: Int(crypto_sign_SECRETKEYBYTES))
        var publicKey = [UInt8](repeating: 0, count: publicKeyLength)
        seed.withUnsafeBytes { s in
            secret.withUnsafeMutableBytes { k in
                _ = crypto_sign_seed_keypair(
                    &publicKey, k.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    s.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return publicKey
    }

    /// The 64-byte signature of `message` by `seed`, whose public key is `publicKey`. A wrong
    /// public key would make a signature that does not verify, and two signatures of one message
    /// under two public keys reveal the key: the caller gives the key's own, derived from `seed`.
    public static func sign(_ message: [UInt8], seed: SecureBytes, publicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard seed.count == seedLength else { throw .invalidLength("seed") }
        guard publicKey.count == publicKeyLength else { throw .invalidLength("publicKey") }
        Sodium.ensureInitialized()
        let secret = try SecureBytesPool.shared.take(count: Int(crypto_sign_SECRETKEYBYTES))
        defer { SecureBytesPool.shared.recycle(secret) }
        secret.withUnsafeMutableBytes { k in
            seed.withUnsafeBytes { k.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: seedLength) }
            publicKey.withUnsafeBytes {
                (k.baseAddress! + seedLength).copyMemory(from: $0.baseAddress!, byteCount: publicKeyLength)
            }
        }
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        secret.withUnsafeBytes { k in
            _ = crypto_sign_detached(
                &signature, nil, message, UInt64(message.count), k.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return signature
    }
}

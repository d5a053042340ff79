internal import COpenSSL

/// Digests through libcrypto: SHA-1 is Apple's public-key hash and certificate hash, SHA-256
/// the certificate hash `security find-certificate -Z` prints first.
public enum Fingerprint {
    public static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { out in _ = SHA1(input.baseAddress, input.count, out.baseAddress) }
        }
        return digest
    }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { out in _ = SHA256(input.baseAddress, input.count, out.baseAddress) }
        }
        return digest
    }
}

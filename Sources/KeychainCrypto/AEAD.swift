internal import CSodium

/// XChaCha20-Poly1305 (IETF) sealing with a random 192-bit nonce and a versioned frame.
///
/// Frame: `version (1) || nonce (24) || ciphertext || tag (16)`. The version byte is also
/// authenticated (it is prepended to the associated data), so a frame cannot be re-labelled.
public enum AEAD {
    public static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// The frame format this build writes.
    public static let currentVersion: UInt8 = 1

    /// Seals `plaintext` under `key`, binding `associatedData`.
    public static func seal(_ plaintext: [UInt8], key: SecureBytes, associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == keyLength else { throw .invalidLength("key") }
        return plaintext.withUnsafeBytes { sealUnchecked($0, key: key, associatedData: associatedData) }
    }

    /// Seals the bytes at `plaintext` under `key`, binding `associatedData`.
    public static func seal(_ plaintext: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8]) throws(CryptoError)
        -> [UInt8]
    {
        guard key.count == keyLength else { throw .invalidLength("key") }
        return sealUnchecked(plaintext, key: key, associatedData: associatedData)
    }

    private static func sealUnchecked(_ pt: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8]) -> [UInt8] {
        Sodium.ensureInitialized()
        let ad = [currentVersion] + associatedData
        var frame = [UInt8](repeating: 0, count: 1 + nonceLength + pt.count + tagLength)
        frame[0] = currentVersion
        frame.withUnsafeMutableBytes { out in
            let noncePtr = out.baseAddress! + 1
            randombytes_buf(noncePtr, nonceLength)
            var written: UInt64 = 0
            key.withUnsafeBytes { k in
                ad.withUnsafeBytes { a in
                    _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                        (noncePtr + nonceLength).assumingMemoryBound(to: UInt8.self), &written,
                        pt.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(pt.count),
                        a.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(a.count),
                        nil, noncePtr.assumingMemoryBound(to: UInt8.self),
                        k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return frame
    }

    /// Opens a frame sealed by `seal`; throws `authenticationFailed` on any mismatch.
    public static func open(_ frame: [UInt8], key: SecureBytes, associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        let opened = associatedData.withUnsafeBytes { open(frame, key: key, associatedData: $0) }
        return try opened.get()
    }

    /// Opens a frame sealed by `seal`, with associated data the caller has in a buffer (on
    /// its stack, say).
    public static func open(
        _ frame: [UInt8], key: SecureBytes, associatedData: UnsafeRawBufferPointer
    ) -> Result<[UInt8], CryptoError> {
        guard key.count == keyLength else { return .failure(.invalidLength("key")) }
        guard frame.count >= 1 + nonceLength + tagLength, frame[0] == currentVersion else {
            return .failure(.malformedCiphertext)
        }
        Sodium.ensureInitialized()
        let plaintextCount = frame.count - 1 - nonceLength - tagLength
        // Opened into a stack buffer, zeroed once copied: an array made by count goes through
        // unspecialized allocation (docs/performance.md#secrets-opened-into-a-stack-buffer).
        return withUnsafeTemporaryAllocation(byteCount: max(plaintextCount, 1), alignment: 16) { out in
            let opened = UnsafeMutableRawBufferPointer(rebasing: out[..<plaintextCount])
            defer { sodium_memzero(out.baseAddress, out.count) }
            guard open(frame, key: key, associatedData: associatedData, into: opened) == 0 else {
                return .failure(.authenticationFailed)
            }
            return .success([UInt8](opened))
        }
    }

    /// Opens a frame sealed by `seal` straight into `sodium_malloc` memory: for key material,
    /// which never passes through an array. The buffer is `SecureBytesPool.shared`'s: the caller
    /// hands it back there when done.
    public static func openSecure(_ frame: [UInt8], key: SecureBytes, associatedData: [UInt8]) throws(CryptoError)
        -> SecureBytes
    {
        guard key.count == keyLength else { throw .invalidLength("key") }
        guard frame.count >= 1 + nonceLength + tagLength, frame[0] == currentVersion else { throw .malformedCiphertext }
        Sodium.ensureInitialized()
        let opened = try SecureBytesPool.shared.take(count: frame.count - 1 - nonceLength - tagLength)
        let status = associatedData.withUnsafeBytes { ad in
            opened.withUnsafeMutableBytes { out in open(frame, key: key, associatedData: ad, into: out) }
        }
        guard status == 0 else {
            SecureBytesPool.shared.recycle(opened)
            throw .authenticationFailed
        }
        return opened
    }

    /// Opens `frame` into `out` (exactly its plaintext's size); libsodium's status.
    private static func open(
        _ frame: [UInt8], key: SecureBytes, associatedData: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer
    ) -> Int32 {
        // The version byte, then the caller's associated data, in a stack buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1 + associatedData.count) { ad in
            ad[0] = frame[0]
            if let source = associatedData.baseAddress {
                (ad.baseAddress! + 1).initialize(from: source.assumingMemoryBound(to: UInt8.self), count: associatedData.count)
            }
            return frame.withUnsafeBytes { f in
                key.withUnsafeBytes { k in
                    var written: UInt64 = 0
                    let nonce = f.baseAddress! + 1
                    return crypto_aead_xchacha20poly1305_ietf_decrypt(
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), &written, nil,
                        (nonce + nonceLength).assumingMemoryBound(to: UInt8.self), UInt64(f.count - 1 - nonceLength),
                        ad.baseAddress, UInt64(ad.count), nonce.assumingMemoryBound(to: UInt8.self),
                        k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
    }

    /// Seals a key under a wrapping key (key wrapping for class keys).
    public static func wrap(_ key: SecureBytes, with wrappingKey: SecureBytes, label: String) throws(CryptoError) -> [UInt8] {
        try key.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] in
            try seal(raw, key: wrappingKey, associatedData: Array("keychaind.wrap.\(label)".utf8))
        }
    }

    /// Opens a wrapped key straight into secure memory.
    public static func unwrap(_ frame: [UInt8], with wrappingKey: SecureBytes, label: String) throws(CryptoError) -> SecureBytes {
        var raw = try open(frame, key: wrappingKey, associatedData: Array("keychaind.wrap.\(label)".utf8))
        return try SecureBytes(consuming: &raw)
    }
}

internal import COpenSSL
internal import KeychainCrypto

extension KeyOperations {
    /// ECDH's or X25519's shared secret Z (for EC, X padded to the field's size), written by
    /// OpenSSL straight into a secure buffer.
    static func sharedSecret(_ key: PKeyHandle, peer: PKeyHandle, cofactor: Bool) throws(CertificateError) -> SecureBytes {
        guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else { throw failure("out of memory") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw failure("the key exchange failed") }
        if cofactor, EVP_PKEY_get_base_id(key.pointer) == EVP_PKEY_EC {
            guard EVP_PKEY_CTX_set_ecdh_cofactor_mode(context, 1) == 1 else { throw failure("the key exchange failed") }
        }
        var length = 0
        guard EVP_PKEY_derive_set_peer(context, peer.pointer) == 1, EVP_PKEY_derive(context, nil, &length) == 1, length > 0
        else { throw failure("the key exchange failed") }
        let secret = try secureBytes(count: length)
        let derived = secret.withUnsafeMutableBytes { buffer in
            var written = buffer.count
            let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return EVP_PKEY_derive(context, base, &written) == 1 && written == buffer.count
        }
        // X25519 refuses a peer key of small order (an all-zero secret) here.
        guard derived else { throw failure("the key exchange failed") }
        return secret
    }

    /// ANSI X9.63's KDF (SEC 1, 3.6.1): SHA-n(Z ‖ counter ‖ sharedInfo) for a 32-bit big-endian
    /// counter from 1, concatenated and cut to `out`'s length: key material, so written block by
    /// block into secure buffers.
    static func x963KDF(
        _ hash: KeyAlgorithm.Hash, secret: SecureBytes, sharedInfo: [UInt8], into out: SecureBytes
    ) throws(CertificateError) {
        guard let context = EVP_MD_CTX_new() else { throw failure("out of memory") }
        defer { EVP_MD_CTX_free(context) }
        let block = try secureBytes(count: hash.length)
        var counter: UInt32 = 1
        var offset = 0
        while offset < out.count {
            let bigEndian = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
            let hashed = secret.withUnsafeBytes { z in
                block.withUnsafeMutableBytes { digest in
                    EVP_DigestInit_ex(context, hash.md, nil) == 1 && EVP_DigestUpdate(context, z.baseAddress, z.count) == 1
                        && EVP_DigestUpdate(context, bigEndian, 4) == 1
                        && EVP_DigestUpdate(context, sharedInfo, sharedInfo.count) == 1
                        && EVP_DigestFinal_ex(context, digest.baseAddress?.assumingMemoryBound(to: UInt8.self), nil) == 1
                }
            }
            guard hashed else { throw failure("the X9.63 KDF failed") }
            let count = min(hash.length, out.count - offset)
            block.withUnsafeBytes { digest in
                out.withUnsafeMutableBytes { derived in
                    guard let target = derived.baseAddress, let source = digest.baseAddress else { return }
                    (target + offset).copyMemory(from: source, byteCount: count)
                }
            }
            offset += count
            counter += 1
        }
    }
}

internal import COpenSSL

extension KeyAlgorithm.Hash {
    /// OpenSSL's digest.
    var md: OpaquePointer {
        switch self {
        case .sha1: EVP_sha1()
        case .sha224: EVP_sha224()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }

    /// The digest of `data`.
    func digest(_ data: [UInt8]) throws(CertificateError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        guard EVP_Digest(data, data.count, &out, &written, md, nil) == 1, Int(written) == length else {
            throw KeyOperations.failure("the digest failed")
        }
        return out
    }
}

extension KeyOperations {
    /// What an ECDSA or RSA signature signs: the digest given (of the hash's length), or the
    /// message's digest.
    private static func signedDigest(_ data: [UInt8], algorithm: KeyAlgorithm) throws(CertificateError) -> (
        KeyAlgorithm.Hash, [UInt8]
    ) {
        guard let hash = algorithm.hash else { throw .malformed("algorithm: \(algorithm.rawValue) names no hash") }
        guard algorithm.takesDigest else { return (hash, try hash.digest(data)) }
        guard data.count == hash.length else {
            throw .malformed("data: \(data.count) bytes, but \(algorithm.rawValue) signs a \(hash.length)-byte digest")
        }
        return (hash, data)
    }

    /// Sets the hash (which PKCS#1 v1.5 wraps in a DigestInfo) and the RSA padding: PSS with a
    /// salt and MGF1 of the hash's length and hash, as Apple's `ccrsa_emsa_pss_encode` call has it.
    private static func configure(
        _ context: OpaquePointer, algorithm: KeyAlgorithm, hash: KeyAlgorithm.Hash
    ) -> Bool {
        guard EVP_PKEY_CTX_set_signature_md(context, hash.md) == 1 else { return false }
        guard algorithm.family == .rsaSignature else { return true }
        guard algorithm.isPSS else { return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1 }
        return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1
            && EVP_PKEY_CTX_set_rsa_pss_saltlen(context, RSA_PSS_SALTLEN_DIGEST) == 1
            && EVP_PKEY_CTX_set_rsa_mgf1_md(context, hash.md) == 1
    }

    static func createSignature(_ data: [UInt8], algorithm: KeyAlgorithm, key: PKeyHandle) throws(CertificateError) -> [UInt8] {
        if algorithm.family == .edDSA { return try edDSASign(data, key: key) }
        let (hash, digest) = try signedDigest(data, algorithm: algorithm)
        if algorithm.isPSS {
            // Apple's bound (SecKeyRSACopyEMSASignature): room for the digest, an equal salt and padding.
            let bits = Int(EVP_PKEY_get_bits(key.pointer))
            guard bits >= 16 * hash.length + 9 else {
                throw .mismatch("algorithm: \(algorithm.rawValue) does not fit a \(bits)-bit rsa key")
            }
        }
        guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else { throw failure("out of memory") }
        defer { EVP_PKEY_CTX_free(context) }
        var length = 0
        guard EVP_PKEY_sign_init(context) == 1, configure(context, algorithm: algorithm, hash: hash),
            EVP_PKEY_sign(context, nil, &length, digest, digest.count) == 1
        else { throw failure("signing with \(algorithm.rawValue) failed") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(context, &signature, &length, digest, digest.count) == 1 else {
            throw failure("signing with \(algorithm.rawValue) failed")
        }
        return Array(signature.prefix(length))
    }

    static func verifySignature(
        _ data: [UInt8], signature: [UInt8], algorithm: KeyAlgorithm, key: PKeyHandle
    ) throws(CertificateError) -> Bool {
        if algorithm.family == .edDSA { return try edDSAVerify(data, signature: signature, key: key) }
        let (hash, digest) = try signedDigest(data, algorithm: algorithm)
        guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else { throw failure("out of memory") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_verify_init(context) == 1, configure(context, algorithm: algorithm, hash: hash) else {
            throw failure("verifying with \(algorithm.rawValue) failed")
        }
        // 0 for a signature that does not verify, below 0 for one OpenSSL cannot read: both false.
        let verified = EVP_PKEY_verify(context, signature, signature.count, digest, digest.count) == 1
        ERR_clear_error()
        return verified
    }

    // MARK: Ed25519

    /// PureEdDSA (RFC 8032): the message itself, hashed by EdDSA with SHA-512; 64 bytes.
    private static func edDSASign(_ message: [UInt8], key: PKeyHandle) throws(CertificateError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw failure("out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = signature.count
        guard EVP_DigestSignInit(context, nil, nil, nil, key.pointer) == 1,
            EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64
        else { throw failure("signing with Ed25519 failed") }
        return signature
    }

    private static func edDSAVerify(_ message: [UInt8], signature: [UInt8], key: PKeyHandle) throws(CertificateError) -> Bool {
        guard let context = EVP_MD_CTX_new() else { throw failure("out of memory") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key.pointer) == 1 else {
            throw failure("verifying with Ed25519 failed")
        }
        let verified = EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        ERR_clear_error()
        return verified
    }
}

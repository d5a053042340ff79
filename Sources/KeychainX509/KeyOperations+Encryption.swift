internal import COpenSSL
internal import KeychainCrypto

extension KeyOperations {
    /// The one answer to a ciphertext that does not decrypt, whatever failed: a padding or tag
    /// check told apart would be an oracle.
    static var undecryptable: CertificateError { failure("the ciphertext does not decrypt with this key") }

    // MARK: RSA

    /// The modulus's bytes and the most plaintext it takes with `algorithm`'s padding (PKCS#1
    /// v1.5: 11 bytes of padding; OAEP: two hashes and 2 bytes). An algorithm that leaves no room
    /// does not fit the key, as in Apple's `SecKeyRSACopyEncryptedWithPadding`.
    private static func rsaCapacity(_ key: PKeyHandle, algorithm: KeyAlgorithm) throws(CertificateError) -> (Int, Int) {
        let size = Int(EVP_PKEY_get_size(key.pointer))
        let overhead = algorithm.hash.map { 2 * $0.length + 2 } ?? 11
        guard size >= overhead else {
            throw .mismatch("algorithm: \(algorithm.rawValue) does not fit a \(EVP_PKEY_get_bits(key.pointer))-bit rsa key")
        }
        return (size, size - overhead)
    }

    private static func configureRSA(_ context: OpaquePointer, algorithm: KeyAlgorithm) -> Bool {
        guard let hash = algorithm.hash else { return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1 }
        return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1
            && EVP_PKEY_CTX_set_rsa_oaep_md(context, hash.md) == 1 && EVP_PKEY_CTX_set_rsa_mgf1_md(context, hash.md) == 1
    }

    static func rsaEncrypt(_ plaintext: [UInt8], algorithm: KeyAlgorithm, key: PKeyHandle) throws(CertificateError) -> [UInt8] {
        let (size, capacity) = try rsaCapacity(key, algorithm: algorithm)
        guard plaintext.count <= capacity else {
            throw .malformed("data: \(plaintext.count) bytes, but \(algorithm.rawValue) with this key takes at most \(capacity)")
        }
        guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else { throw failure("out of memory") }
        defer { EVP_PKEY_CTX_free(context) }
        var ciphertext = [UInt8](repeating: 0, count: size)
        var length = size
        guard EVP_PKEY_encrypt_init(context) == 1, configureRSA(context, algorithm: algorithm),
            EVP_PKEY_encrypt(context, &ciphertext, &length, plaintext, plaintext.count) == 1, length == size
        else { throw failure("encrypting with \(algorithm.rawValue) failed") }
        return ciphertext
    }

    static func rsaDecrypt(_ ciphertext: [UInt8], algorithm: KeyAlgorithm, key: PKeyHandle) throws(CertificateError) -> [UInt8] {
        let (size, _) = try rsaCapacity(key, algorithm: algorithm)
        guard ciphertext.count == size, let context = EVP_PKEY_CTX_new(key.pointer, nil) else { throw undecryptable }
        defer { EVP_PKEY_CTX_free(context) }
        var plaintext = [UInt8](repeating: 0, count: size)
        var length = size
        guard EVP_PKEY_decrypt_init(context) == 1, configureRSA(context, algorithm: algorithm),
            EVP_PKEY_decrypt(context, &plaintext, &length, ciphertext, ciphertext.count) == 1, length <= size
        else { throw undecryptable }
        return Array(plaintext.prefix(length))
    }

    // MARK: ECIES

    /// GCM's tag, and the IV Apple's VariableIV algorithms take from the KDF after the AES key.
    private static let tagLength = 16
    private static let ivLength = 16

    private static func eciesHash(_ algorithm: KeyAlgorithm) throws(CertificateError) -> KeyAlgorithm.Hash {
        guard let hash = algorithm.hash else { throw .malformed("algorithm: \(algorithm.rawValue) names no hash") }
        return hash
    }

    /// The AES key's length for a recipient whose public key has `publicLength` bytes: Apple
    /// takes (length − 1) / 2 bytes as the curve's size, and AES-128 up to 256 bits, else AES-256
    /// (`SecKeyECIESKeyExchangeKDFX963CopyResult`; so 16 bytes for X25519's 32-byte key).
    private static func aesKeyLength(publicLength: Int) -> Int { (publicLength - 1) / 2 * 8 > 256 ? 32 : 16 }

    static func eciesEncrypt(
        _ plaintext: [UInt8], algorithm: KeyAlgorithm, recipient: PKeyHandle, type: KeyMaterial.Algorithm
    ) throws(CertificateError) -> [UInt8] {
        let hash = try eciesHash(algorithm)
        let recipientPublic = try publicExternal(recipient, type: type)
        let ephemeral = try newKey(type, bits: type == .ec ? try curve(of: recipient).bits : 256)
        let ephemeralPublic = try publicExternal(ephemeral, type: type)
        let secret = try sharedSecret(ephemeral, peer: recipient, cofactor: algorithm.usesCofactor)
        let keyLength = aesKeyLength(publicLength: recipientPublic.count)
        let keyAndIV = try secureBytes(count: keyLength + ivLength)
        try x963KDF(hash, secret: secret, sharedInfo: ephemeralPublic, into: keyAndIV)
        var body = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagLength)
        let sealed = keyAndIV.withUnsafeBytes { keyAndIV in
            gcm(encrypting: true, keyAndIV: keyAndIV, keyLength: keyLength, input: plaintext, output: &body, tag: &tag)
        }
        guard sealed else { throw failure("AES-GCM encryption failed") }
        return ephemeralPublic + body + tag
    }

    static func eciesDecrypt(
        _ ciphertext: [UInt8], algorithm: KeyAlgorithm, key: PKeyHandle, type: KeyMaterial.Algorithm
    ) throws(CertificateError) -> [UInt8] {
        let hash = try eciesHash(algorithm)
        let ownPublic = try publicExternal(key, type: type)
        // The ephemeral key has the recipient's curve, so its public key the recipient's length.
        let ephemeralLength = ownPublic.count
        guard ciphertext.count >= ephemeralLength + tagLength else { throw undecryptable }
        let ephemeralPublic = Array(ciphertext.prefix(ephemeralLength))
        let secret: SecureBytes
        do {
            secret = try sharedSecret(key, peer: try loadPublic(ephemeralPublic, type: type), cofactor: algorithm.usesCofactor)
        } catch {
            throw undecryptable
        }
        let keyLength = aesKeyLength(publicLength: ownPublic.count)
        let keyAndIV = try secureBytes(count: keyLength + ivLength)
        try x963KDF(hash, secret: secret, sharedInfo: ephemeralPublic, into: keyAndIV)
        let body = Array(ciphertext[ephemeralLength..<(ciphertext.count - tagLength)])
        var tag = Array(ciphertext.suffix(tagLength))
        var plaintext = [UInt8](repeating: 0, count: body.count)
        let opened = keyAndIV.withUnsafeBytes { keyAndIV in
            gcm(encrypting: false, keyAndIV: keyAndIV, keyLength: keyLength, input: body, output: &plaintext, tag: &tag)
        }
        guard opened else { throw undecryptable }
        return plaintext
    }

    /// AES-GCM with the key and the 16-byte IV that follows it in `keyAndIV`, no associated
    /// data, a 16-byte tag: written to `tag` when encrypting, checked against it when decrypting.
    private static func gcm(
        encrypting: Bool, keyAndIV: UnsafeRawBufferPointer, keyLength: Int, input: [UInt8], output: inout [UInt8],
        tag: inout [UInt8]
    ) -> Bool {
        guard input.count <= Int32.max, let context = EVP_CIPHER_CTX_new(),
            let base = keyAndIV.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return false }
        defer {
            EVP_CIPHER_CTX_free(context)
            ERR_clear_error()
        }
        let cipher = keyLength == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm()
        let direction: Int32 = encrypting ? 1 : 0
        var written: Int32 = 0
        var finalLength: Int32 = 0
        guard EVP_CipherInit_ex(context, cipher, nil, nil, nil, direction) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(ivLength), nil) == 1,
            EVP_CipherInit_ex(context, nil, nil, base, base + keyLength, direction) == 1,
            EVP_CipherUpdate(context, &output, &written, input, Int32(input.count)) == 1, Int(written) == input.count
        else { return false }
        if encrypting {
            return EVP_CipherFinal_ex(context, &output, &finalLength) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &tag) == 1
        }
        return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1
            && EVP_CipherFinal_ex(context, &output, &finalLength) == 1
    }
}

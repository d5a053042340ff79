internal import COpenSSL
internal import KeychainCrypto

// Where a private key is in clear. Our side: `SecureBytes` only (sodium_malloc, mlocked, zeroed
// when freed), which OpenSSL reads from and writes into directly. OpenSSL's side, once
// `SecureHeap.ready` has run: RSA's private BIGNUMs, EC's scalar and a generated 25519 key in its
// secure heap (mlocked, cleared on free); a 25519 key read from our bytes in its ordinary heap
// (OpenSSL 3.0's EVP_PKEY_new_raw_private_key copies it there), cleared when the key is freed; and
// OpenSSL's temporaries: the RSA encoder's buffer, cleared on free, and the copy of an
// RSAPrivateKey that OpenSSL 3.0's DER decoder (der2key_decode) reads into and frees uncleared.

/// OpenSSL's secure heap, started once before the first private key reaches OpenSSL.
enum SecureHeap {
    /// 2 MiB in OpenSSL's buddy allocator (16-byte minimum): an RSA-4096 private key and its
    /// Montgomery contexts take a few KiB, so a few hundred keys in use at once. Where the
    /// memory cannot be locked (`RLIMIT_MEMLOCK`), OpenSSL still guards it and clears it on free.
    static let ready: Bool = {
        if CRYPTO_secure_malloc_initialized() == 1 { return true }
        return CRYPTO_secure_malloc_init(2 << 20, 16) != 0
    }()
}

/// A curve the keychain holds: OpenSSL's name and NID, the field's size in bytes (X9.63's
/// padding of X, Y and K) and its size in bits (`kSecAttrKeySizeInBits`).
struct NamedCurve {
    let name: String
    let nid: Int32
    let bytes: Int
    var bits: Int { bytes == 66 ? 521 : bytes * 8 }

    static let all = [
        NamedCurve(name: "prime256v1", nid: NID_X9_62_prime256v1, bytes: 32),
        NamedCurve(name: "secp384r1", nid: NID_secp384r1, bytes: 48),
        NamedCurve(name: "secp521r1", nid: NID_secp521r1, bytes: 66),
    ]
}

extension KeyOperations {
    /// A zeroed secure buffer, with the module's error.
    static func secureBytes(count: Int) throws(CertificateError) -> SecureBytes {
        do { return try SecureBytes(count: count) } catch { throw .malformed("out of secure memory") }
    }

    /// OpenSSL's failure as the module's error, its error queue cleared (whose text could
    /// describe the input).
    static func failure(_ message: String) -> CertificateError {
        ERR_clear_error()
        return .malformed(message)
    }

    // MARK: Reading keys

    /// The public key `bytes` holds in Apple's external representation, checked by `KeyMaterial`.
    static func loadPublic(_ bytes: [UInt8], type: KeyMaterial.Algorithm) throws(CertificateError) -> PKeyHandle {
        try PKeyHandle.make(try ImportedKey(bytes, algorithm: type, role: .public))
    }

    /// The private key `key` holds in Apple's external representation, read into OpenSSL
    /// straight from the secure buffer.
    static func loadPrivate(_ key: SecureBytes, type: KeyMaterial.Algorithm) throws(CertificateError) -> PKeyHandle {
        _ = SecureHeap.ready
        return try key.withUnsafeBytes { (raw) throws(CertificateError) -> PKeyHandle in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count > 0 else {
                throw .malformed("empty")
            }
            let bytes = UnsafeBufferPointer(start: base, count: raw.count)
            switch type {
            case .rsa: return try rsaPrivate(bytes)
            case .ec: return try ecPrivate(bytes)
            case .ed25519, .x25519:
                guard bytes.count == 32 else { throw .malformed("a 25519 key has 32 bytes") }
                let made = EVP_PKEY_new_raw_private_key(type == .ed25519 ? EVP_PKEY_ED25519 : EVP_PKEY_X25519, nil, base, 32)
                guard let made else { throw failure("not a 25519 private key") }
                return PKeyHandle(owning: made)
            case .aes:
                throw .mismatch("an AES key is symmetric: it has no private key")
            }
        }
    }

    /// A PKCS#1 RSAPrivateKey: its private BIGNUMs are decoded into OpenSSL's secure heap
    /// (ASN.1's sensitive BIGNUM type).
    private static func rsaPrivate(_ bytes: UnsafeBufferPointer<UInt8>) throws(CertificateError) -> PKeyHandle {
        // PKCS#1 only (d2i_PrivateKey also reads PKCS#8): SEQUENCE { INTEGER 0, INTEGER n, … },
        // where a PrivateKeyInfo's second element is a SEQUENCE.
        let header = bytes.count > 1 && bytes[1] & 0x80 != 0 ? 2 + Int(bytes[1] & 0x7F) : 2
        guard bytes.count > header + 4, bytes[0] == DER.sequence,
            Array(bytes[header..<(header + 4)]) == [DER.integer, 0x01, 0x00, DER.integer]
        else { throw .malformed("not a PKCS#1 RSAPrivateKey") }
        var cursor: UnsafePointer<UInt8>? = UnsafePointer(bytes.baseAddress)
        guard let parsed = d2i_PrivateKey(EVP_PKEY_RSA, nil, &cursor, bytes.count) else {
            throw failure("not a PKCS#1 RSAPrivateKey")
        }
        let key = PKeyHandle(owning: parsed)
        guard let cursor, let start = bytes.baseAddress, cursor - UnsafePointer(start) == bytes.count else {
            throw .malformed("bytes after the key")
        }
        let bits = Int(EVP_PKEY_get_bits(key.pointer))
        guard bits >= 512, bits <= 16384 else { throw .malformed("an RSA modulus of \(bits) bits") }
        return key
    }

    /// X9.63 `04‖X‖Y‖K`: K enters OpenSSL as a parameter that its EC key manager reads into a
    /// secure BIGNUM, and must be in 1..<n. That K times the generator is the point was checked
    /// when the key was added (`KeyMaterial`), and its seal has authenticated the bytes since.
    private static func ecPrivate(_ bytes: UnsafeBufferPointer<UInt8>) throws(CertificateError) -> PKeyHandle {
        guard bytes[0] == 0x04, let curve = NamedCurve.all.first(where: { 1 + 3 * $0.bytes == bytes.count }),
            let base = bytes.baseAddress
        else { throw .malformed("not an uncompressed X9.63 P-256, P-384 or P-521 private key") }
        let pointLength = 1 + 2 * curve.bytes
        // OSSL_PARAM's integers are in the machine's byte order.
        let scalar = try secureBytes(count: curve.bytes)
        scalar.withUnsafeMutableBytes { native in
            for index in 0..<curve.bytes {
                let source = pointLength + (isLittleEndian ? curve.bytes - 1 - index : index)
                native[index] = bytes[source]
            }
        }
        let made: OpaquePointer? = scalar.withUnsafeMutableBytes { native in
            withCStrings([OSSL_PKEY_PARAM_GROUP_NAME, curve.name, OSSL_PKEY_PARAM_PUB_KEY, OSSL_PKEY_PARAM_PRIV_KEY]) { names in
                var params = [
                    OSSL_PARAM_construct_utf8_string(names[0], UnsafeMutablePointer(mutating: names[1]), 0),
                    OSSL_PARAM_construct_octet_string(names[2], UnsafeMutableRawPointer(mutating: base), pointLength),
                    OSSL_PARAM_construct_BN(names[3], native.baseAddress?.assumingMemoryBound(to: UInt8.self), native.count),
                    OSSL_PARAM_construct_end(),
                ]
                guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
                defer { EVP_PKEY_CTX_free(context) }
                var made: OpaquePointer?
                guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &made, keyPairSelection, &params) == 1
                else { return nil }
                return made
            }
        }
        guard let made else { throw failure("a point that is not on the curve") }
        let key = PKeyHandle(owning: made)
        guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else { throw failure("out of memory") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_private_check(context) == 1 else { throw failure("a private scalar out of range") }
        return key
    }

    /// EVP_PKEY_KEYPAIR, a macro Swift does not import: the private and public key and the
    /// domain and other parameters.
    private static let keyPairSelection = Int32(
        OSSL_KEYMGMT_SELECT_PRIVATE_KEY | OSSL_KEYMGMT_SELECT_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS
            | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS)

    private static let isLittleEndian = 1.littleEndian == 1

    /// Calls `body` with C strings that live through the call: an OSSL_PARAM keeps the pointers
    /// to its name and string value, which a Swift string's temporary pointer would not outlive.
    private static func withCStrings<R>(
        _ strings: [String], _ made: [UnsafePointer<CChar>] = [], _ body: ([UnsafePointer<CChar>]) -> R
    ) -> R {
        guard let first = strings.first else { return body(made) }
        return first.withCString { withCStrings(Array(strings.dropFirst()), made + [$0], body) }
    }

    // MARK: New keys

    /// A new key pair of `type` (`bits` already checked), made by OpenSSL in its secure heap.
    static func newKey(_ type: KeyMaterial.Algorithm, bits: Int) throws(CertificateError) -> PKeyHandle {
        _ = SecureHeap.ready
        let id: Int32
        switch type {
        case .rsa: id = EVP_PKEY_RSA
        case .ec: id = EVP_PKEY_EC
        case .ed25519: id = EVP_PKEY_ED25519
        case .x25519: id = EVP_PKEY_X25519
        case .aes: throw .mismatch("an AES key is symmetric: it has no key pair")
        }
        guard let context = EVP_PKEY_CTX_new_id(id, nil) else { throw failure("out of memory") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw failure("key generation failed") }
        switch type {
        case .rsa:
            guard EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1 else { throw failure("key generation failed") }
        case .ec:
            guard let curve = NamedCurve.all.first(where: { $0.bits == bits }),
                EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, curve.nid) == 1
            else { throw failure("key generation failed") }
        default:
            break
        }
        var made: OpaquePointer?
        guard EVP_PKEY_keygen(context, &made) == 1, let made else { throw failure("key generation failed") }
        return PKeyHandle(owning: made)
    }

    // MARK: Writing keys

    /// The private key in Apple's external representation, written by OpenSSL straight into a
    /// secure buffer of its size.
    static func privateExternal(_ key: PKeyHandle, type: KeyMaterial.Algorithm) throws(CertificateError) -> SecureBytes {
        switch type {
        case .rsa:
            // The first call sizes the encoding, the second writes it into the buffer given;
            // OpenSSL's encoder clears its own buffer when it frees it.
            let length = Int(i2d_PrivateKey(key.pointer, nil))
            guard length > 0 else { throw failure("an RSA key OpenSSL does not write as PKCS#1") }
            let out = try secureBytes(count: length)
            let written = out.withUnsafeMutableBytes { buffer in
                var cursor = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
                return Int(i2d_PrivateKey(key.pointer, &cursor))
            }
            guard written == length else { throw failure("an RSA key OpenSSL does not write as PKCS#1") }
            return out
        case .ec:
            let curve = try curve(of: key)
            let pointLength = 1 + 2 * curve.bytes
            let out = try secureBytes(count: pointLength + curve.bytes)
            let written = out.withUnsafeMutableBytes { buffer -> Bool in
                guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
                var length = 0
                guard EVP_PKEY_get_octet_string_param(key.pointer, OSSL_PKEY_PARAM_PUB_KEY, base, pointLength, &length) == 1,
                    length == pointLength, base[0] == 0x04
                else { return false }
                // K padded to the field, in the machine's byte order, then turned big-endian in place.
                let scalar = base + pointLength
                let got = OSSL_PKEY_PARAM_PRIV_KEY.withCString { name in
                    var params = [OSSL_PARAM_construct_BN(name, scalar, curve.bytes), OSSL_PARAM_construct_end()]
                    return EVP_PKEY_get_params(key.pointer, &params) == 1 && params[0].return_size == curve.bytes
                }
                guard got else { return false }
                var bigEndian = UnsafeMutableBufferPointer(start: scalar, count: curve.bytes)
                if isLittleEndian { bigEndian.reverse() }
                return true
            }
            guard written else { throw failure("an EC key without its scalar and point") }
            return out
        case .ed25519, .x25519:
            let out = try secureBytes(count: 32)
            let written = out.withUnsafeMutableBytes { buffer in
                var length = 32
                let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
                return EVP_PKEY_get_raw_private_key(key.pointer, base, &length) == 1 && length == 32
            }
            guard written else { throw failure("a 25519 key without its 32 raw bytes") }
            return out
        case .aes:
            throw .mismatch("an AES key is symmetric: it has no private key")
        }
    }

    /// The public key in Apple's external representation: PKCS#1 RSAPublicKey, `04‖X‖Y`, or the
    /// 32 raw bytes.
    static func publicExternal(_ key: PKeyHandle, type: KeyMaterial.Algorithm) throws(CertificateError) -> [UInt8] {
        switch type {
        case .rsa:
            guard let der = I2D.encode(secret: false, { i2d_PublicKey(key.pointer, $0) }) else {
                throw .malformed("an RSA key OpenSSL does not write as PKCS#1")
            }
            return der
        case .ec:
            let pointLength = 1 + 2 * (try curve(of: key)).bytes
            var point = [UInt8](repeating: 0, count: pointLength)
            var length = 0
            guard EVP_PKEY_get_octet_string_param(key.pointer, OSSL_PKEY_PARAM_PUB_KEY, &point, pointLength, &length) == 1,
                length == pointLength, point[0] == 0x04
            else { throw failure("an EC key without its point") }
            return point
        case .ed25519, .x25519:
            var raw = [UInt8](repeating: 0, count: 32)
            var length = 32
            guard EVP_PKEY_get_raw_public_key(key.pointer, &raw, &length) == 1, length == 32 else {
                throw failure("a 25519 key without its 32 raw bytes")
            }
            return raw
        case .aes:
            throw .mismatch("an AES key is symmetric: it has no public key")
        }
    }

    /// The curve an EC key is on, by its size.
    static func curve(of key: PKeyHandle) throws(CertificateError) -> NamedCurve {
        let bits = Int(EVP_PKEY_get_bits(key.pointer))
        guard let curve = NamedCurve.all.first(where: { $0.bits == bits }) else {
            throw .malformed("an EC key on a curve the keychain does not hold (P-256, P-384, P-521)")
        }
        return curve
    }
}

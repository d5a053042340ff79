internal import COpenSSL

/// A key in Apple's external representation (`SecKeyCopyExternalRepresentation`), checked
/// against the type and class it is said to be, with what the keychain derives from it.
///
/// - RSA: PKCS#1 DER, `RSAPublicKey` or `RSAPrivateKey` (the private key's version 0).
/// - EC (P-256, P-384, P-521): ANSI X9.63, `04‖X‖Y` public, `04‖X‖Y‖K` private; the point must
///   be on the curve and, for a private key, be K times the generator.
/// - Ed25519, X25519: 32 raw bytes, public or private (the private key as CryptoKit's
///   `rawRepresentation`: Ed25519's 32-byte seed, X25519's 32-byte scalar).
/// - AES (symmetric): 16, 24 or 32 raw bytes.
///
/// Parsing is OpenSSL's libcrypto over untrusted bytes, bounded by `maxBytes`; every failure
/// is a `CertificateError` (the module's one error type), whose message never quotes the bytes.
public struct KeyMaterial: Sendable {
    /// The most bytes a key may have: an RSA-16384 private key is under 10 KiB.
    public static let maxBytes = 16 * 1024

    public enum Algorithm: String, Sendable, CaseIterable {
        case rsa, ec, ed25519, x25519, aes
    }

    public enum Role: String, Sendable, CaseIterable {
        case `public`, `private`, symmetric
    }

    public let algorithm: Algorithm
    public let role: Role
    /// `kSecAttrKeySizeInBits` and `kSecAttrEffectiveKeySize`, as Apple gives them: the RSA
    /// modulus's bits, the EC curve's bits (521 for P-521), 256 for Ed25519 and X25519, and
    /// the AES key's bits.
    public let sizeInBits: Int
    /// `SecKeyCopyPublicKeyHash`: SHA-1 of the public key's external representation (the
    /// PKCS#1 `RSAPublicKey` DER, the X9.63 point, the raw 25519 key), which is also SHA-1 of
    /// a certificate's subjectPublicKey bits for the same key (`Certificate.publicKeyHash`).
    /// `nil` for a symmetric key.
    public let publicKeyHash: [UInt8]?

    /// Checks `bytes` as a key of `algorithm` and `role`.
    public init(_ bytes: [UInt8], algorithm: Algorithm, role: Role) throws(CertificateError) {
        guard bytes.count <= Self.maxBytes else { throw .malformed("more than \(Self.maxBytes) bytes") }
        guard !bytes.isEmpty else { throw .malformed("empty") }
        self.algorithm = algorithm
        self.role = role
        switch (algorithm, role) {
        case (.aes, .symmetric):
            guard [16, 24, 32].contains(bytes.count) else { throw .malformed("an AES key has 16, 24 or 32 bytes") }
            sizeInBits = bytes.count * 8
            publicKeyHash = nil
        case (.aes, _), (_, .symmetric):
            throw .mismatch("a symmetric key is an AES key, and an AES key is symmetric")
        case (.rsa, _):
            let (bits, publicDER) = try Self.rsa(bytes, isPrivate: role == .private)
            sizeInBits = bits
            publicKeyHash = Fingerprint.sha1(publicDER)
        case (.ec, _):
            let (bits, point) = try Self.ec(bytes, isPrivate: role == .private)
            sizeInBits = bits
            publicKeyHash = Fingerprint.sha1(point)
        case (.ed25519, _), (.x25519, _):
            guard bytes.count == 32 else { throw .malformed("a 25519 key has 32 bytes") }
            sizeInBits = 256
            let publicKey = role == .public ? bytes : try Self.rawPublicKey(ofPrivate: bytes, ed: algorithm == .ed25519)
            publicKeyHash = Fingerprint.sha1(publicKey)
        }
    }

    /// The RSA and EC (type, class) pairs `bytes` parse as, other than the given one: what a
    /// mismatch names. Raw keys (25519, AES) are left out: any 32 bytes are one, so their
    /// parsing says nothing of what the bytes were meant to be.
    public static func alternatives(of bytes: [UInt8], besides algorithm: Algorithm, _ role: Role) -> [(Algorithm, Role)] {
        var found: [(Algorithm, Role)] = []
        for other in [Algorithm.rsa, .ec] {
            for otherRole in Role.allCases where (other, otherRole) != (algorithm, role) {
                if (try? KeyMaterial(bytes, algorithm: other, role: otherRole)) != nil { found.append((other, otherRole)) }
            }
        }
        return found
    }

    // MARK: RSA

    /// The modulus's bits and the public key's PKCS#1 DER.
    private static func rsa(_ bytes: [UInt8], isPrivate: Bool) throws(CertificateError) -> (Int, [UInt8]) {
        // PKCS#1 only: an RSAPrivateKey's second element is the modulus INTEGER (PKCS#8's is a
        // SEQUENCE), an RSAPublicKey has exactly two INTEGERs (SubjectPublicKeyInfo's first is a SEQUENCE).
        guard let outer = DER.element(bytes, at: 0, limit: bytes.count), outer.tag == DER.sequence, outer.end == bytes.count,
            let parts = DER.children(bytes, of: outer.content), parts.allSatisfy({ $0.tag == DER.integer }),
            parts.count == (isPrivate ? 9 : 2)
        else { throw .malformed(isPrivate ? "not a PKCS#1 RSAPrivateKey" : "not a PKCS#1 RSAPublicKey") }
        let key = try EVPKey(bytes, type: EVP_PKEY_RSA, isPrivate: isPrivate)
        let bits = Int(EVP_PKEY_get_bits(key.pointer))
        guard bits >= 512, bits <= 16384 else { throw .malformed("an RSA modulus of \(bits) bits") }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PublicKey(key.pointer, &out)
        guard length > 0, let out else { throw .malformed("an RSA key without a public part") }
        defer { CRYPTO_free(out, #fileID, #line) }
        return (bits, Array(UnsafeBufferPointer(start: out, count: Int(length))))
    }

    // MARK: EC

    /// The curve's bits and the public point `04‖X‖Y`.
    private static func ec(_ bytes: [UInt8], isPrivate: Bool) throws(CertificateError) -> (Int, [UInt8]) {
        let curves: [(nid: Int32, bytes: Int)] = [(NID_X9_62_prime256v1, 32), (NID_secp384r1, 48), (NID_secp521r1, 66)]
        guard bytes.first == 0x04,
            let curve = curves.first(where: { 1 + ($0.bytes * (isPrivate ? 3 : 2)) == bytes.count })
        else { throw .malformed("not an uncompressed X9.63 P-256, P-384 or P-521 key") }
        guard let group = EC_GROUP_new_by_curve_name(curve.nid) else { throw .malformed("an unknown curve") }
        defer { EC_GROUP_free(group) }
        guard let point = EC_POINT_new(group), let context = BN_CTX_new() else { throw .malformed("out of memory") }
        defer {
            EC_POINT_free(point)
            BN_CTX_free(context)
        }
        let pointBytes = Array(bytes[0..<(1 + 2 * curve.bytes)])
        // oct2point refuses a point that is not on the curve.
        guard EC_POINT_oct2point(group, point, pointBytes, pointBytes.count, context) == 1 else {
            ERR_clear_error()
            throw .malformed("a point that is not on the curve")
        }
        if isPrivate {
            let scalarBytes = Array(bytes[(1 + 2 * curve.bytes)...])
            guard let scalar = BN_bin2bn(scalarBytes, Int32(scalarBytes.count), nil), let derived = EC_POINT_new(group) else {
                throw .malformed("out of memory")
            }
            defer {
                BN_clear_free(scalar)
                EC_POINT_free(derived)
            }
            guard BN_is_zero(scalar) == 0, let order = EC_GROUP_get0_order(group), BN_cmp(scalar, order) < 0,
                EC_POINT_mul(group, derived, scalar, nil, nil, context) == 1,
                EC_POINT_cmp(group, derived, point, context) == 0
            else {
                ERR_clear_error()
                throw .malformed("a private scalar that does not give the public point")
            }
        }
        return (Int(EC_GROUP_get_degree(group)), pointBytes)
    }

    // MARK: 25519

    private static func rawPublicKey(ofPrivate bytes: [UInt8], ed: Bool) throws(CertificateError) -> [UInt8] {
        guard let key = EVP_PKEY_new_raw_private_key(ed ? EVP_PKEY_ED25519 : EVP_PKEY_X25519, nil, bytes, bytes.count) else {
            ERR_clear_error()
            throw .malformed("not a 25519 private key")
        }
        defer { EVP_PKEY_free(key) }
        var publicKey = [UInt8](repeating: 0, count: 32)
        var length = publicKey.count
        guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1, length == 32 else {
            ERR_clear_error()
            throw .malformed("not a 25519 private key")
        }
        return publicKey
    }
}

/// Owns one parsed `EVP_PKEY` and frees it.
private final class EVPKey {
    let pointer: OpaquePointer

    init(_ der: [UInt8], type: Int32, isPrivate: Bool) throws(CertificateError) {
        let outcome = D2I.parse(
            der, { isPrivate ? d2i_PrivateKey(type, nil, $0, $1) : d2i_PublicKey(type, nil, $0, $1) }, free: EVP_PKEY_free)
        switch outcome {
        case .parsed(let parsed): pointer = parsed
        case .malformed: throw .malformed("not a DER key")
        case .trailing: throw .malformed("bytes after the key")
        }
    }

    deinit { EVP_PKEY_free(pointer) }
}

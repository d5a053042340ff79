internal import COpenSSL

/// Owns one `EVP_PKEY` and frees it: the bridge between the DER forms operators keep keys in
/// (PKCS #8, SEC1, PKCS #1, SubjectPublicKeyInfo), which OpenSSL reads and writes, and Apple's
/// external representation (`ImportedKey`, `KeyMaterial`).
final class PKeyHandle {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// A key's DER form.
    enum Form: CaseIterable {
        /// PKCS #8 `PrivateKeyInfo`, unencrypted (`PRIVATE KEY`): any type.
        case pkcs8
        /// SEC1 `ECPrivateKey` (`EC PRIVATE KEY`).
        case sec1
        /// PKCS #1 `RSAPrivateKey` (`RSA PRIVATE KEY`).
        case pkcs1Private
        /// X.509 `SubjectPublicKeyInfo` (`PUBLIC KEY`): any type.
        case subjectPublicKeyInfo
        /// PKCS #1 `RSAPublicKey` (`RSA PUBLIC KEY`).
        case pkcs1Public

        var isPrivate: Bool { self == .pkcs8 || self == .sec1 || self == .pkcs1Private }

        var name: String {
            switch self {
            case .pkcs8: "a PKCS #8 PrivateKeyInfo"
            case .sec1: "a SEC1 ECPrivateKey"
            case .pkcs1Private: "a PKCS #1 RSAPrivateKey"
            case .subjectPublicKeyInfo: "a SubjectPublicKeyInfo"
            case .pkcs1Public: "a PKCS #1 RSAPublicKey"
            }
        }
    }

    // MARK: Reading

    /// Parses `der` as `form`: the whole input, one key.
    ///
    /// `d2i_PrivateKey` with a type also reads PKCS #8 (and OpenSSL's decoders are lenient), so
    /// each form's shape is checked first: a `PrivateKeyInfo` is an INTEGER, a SEQUENCE and an
    /// OCTET STRING; an `ECPrivateKey` an INTEGER then an OCTET STRING; an `RSAPrivateKey` nine
    /// INTEGERs (two primes); an `RSAPublicKey` two; a `SubjectPublicKeyInfo` a SEQUENCE and a
    /// BIT STRING.
    static func parse(_ der: [UInt8], as form: Form) throws(CertificateError) -> PKeyHandle {
        let tags = Self.childTags(der)
        let shaped: Bool
        switch form {
        case .pkcs8: shaped = tags.map { $0.count >= 3 && $0[0...2] == [DER.integer, DER.sequence, DER.octetString] } ?? false
        case .subjectPublicKeyInfo: shaped = tags == [DER.sequence, DER.bitString]
        case .sec1: shaped = tags.map { $0.count >= 2 && $0[0] == DER.integer && $0[1] == DER.octetString } ?? false
        case .pkcs1Private: shaped = tags == [UInt8](repeating: DER.integer, count: 9)
        case .pkcs1Public: shaped = tags == [DER.integer, DER.integer]
        }
        guard shaped else { throw .malformed("not \(form.name)") }
        if form == .pkcs8 {
            let info: OpaquePointer
            switch D2I.parse(der, { d2i_PKCS8_PRIV_KEY_INFO(nil, $0, $1) }, free: PKCS8_PRIV_KEY_INFO_free) {
            case .parsed(let parsed): info = parsed
            case .malformed, .trailing: throw .malformed("not \(form.name)")
            }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            return try fromPKCS8(info)
        }
        let outcome: D2I.Outcome
        switch form {
        case .sec1: outcome = D2I.parse(der, { d2i_PrivateKey(EVP_PKEY_EC, nil, $0, $1) }, free: EVP_PKEY_free)
        case .pkcs1Private: outcome = D2I.parse(der, { d2i_PrivateKey(EVP_PKEY_RSA, nil, $0, $1) }, free: EVP_PKEY_free)
        case .pkcs1Public: outcome = D2I.parse(der, { d2i_PublicKey(EVP_PKEY_RSA, nil, $0, $1) }, free: EVP_PKEY_free)
        case .subjectPublicKeyInfo, .pkcs8: outcome = D2I.parse(der, { d2i_PUBKEY(nil, $0, $1) }, free: EVP_PKEY_free)
        }
        guard case .parsed(let parsed) = outcome else { throw .malformed("not \(form.name)") }
        return PKeyHandle(owning: parsed)
    }

    /// The key a decoded `PKCS8_PRIV_KEY_INFO` holds (a PKCS #12 key bag's, a decrypted key's).
    static func fromPKCS8(_ info: OpaquePointer) throws(CertificateError) -> PKeyHandle {
        guard let key = EVP_PKCS82PKEY(info) else {
            ERR_clear_error()
            throw .malformed("a PKCS #8 key of a type or with parameters OpenSSL does not read")
        }
        return PKeyHandle(owning: key)
    }

    /// The tags of the elements of `der`'s one outer SEQUENCE; nil when it is not one SEQUENCE.
    private static func childTags(_ der: [UInt8]) -> [UInt8]? {
        guard let outer = DER.element(der, at: 0, limit: der.count), outer.tag == DER.sequence, outer.end == der.count,
            let children = DER.children(der, of: outer.content)
        else { return nil }
        return children.map(\.tag)
    }

    // MARK: Into Apple's representation

    /// The curves the keychain holds: OpenSSL's group name, X9.63's field size in bytes, and the
    /// DER of the curve's OBJECT IDENTIFIER (RFC 5480).
    private static let curves: [(name: String, bytes: Int, oid: [UInt8])] = [
        ("prime256v1", 32, [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]),
        ("secp384r1", 48, [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]),
        ("secp521r1", 66, [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23]),
    ]
    /// id-ecPublicKey, 1.2.840.10045.2.1 (RFC 5480).
    private static let ecPublicKeyOID: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]

    /// The key in Apple's external representation, its private part when `isPrivate`, checked
    /// by `KeyMaterial`.
    func imported(isPrivate: Bool) throws(CertificateError) -> ImportedKey {
        let role: KeyMaterial.Role = isPrivate ? .private : .public
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_RSA:
            // A PKCS #1 RSAPrivateKey or RSAPublicKey: i2d_PrivateKey writes an RSA key's own structure.
            let encoded = I2D.encode(secret: isPrivate) { isPrivate ? i2d_PrivateKey(pointer, $0) : i2d_PublicKey(pointer, $0) }
            guard let encoded else { throw .malformed("an RSA key OpenSSL does not write as PKCS #1") }
            return try ImportedKey(encoded, algorithm: .rsa, role: role)
        case EVP_PKEY_EC:
            return try ImportedKey(try ecExternal(isPrivate: isPrivate), algorithm: .ec, role: role)
        case EVP_PKEY_ED25519:
            return try ImportedKey(try raw(isPrivate: isPrivate), algorithm: .ed25519, role: role)
        case EVP_PKEY_X25519:
            return try ImportedKey(try raw(isPrivate: isPrivate), algorithm: .x25519, role: role)
        default:
            throw .malformed("a key type the keychain does not hold (RSA, EC P-256, P-384, P-521, Ed25519, X25519)")
        }
    }

    /// `04‖X‖Y`, then K when `isPrivate`, each padded to the field's size: from the key's
    /// parameters, so a point the file held compressed comes out uncompressed.
    private func ecExternal(isPrivate: Bool) throws(CertificateError) -> [UInt8] {
        var text = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &text, text.count, &length) == 1, length < text.count else {
            ERR_clear_error()
            throw .malformed("an EC key without a named curve")
        }
        let name = String(decoding: text.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Explicit parameters may describe a named curve: OpenSSL then knows its name, but the
        // key names no curve (RFC 5480 requires one), so the encoding is checked too.
        text = [CChar](repeating: 0, count: 64)
        guard EVP_PKEY_get_utf8_string_param(pointer, OSSL_PKEY_PARAM_EC_ENCODING, &text, text.count, &length) == 1,
            String(decoding: text.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == OSSL_PKEY_EC_ENCODING_GROUP
        else {
            ERR_clear_error()
            throw .malformed("an EC key with explicit curve parameters: named curves only")
        }
        guard let curve = Self.curves.first(where: { $0.name == name }) else {
            throw .malformed("an EC key on a curve the keychain does not hold (P-256, P-384, P-521)")
        }
        var out: [UInt8] = [0x04]
        for parameter in [OSSL_PKEY_PARAM_EC_PUB_X, OSSL_PKEY_PARAM_EC_PUB_Y] + (isPrivate ? [OSSL_PKEY_PARAM_PRIV_KEY] : []) {
            var number: OpaquePointer?
            guard EVP_PKEY_get_bn_param(pointer, parameter, &number) == 1, let number else {
                ERR_clear_error()
                out.cleanse()
                throw .malformed(isPrivate ? "an EC private key without its scalar and point" : "an EC key without its point")
            }
            defer { BN_clear_free(number) }
            var padded = [UInt8](repeating: 0, count: curve.bytes)
            guard BN_bn2binpad(number, &padded, Int32(curve.bytes)) == Int32(curve.bytes) else {
                out.cleanse()
                throw .malformed("an EC key value longer than its field")
            }
            out += padded
            padded.cleanse()
        }
        return out
    }

    /// A 25519 key's 32 raw bytes.
    private func raw(isPrivate: Bool) throws(CertificateError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        var length = bytes.count
        let status =
            isPrivate
            ? EVP_PKEY_get_raw_private_key(pointer, &bytes, &length) : EVP_PKEY_get_raw_public_key(pointer, &bytes, &length)
        guard status == 1, length == 32 else {
            ERR_clear_error()
            throw .malformed("a 25519 key without its 32 raw bytes")
        }
        return bytes
    }

    // MARK: From Apple's representation

    /// The key `key` holds, for writing as PKCS #8 or SubjectPublicKeyInfo.
    static func make(_ key: ImportedKey) throws(CertificateError) -> PKeyHandle {
        switch (key.algorithm, key.role) {
        case (.aes, _), (_, .symmetric):
            throw .mismatch("a symmetric (AES) key has no PEM, PKCS #8 or PKCS #12 form")
        case (.rsa, let role):
            return try parse(key.external, as: role == .private ? .pkcs1Private : .pkcs1Public)
        case (.ec, let role):
            // SEC1 and SubjectPublicKeyInfo written here, then read by OpenSSL (which checks the point).
            var der = try ecDER(key.external, isPrivate: role == .private)
            defer { der.cleanse() }
            return try parse(der, as: role == .private ? .sec1 : .subjectPublicKeyInfo)
        case (.ed25519, let role), (.x25519, let role):
            let type = key.algorithm == .ed25519 ? EVP_PKEY_ED25519 : EVP_PKEY_X25519
            let made =
                role == .private
                ? EVP_PKEY_new_raw_private_key(type, nil, key.external, key.external.count)
                : EVP_PKEY_new_raw_public_key(type, nil, key.external, key.external.count)
            guard let made else {
                ERR_clear_error()
                throw .malformed("a 25519 key OpenSSL does not take")
            }
            return PKeyHandle(owning: made)
        }
    }

    /// X9.63 bytes (`KeyMaterial`-checked) as a SEC1 ECPrivateKey (RFC 5915: version 1, K, the
    /// curve, the point) or a SubjectPublicKeyInfo (RFC 5480).
    private static func ecDER(_ external: [UInt8], isPrivate: Bool) throws(CertificateError) -> [UInt8] {
        guard let curve = curves.first(where: { 1 + $0.bytes * (isPrivate ? 3 : 2) == external.count }) else {
            throw .malformed("not an X9.63 P-256, P-384 or P-521 key")
        }
        let pointLength = 1 + 2 * curve.bytes
        let point = DER.encode(tag: DER.bitString, [0x00] + external[0..<pointLength])
        guard isPrivate else {
            return DER.encode(tag: DER.sequence, DER.encode(tag: DER.sequence, ecPublicKeyOID + curve.oid) + point)
        }
        var scalar = DER.encode(tag: DER.octetString, Array(external[pointLength...]))
        defer { scalar.cleanse() }
        let version: [UInt8] = [DER.integer, 0x01, 0x01]
        return DER.encode(tag: DER.sequence, version + scalar + DER.encode(tag: 0xA0, curve.oid) + DER.encode(tag: 0xA1, point))
    }

    // MARK: Writing

    /// PKCS #8 `PrivateKeyInfo` DER (unencrypted), which `openssl pkey` and nginx read for every type.
    func pkcs8() throws(CertificateError) -> [UInt8] {
        guard let info = EVP_PKEY2PKCS8(pointer) else {
            ERR_clear_error()
            throw .malformed("a key OpenSSL does not write as PKCS #8")
        }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        guard let der = I2D.encode(secret: true, { i2d_PKCS8_PRIV_KEY_INFO(info, $0) }) else {
            throw .malformed("a key OpenSSL does not write as PKCS #8")
        }
        return der
    }

    /// `SubjectPublicKeyInfo` DER.
    func subjectPublicKeyInfo() throws(CertificateError) -> [UInt8] {
        guard let der = I2D.encode(secret: false, { i2d_PUBKEY(pointer, $0) }) else {
            throw .malformed("a key OpenSSL does not write as a SubjectPublicKeyInfo")
        }
        return der
    }
}

extension Array where Element == UInt8 {
    /// Overwrites the bytes with zeros (OpenSSL's `OPENSSL_cleanse`, which the compiler may not
    /// drop): a best effort for key bytes, since Swift may have copied them before.
    mutating func cleanse() {
        withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
        }
    }
}

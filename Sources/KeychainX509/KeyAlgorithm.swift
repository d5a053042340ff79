/// Apple's SecKeyAlgorithm, named as Apple names it without the `kSecKeyAlgorithm` prefix and
/// with its first letter lowercased (rawValue is that name).
///
/// The algorithms `KeyOperations` performs: what Apple's `SecKeyAdaptors.m` builds on its RSA,
/// EC and 25519 keys, less the raw, MD5, RFC 4754, legacy fixed-IV ECIES and post-quantum ones.
public enum KeyAlgorithm: String, Sendable, CaseIterable {
    case ecdsaSignatureDigestX962SHA1, ecdsaSignatureDigestX962SHA224, ecdsaSignatureDigestX962SHA256
    case ecdsaSignatureDigestX962SHA384, ecdsaSignatureDigestX962SHA512
    case ecdsaSignatureMessageX962SHA1, ecdsaSignatureMessageX962SHA224, ecdsaSignatureMessageX962SHA256
    case ecdsaSignatureMessageX962SHA384, ecdsaSignatureMessageX962SHA512
    case rsaSignatureDigestPKCS1v15SHA1, rsaSignatureDigestPKCS1v15SHA224, rsaSignatureDigestPKCS1v15SHA256
    case rsaSignatureDigestPKCS1v15SHA384, rsaSignatureDigestPKCS1v15SHA512
    case rsaSignatureMessagePKCS1v15SHA1, rsaSignatureMessagePKCS1v15SHA224, rsaSignatureMessagePKCS1v15SHA256
    case rsaSignatureMessagePKCS1v15SHA384, rsaSignatureMessagePKCS1v15SHA512
    case rsaSignatureDigestPSSSHA1, rsaSignatureDigestPSSSHA224, rsaSignatureDigestPSSSHA256
    case rsaSignatureDigestPSSSHA384, rsaSignatureDigestPSSSHA512
    case rsaSignatureMessagePSSSHA1, rsaSignatureMessagePSSSHA224, rsaSignatureMessagePSSSHA256
    case rsaSignatureMessagePSSSHA384, rsaSignatureMessagePSSSHA512
    /// Ed25519 (RFC 8032 PureEdDSA over the message): Apple's name for it.
    case edDSASignatureMessageCurve25519SHA512
    case rsaEncryptionPKCS1, rsaEncryptionOAEPSHA1, rsaEncryptionOAEPSHA224, rsaEncryptionOAEPSHA256
    case rsaEncryptionOAEPSHA384, rsaEncryptionOAEPSHA512
    case eciesEncryptionStandardVariableIVX963SHA224AESGCM, eciesEncryptionStandardVariableIVX963SHA256AESGCM
    case eciesEncryptionStandardVariableIVX963SHA384AESGCM, eciesEncryptionStandardVariableIVX963SHA512AESGCM
    case eciesEncryptionCofactorVariableIVX963SHA224AESGCM, eciesEncryptionCofactorVariableIVX963SHA256AESGCM
    case eciesEncryptionCofactorVariableIVX963SHA384AESGCM, eciesEncryptionCofactorVariableIVX963SHA512AESGCM
    case ecdhKeyExchangeStandard, ecdhKeyExchangeStandardX963SHA1, ecdhKeyExchangeStandardX963SHA224
    case ecdhKeyExchangeStandardX963SHA256, ecdhKeyExchangeStandardX963SHA384, ecdhKeyExchangeStandardX963SHA512
    case ecdhKeyExchangeCofactor, ecdhKeyExchangeCofactorX963SHA1, ecdhKeyExchangeCofactorX963SHA224
    case ecdhKeyExchangeCofactorX963SHA256, ecdhKeyExchangeCofactorX963SHA384, ecdhKeyExchangeCofactorX963SHA512

    /// What a key is asked to do (Apple's `SecKeyOperationType`).
    public enum Operation: String, Sendable {
        case sign, verify, encrypt, decrypt, keyExchange
    }

    /// Apple's SecKeyIsAlgorithmSupported: whether a key of `type` and `role` can do `operation` with this algorithm.
    /// sign/decrypt/keyExchange need a private key; verify/encrypt a public key.
    ///
    /// As Apple's adaptors have it, ECIES and ECDH take X25519 keys as well as EC ones; Ed25519
    /// keys only sign and verify. Key-size limits (PSS and OAEP on a small RSA modulus) are the
    /// operation's to check, as Apple's are.
    public func isSupported(_ operation: Operation, type: KeyMaterial.Algorithm, role: KeyMaterial.Role) -> Bool {
        guard role != .symmetric, family.keyTypes.contains(type) else { return false }
        switch (family, operation) {
        case (.ecdsa, .sign), (.rsaSignature, .sign), (.edDSA, .sign), (.rsaEncryption, .decrypt), (.ecies, .decrypt),
            (.ecdh, .keyExchange):
            return role == .private
        case (.ecdsa, .verify), (.rsaSignature, .verify), (.edDSA, .verify), (.rsaEncryption, .encrypt),
            (.ecies, .encrypt):
            // As Apple's: a private key neither verifies nor encrypts (si-41 `testsupportedalgos`).
            return role == .public
        default:
            return false
        }
    }

    /// Throws `.mismatch` naming the algorithm and the key when `isSupported` is false: the one
    /// message for an algorithm that does not fit a key.
    public func check(_ operation: Operation, type: KeyMaterial.Algorithm, role: KeyMaterial.Role) throws(CertificateError) {
        guard isSupported(operation, type: type, role: role) else {
            throw .mismatch("algorithm: \(rawValue) does not fit a \(role.rawValue) \(type.rawValue) key")
        }
    }

    // MARK: What each algorithm is made of

    /// The kind of operation an algorithm belongs to.
    enum Family {
        case ecdsa, rsaSignature, edDSA, rsaEncryption, ecies, ecdh

        var keyTypes: [KeyMaterial.Algorithm] {
            switch self {
            case .ecdsa: [.ec]
            case .rsaSignature, .rsaEncryption: [.rsa]
            case .edDSA: [.ed25519]
            case .ecies, .ecdh: [.ec, .x25519]
            }
        }
    }

    /// A hash function an algorithm names.
    enum Hash: Sendable, CaseIterable {
        case sha1, sha224, sha256, sha384, sha512

        /// How an algorithm's name spells it.
        var label: String {
            switch self {
            case .sha1: "SHA1"
            case .sha224: "SHA224"
            case .sha256: "SHA256"
            case .sha384: "SHA384"
            case .sha512: "SHA512"
            }
        }

        /// The digest's length in bytes.
        var length: Int {
            switch self {
            case .sha1: 20
            case .sha224: 28
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }
    }

    var family: Family {
        let name = rawValue
        if name.hasPrefix("ecdsa") { return .ecdsa }
        if name.hasPrefix("rsaSignature") { return .rsaSignature }
        if name.hasPrefix("edDSA") { return .edDSA }
        if name.hasPrefix("rsaEncryption") { return .rsaEncryption }
        if name.hasPrefix("ecies") { return .ecies }
        return .ecdh
    }

    /// The hash the name ends with, before ECIES's "AESGCM" (`nil` for PKCS#1 v1.5 encryption,
    /// ECDH without a KDF, and Ed25519, whose SHA-512 is EdDSA's own).
    var hash: Hash? {
        guard family != .edDSA else { return nil }
        var name = Substring(rawValue)
        if name.hasSuffix("AESGCM") { name = name.dropLast("AESGCM".count) }
        return Hash.allCases.first { name.hasSuffix($0.label) }
    }

    /// Whether a signature algorithm takes the digest rather than the message.
    var takesDigest: Bool { rawValue.contains("SignatureDigest") }

    /// Whether an ECDH or ECIES algorithm multiplies by the curve's cofactor.
    var usesCofactor: Bool { rawValue.contains("Cofactor") }

    /// Whether an RSA signature algorithm pads with PSS (else PKCS#1 v1.5).
    var isPSS: Bool { rawValue.contains("PSS") }
}

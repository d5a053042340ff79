/// A key read from an operator's format (PEM, PKCS #8, SEC1, PKCS #1, SubjectPublicKeyInfo,
/// PKCS #12) in Apple's external representation: the bytes a key item holds, which
/// `KeyMaterial` accepts (`SecKeyCreateWithData` takes them, `SecKeyCopyExternalRepresentation`
/// gives them back).
///
/// - RSA: PKCS #1 DER, `RSAPrivateKey` or `RSAPublicKey`.
/// - EC: X9.63, `04‖X‖Y‖K` private, `04‖X‖Y` public, each of X, Y and K padded to the field's
///   size (32, 48, 66 bytes for P-256, P-384, P-521).
/// - Ed25519, X25519: the 32 raw bytes (the private key's seed or scalar, or the public key).
///
/// Every value has passed `KeyMaterial`'s checks. Its description names the type, the class and
/// the length, never the bytes.
public struct ImportedKey: Sendable, CustomStringConvertible {
    public let algorithm: KeyMaterial.Algorithm
    public let role: KeyMaterial.Role
    /// The key in Apple's external representation.
    public let external: [UInt8]

    /// Checks `external` as a key of `algorithm` and `role` (`KeyMaterial`): a key item's bytes,
    /// for `PEM.exportKey` or `PKCS12.make`.
    public init(_ external: [UInt8], algorithm: KeyMaterial.Algorithm, role: KeyMaterial.Role) throws(CertificateError) {
        _ = try KeyMaterial(external, algorithm: algorithm, role: role)
        self.algorithm = algorithm
        self.role = role
        self.external = external
    }

    /// The checked key, with its size and public-key hash.
    public var material: KeyMaterial {
        get throws(CertificateError) { try KeyMaterial(external, algorithm: algorithm, role: role) }
    }

    public var description: String { "ImportedKey(\(algorithm.rawValue) \(role.rawValue), \(external.count) bytes)" }
}

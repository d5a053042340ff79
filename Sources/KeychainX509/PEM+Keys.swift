internal import COpenSSL

extension PEM {
    /// The key labels `importKey` reads, and the DER form each holds (RFC 7468, OpenSSL's
    /// traditional forms).
    private static let keyForms: [String: PKeyHandle.Form] = [
        "PRIVATE KEY": .pkcs8, "EC PRIVATE KEY": .sec1, "RSA PRIVATE KEY": .pkcs1Private,
        "PUBLIC KEY": .subjectPublicKeyInfo, "RSA PUBLIC KEY": .pkcs1Public,
    ]
    private static let encryptedLabel = "ENCRYPTED PRIVATE KEY"

    /// The key in `block`, in Apple's external representation.
    ///
    /// `PRIVATE KEY` (PKCS #8: RSA, EC, Ed25519, X25519), `RSA PRIVATE KEY` (PKCS #1),
    /// `EC PRIVATE KEY` (SEC1, a named curve), `PUBLIC KEY` (SubjectPublicKeyInfo) and
    /// `RSA PUBLIC KEY` (PKCS #1). `ENCRYPTED PRIVATE KEY` (PKCS #8 EncryptedPrivateKeyInfo,
    /// PBES2 or a PKCS #12 scheme) needs `password`; its key derivation may cost at most
    /// 1,000,000 iterations, as a PKCS #12 file's (`PKCS12.maxIterations`). EC keys are P-256,
    /// P-384 or P-521; RSA keys two-prime.
    ///
    /// Throws `.malformed` for any other label, bytes that are not the label's form, or a key
    /// type the keychain does not hold; `.wrongPassword` when `password` does not decrypt the key.
    public static func importKey(_ block: Block, password: String? = nil) throws(CertificateError) -> ImportedKey {
        guard block.der.count <= KeyMaterial.maxBytes else { throw .malformed("more than \(KeyMaterial.maxBytes) bytes of key") }
        if block.label == encryptedLabel {
            guard let password else {
                throw .malformed("an encrypted PEM key (ENCRYPTED PRIVATE KEY) is not accepted without its password")
            }
            return try decrypt(block.der, password: password)
        }
        guard let form = keyForms[block.label] else {
            throw .malformed("a PEM block that is not a key (labels: PRIVATE KEY, EC PRIVATE KEY, RSA PRIVATE KEY, PUBLIC KEY)")
        }
        return try PKeyHandle.parse(block.der, as: form).imported(isPrivate: form.isPrivate)
    }

    /// The key in `der`, whichever of the forms `importKey(_:)` reads it is: PKCS #8, SEC1 and
    /// PKCS #1 `RSAPrivateKey` are tried in this order, then SubjectPublicKeyInfo and PKCS #1
    /// `RSAPublicKey`. The first form that parses decides: a key of a type the keychain does not
    /// hold is an error, not a reason to try the next.
    public static func importKey(der: [UInt8]) throws(CertificateError) -> ImportedKey {
        guard der.count <= KeyMaterial.maxBytes else { throw .malformed("more than \(KeyMaterial.maxBytes) bytes of key") }
        for form in [PKeyHandle.Form.pkcs8, .sec1, .pkcs1Private, .subjectPublicKeyInfo, .pkcs1Public] {
            guard let key = try? PKeyHandle.parse(der, as: form) else { continue }
            return try key.imported(isPrivate: form.isPrivate)
        }
        throw .malformed("not a DER key (PKCS #8, SEC1, PKCS #1 or SubjectPublicKeyInfo)")
    }

    /// A key item's bytes as a PEM block: a private key as `PRIVATE KEY` (PKCS #8, unencrypted,
    /// which openssl and nginx read for every type), a public key as `PUBLIC KEY`
    /// (SubjectPublicKeyInfo). `PEM.encode(label:der:)` writes the block as text.
    ///
    /// Throws what `KeyMaterial` throws for bytes that are not such a key, and `.mismatch` for
    /// an AES key, which has no PEM form.
    public static func exportKey(
        _ external: [UInt8], algorithm: KeyMaterial.Algorithm, role: KeyMaterial.Role
    ) throws(CertificateError) -> Block {
        if algorithm == .aes || role == .symmetric {
            throw .mismatch("a symmetric (AES) key has no PEM form")
        }
        let key = try PKeyHandle.make(try ImportedKey(external, algorithm: algorithm, role: role))
        if role == .private { return Block(label: "PRIVATE KEY", der: try key.pkcs8()) }
        return Block(label: "PUBLIC KEY", der: try key.subjectPublicKeyInfo())
    }

    /// An EncryptedPrivateKeyInfo's key, decrypted with `password`.
    private static func decrypt(_ der: [UInt8], password: String) throws(CertificateError) -> ImportedKey {
        let text = try PBE.cString(password)
        let signature: OpaquePointer
        switch D2I.parse(der, { d2i_X509_SIG(nil, $0, $1) }, free: X509_SIG_free) {
        case .parsed(let parsed): signature = parsed
        case .malformed, .trailing: throw .malformed("not a PKCS #8 EncryptedPrivateKeyInfo")
        }
        defer { X509_SIG_free(signature) }
        var algorithm: UnsafePointer<X509_ALGOR>?
        X509_SIG_get0(signature, &algorithm, nil)
        var budget = PBE.Budget(PBE.maxIterations)
        try budget.spend(algorithm)
        PBE.loadProviders()
        let decrypted = text.withUnsafeBufferPointer { PKCS8_decrypt(signature, $0.baseAddress, Int32($0.count - 1)) }
        // Without a MAC, a wrong password shows as padding or DER that does not decode.
        guard let decrypted else {
            ERR_clear_error()
            throw .wrongPassword
        }
        defer { PKCS8_PRIV_KEY_INFO_free(decrypted) }
        return try PKeyHandle.fromPKCS8(decrypted).imported(isPrivate: true)
    }
}

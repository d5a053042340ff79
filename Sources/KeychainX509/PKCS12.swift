internal import COpenSSL

/// PKCS #12 (RFC 7292) files, `.p12`/`.pfx`: one identity, a private key and its certificate,
/// with the certificates of its chain, behind a password. What Apple's `SecPKCS12Import` reads.
///
/// Reading is OpenSSL's libcrypto, walked bag by bag here rather than by `PKCS12_parse`, so
/// that every password-based key derivation's iteration count is read, and bounded
/// (`maxIterations`), before OpenSSL runs it: the file is a client's, and so is the count.
/// Writing is `PKCS12_create` with today's algorithms (AES-256-CBC under PBES2 and PBKDF2 with
/// HMAC-SHA-256 for the key and the certificates, an HMAC-SHA-256 MAC).
public enum PKCS12 {
    /// The most bytes a PKCS #12 file may have: an identity with a long chain is a few KiB.
    public static let maxBytes = 256 * 1024
    /// The most iterations the key derivations of one file (its MAC's and each encryption's)
    /// may cost in all: OpenSSL's default is 2048 each, three in a file.
    public static let maxIterations = PBE.maxIterations
    /// The iterations `make` uses for each key derivation (and the MAC).
    public static let iterations = 10_000
    /// The most nested SafeContents bags a file may have.
    static let maxDepth = 4

    /// What a PKCS #12 file holds.
    public struct Contents: Sendable {
        /// The DER of the certificate whose public key is the private key's.
        public let certificate: [UInt8]
        /// The private key, in Apple's external representation.
        public let key: ImportedKey
        /// The file's other certificates (its chain), DER, in the file's order.
        public let chain: [[UInt8]]
        /// The friendlyName attribute of the key's bag, or else of the certificate's
        /// (`kSecImportItemLabel`); nil when neither has one.
        public let friendlyName: String?
    }

    /// Whether OpenSSL's legacy provider is loaded, so that files made by older tools (openssl
    /// 1.1's RC2-40 and 3DES, Windows' and macOS's older exports) are read. Without it, only
    /// files of today's algorithms are.
    public static var legacyAlgorithmsAvailable: Bool { PBE.legacyProviderLoaded }

    /// The identity in `bytes`, opened with `password`.
    ///
    /// Throws `.wrongPassword` when the file's MAC does not verify with `password`, and
    /// `.malformed` for bytes that are not PKCS #12 (or more than `maxBytes`), a file without a
    /// MAC, without a private key, with more than one, without a certificate of the key, with
    /// key derivations over `maxIterations`, or contents that do not decrypt (an algorithm this
    /// OpenSSL does not offer, or another password for the contents than for the MAC).
    public static func parse(_ bytes: [UInt8], password: String) throws(CertificateError) -> Contents {
        guard bytes.count <= maxBytes else { throw .malformed("more than \(maxBytes) bytes of PKCS #12") }
        guard !bytes.isEmpty else { throw .malformed("empty") }
        let text = try PBE.cString(password)
        PBE.loadProviders()
        let file: OpaquePointer
        switch D2I.parse(bytes, { d2i_PKCS12(nil, $0, $1) }, free: PKCS12_free) {
        case .parsed(let parsed): file = parsed
        case .malformed: throw .malformed("not a DER PKCS #12 file")
        case .trailing: throw .malformed("bytes after the PKCS #12 file")
        }
        defer { PKCS12_free(file) }
        var reader = PKCS12Reader(file, password: text)
        return try reader.read()
    }

    /// A PKCS #12 file of `key` and its `certificate` (DER), with `chain`'s certificates, under
    /// `password`: AES-256-CBC (PBES2, PBKDF2 with HMAC-SHA-256, `iterations`) for the key and
    /// the certificates, and an HMAC-SHA-256 MAC, as `openssl pkcs12 -export` writes by default.
    /// `friendlyName` names the key and the certificate (UTF-8).
    ///
    /// Throws `.malformed` for a certificate that is not DER or not of `key`, and `.mismatch`
    /// for a key that is not private.
    public static func make(
        certificate: [UInt8], key: ImportedKey, chain: [[UInt8]], password: String, friendlyName: String?
    ) throws(CertificateError) -> [UInt8] {
        guard key.role == .private else { throw .mismatch("a PKCS #12 file holds a private key") }
        let text = try PBE.cString(password)
        let name = try friendlyName.map { name throws(CertificateError) in try PBE.cString(name) }
        PBE.loadProviders()
        let privateKey = try PKeyHandle.make(key)
        guard certificate.count <= Certificate.maxBytes else { throw .tooLarge }
        let leaf = try X509Handle(certificate)
        guard let leafKey = X509_get0_pubkey(leaf.pointer), EVP_PKEY_eq(leafKey, privateKey.pointer) == 1 else {
            ERR_clear_error()
            throw .malformed("a certificate of another key than the private key")
        }
        var authorities: [X509Handle] = []
        for der in chain {
            guard der.count <= Certificate.maxBytes else { throw .tooLarge }
            authorities.append(try X509Handle(der))
        }
        guard let stack = keychaind_x509_stack_new() else { throw .malformed("out of memory") }
        // The stack borrows the certificates, which `authorities` owns.
        defer { keychaind_x509_stack_free(stack) }
        for authority in authorities where keychaind_x509_stack_push(stack, authority.pointer) <= 0 {
            throw .malformed("out of memory")
        }
        let made = text.withUnsafeBufferPointer { password in
            optionalCString(name) { name in
                // mac_iter -1: no MAC yet (PKCS12_create's is SHA-1); PKCS12_set_mac adds one of SHA-256.
                PKCS12_create(
                    password.baseAddress, name, privateKey.pointer, leaf.pointer, stack, NID_aes_256_cbc, NID_aes_256_cbc,
                    Int32(iterations), -1, 0)
            }
        }
        guard let made else {
            ERR_clear_error()
            throw .malformed("OpenSSL did not make the PKCS #12 file")
        }
        defer { PKCS12_free(made) }
        let macked = text.withUnsafeBufferPointer { password in
            PKCS12_set_mac(made, password.baseAddress, -1, nil, 0, Int32(iterations), EVP_sha256())
        }
        guard macked == 1, let der = I2D.encode(secret: false, { i2d_PKCS12(made, $0) }) else {
            ERR_clear_error()
            throw .malformed("OpenSSL did not make the PKCS #12 file")
        }
        return der
    }

    /// Calls `body` with `text`'s C string, or with NULL when there is none.
    private static func optionalCString<T>(_ text: [CChar]?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
        guard let text else { return body(nil) }
        return text.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

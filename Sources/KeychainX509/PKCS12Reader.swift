internal import COpenSSL

/// One PKCS #12 file read bag by bag, as OpenSSL's `PKCS12_parse` does (the MAC first, with
/// the same rule for an empty password; then every authenticated safe, plain or encrypted,
/// and the bags in each), with each key derivation's cost spent from a `PBE.Budget` first.
struct PKCS12Reader {
    private let file: OpaquePointer
    /// The password's C string; nil when OpenSSL's NULL password is the one (an empty password
    /// is either NULL or "", whichever the MAC verifies with, as `PKCS12_parse` decides).
    private var password: [CChar]?
    private var budget = PBE.Budget(PBE.maxIterations)
    private var key: PKeyHandle?
    private var keyName: String?
    private var certificates: [(certificate: X509Handle, name: String?)] = []

    /// `file` stays the caller's.
    init(_ file: OpaquePointer, password: [CChar]) {
        self.file = file
        self.password = password
    }

    mutating func read() throws(CertificateError) -> PKCS12.Contents {
        ERR_clear_error()
        try verifyMAC()
        guard let safes = PKCS12_unpack_authsafes(file) else {
            ERR_clear_error()
            throw .malformed("PKCS #12 contents that do not decode")
        }
        defer { keychaind_pkcs7_stack_free(safes) }
        for index in 0..<max(0, keychaind_pkcs7_stack_count(safes)) {
            guard let safe = keychaind_pkcs7_stack_value(safes, index) else { continue }
            let bags: OpaquePointer?
            let failure: String
            switch keychaind_pkcs7_type(safe) {
            case NID_pkcs7_data:
                bags = PKCS12_unpack_p7data(safe)
                failure = "PKCS #12 contents that do not decode"
            case NID_pkcs7_encrypted:
                try budget.spend(keychaind_pkcs7_encryption_algorithm(safe))
                bags = withPassword { PKCS12_unpack_p7encdata(safe, $0, $1) }
                failure = "PKCS #12 contents that do not decrypt (an algorithm OpenSSL does not offer, or another password)"
            default:
                // EnvelopedData (public-key protection): PKCS12_parse skips it too.
                continue
            }
            guard let bags else {
                ERR_clear_error()
                throw .malformed(failure)
            }
            defer { keychaind_safebag_stack_free(bags) }
            try read(bags, depth: 0)
        }
        return try contents()
    }

    /// The MAC, verified as `PKCS12_parse` does. `PKCS12_verify_mac` fails without raising an
    /// error when the MAC differs (the wrong password) and raises one when it cannot compute it.
    private mutating func verifyMAC() throws(CertificateError) {
        guard PKCS12_mac_present(file) == 1 else { throw .malformed("a PKCS #12 file without a MAC is not accepted") }
        var count: UnsafePointer<ASN1_INTEGER>?
        PKCS12_get0_mac(nil, nil, nil, &count, file)
        // MacData's iterations default to 1 when absent.
        let iterations = count.map { Int(ASN1_INTEGER_get($0)) } ?? 1
        let candidates: [[CChar]?] = password?.count == 1 ? [nil, [0]] : [password]
        for candidate in candidates {
            try budget.spend(iterations)
            password = candidate
            if withPassword({ PKCS12_verify_mac(file, $0, $1) }) == 1 { return }
            guard ERR_peek_error() == 0 else {
                ERR_clear_error()
                throw .malformed("a PKCS #12 MAC OpenSSL cannot compute")
            }
        }
        throw .wrongPassword
    }

    /// The bags of one SafeContents, and of those nested in it.
    private mutating func read(_ bags: OpaquePointer, depth: Int) throws(CertificateError) {
        guard depth < PKCS12.maxDepth else { throw .malformed("PKCS #12 bags nested more than \(PKCS12.maxDepth) deep") }
        for index in 0..<max(0, keychaind_safebag_stack_count(bags)) {
            guard let bag = keychaind_safebag_stack_value(bags, index) else { continue }
            switch PKCS12_SAFEBAG_get_nid(bag) {
            case NID_keyBag:
                guard let info = PKCS12_SAFEBAG_get0_p8inf(bag) else { throw .malformed("an empty PKCS #12 key bag") }
                try found(PKeyHandle.fromPKCS8(info), in: bag)
            case NID_pkcs8ShroudedKeyBag:
                var algorithm: UnsafePointer<X509_ALGOR>?
                guard let shrouded = PKCS12_SAFEBAG_get0_pkcs8(bag) else { throw .malformed("an empty PKCS #12 key bag") }
                X509_SIG_get0(shrouded, &algorithm, nil)
                try budget.spend(algorithm)
                guard let info = withPassword({ PKCS12_decrypt_skey(bag, $0, $1) }) else {
                    ERR_clear_error()
                    throw .malformed("a PKCS #12 private key that does not decrypt (an algorithm OpenSSL does not offer?)")
                }
                defer { PKCS8_PRIV_KEY_INFO_free(info) }
                try found(PKeyHandle.fromPKCS8(info), in: bag)
            case NID_certBag:
                guard PKCS12_SAFEBAG_get_bag_nid(bag) == NID_x509Certificate else { continue }
                guard let certificate = PKCS12_SAFEBAG_get1_cert(bag) else {
                    ERR_clear_error()
                    throw .malformed("a PKCS #12 certificate bag that is not X.509")
                }
                certificates.append((X509Handle(owning: certificate), Self.friendlyName(of: bag)))
            case NID_safeContentsBag:
                guard let nested = PKCS12_SAFEBAG_get0_safes(bag) else { continue }
                try read(nested, depth: depth + 1)
            default:
                continue  // CRLs, secrets
            }
        }
    }

    /// The one private key; the same key again (some exporters write a key bag per certificate of
    /// it) is that key, another key is refused.
    private mutating func found(_ handle: PKeyHandle, in bag: OpaquePointer) throws(CertificateError) {
        if let key {
            let same = EVP_PKEY_eq(key.pointer, handle.pointer) == 1
            ERR_clear_error()
            guard same else { throw .malformed("a PKCS #12 file with more than one private key") }
            return
        }
        key = handle
        keyName = Self.friendlyName(of: bag)
    }

    /// The certificate of the key, the others, and the name.
    private func contents() throws(CertificateError) -> PKCS12.Contents {
        guard let key else { throw .malformed("a PKCS #12 file without a private key") }
        guard !certificates.isEmpty else { throw .malformed("a PKCS #12 file without a certificate") }
        let leafIndex = certificates.firstIndex { entry in
            guard let publicKey = X509_get0_pubkey(entry.certificate.pointer) else { return false }
            return EVP_PKEY_eq(publicKey, key.pointer) == 1
        }
        ERR_clear_error()
        guard let leafIndex else { throw .malformed("a PKCS #12 file without a certificate of its private key") }
        // The other certificates, each once, the leaf not again.
        let leaf = try Self.der(certificates[leafIndex].certificate)
        var chain: [[UInt8]] = []
        for (index, entry) in certificates.enumerated() where index != leafIndex {
            let der = try Self.der(entry.certificate)
            if der != leaf, !chain.contains(der) { chain.append(der) }
        }
        return PKCS12.Contents(
            certificate: leaf, key: try key.imported(isPrivate: true), chain: chain,
            friendlyName: keyName ?? certificates[leafIndex].name)
    }

    private static func der(_ certificate: X509Handle) throws(CertificateError) -> [UInt8] {
        guard let der = I2D.encode(secret: false, { i2d_X509(certificate.pointer, $0) }) else {
            throw .malformed("a PKCS #12 certificate OpenSSL does not write")
        }
        return der
    }

    /// A bag's friendlyName attribute (a BMPString), as UTF-8.
    private static func friendlyName(of bag: OpaquePointer) -> String? {
        guard let name = PKCS12_get_friendlyname(bag) else {
            ERR_clear_error()
            return nil
        }
        defer { CRYPTO_free(name, #fileID, #line) }
        return String(cString: name)
    }

    /// Calls `body` with the password as OpenSSL's PKCS #12 functions take it: a C string and
    /// its length, or NULL and 0.
    private func withPassword<T>(_ body: (UnsafePointer<CChar>?, Int32) -> T) -> T {
        guard let password else { return body(nil, 0) }
        return password.withUnsafeBufferPointer { body($0.baseAddress, Int32($0.count - 1)) }
    }
}

import KeychainX509
import TestSupport
import Testing

@Suite struct CertificateTests {
    /// Every derived attribute against what `openssl x509` (and `asn1parse`, `pkey`, `dgst`) say.
    @Test func derivedAttributesMatchOpenSSL() throws {
        let certs = TestCertificates()
        let ca = try certs.makeCA("ca", subject: "/CN=Test CA/O=Acme")
        let leaf = try certs.makeLeaf(
            "leaf", subject: "/CN=svc.example.com/O=Acme", issuer: ca, serial: "00C0FFEE01",
            extensions: "subjectKeyIdentifier=hash\nsubjectAltName=email:ops@example.com")
        let certificate = try Certificate(der: leaf.der)
        #expect(certificate.certificateType == 3)
        #expect(certificate.certificateEncoding == 3)
        // openssl prints the magnitude; the INTEGER's content has a 00 before a high first byte.
        #expect(Array(certificate.serialNumber.drop { $0 == 0 }) == TestCertificates.hexBytes(try certs.serialHex(leaf)))
        #expect(certificate.serialNumber == [0x00, 0xC0, 0xFF, 0xEE, 0x01])
        #expect(certificate.subjectKeyID == (try certs.subjectKeyID(leaf)))
        #expect(certificate.subjectKeyID != nil)
        #expect(certificate.publicKeyHash == (try certs.publicKeyHash(leaf)))
        // UTF8String values: the normalized content is the Name's content unchanged.
        #expect(certificate.issuer == Array(try certs.nameDER(leaf, issuer: true).dropFirst(2)))
        #expect(certificate.subject == Array(try certs.nameDER(leaf, issuer: false).dropFirst(2)))
        #expect(certificate.issuer == (try Certificate(der: ca.der)).subject)
        #expect(certificate.subjectValues == ["svc.example.com", "Acme"])
        #expect(certificate.emailAddresses == ["ops@example.com"])
        #expect(certificate.notBefore < certificate.notAfter)
    }

    @Test func noSubjectKeyIdentifierExtensionIsNil() throws {
        let certs = TestCertificates()
        let ca = try certs.makeCA("ca", subject: "/CN=CA")
        let leaf = try certs.makeLeaf("leaf", subject: "/CN=plain", issuer: ca, serial: "05")
        #expect(try certs.subjectKeyID(leaf) == nil)
        #expect(try Certificate(der: leaf.der).subjectKeyID == nil)
        #expect(try Certificate(der: leaf.der).certificateType == 1, "no extensions: openssl writes a v1 certificate")
    }

    /// Truncations, bit flips, appended bytes and random bytes: each parses or is a
    /// CertificateError, never a crash; a flip outside the signature never yields other attributes silently.
    @Test func garbageAndMutatedDERAreErrorsNotCrashes() throws {
        let certs = TestCertificates()
        let ca = try certs.makeCA("ca", subject: "/CN=Fuzz CA/O=Acme")
        let der = ca.der
        #expect(throws: CertificateError.self) { try Certificate(der: []) }
        #expect(throws: CertificateError.self) { try Certificate(der: Array("hello".utf8)) }
        #expect(throws: CertificateError.self) { try Certificate(der: der + [0]) }
        #expect(throws: CertificateError.self) { try Certificate(der: [UInt8](repeating: 0x30, count: Certificate.maxBytes + 1)) }
        for length in 0..<der.count {
            #expect(throws: CertificateError.self) { try Certificate(der: Array(der.prefix(length))) }
        }
        var generator = SystemRandomNumberGenerator()
        var parsedAfterFlip = 0
        for index in 0..<der.count {
            var mutated = der
            mutated[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            if (try? Certificate(der: mutated)) != nil { parsedAfterFlip += 1 }
        }
        #expect(parsedAfterFlip < der.count, "every single-bit flip still parsed")
        for _ in 0..<500 {
            let random = (0..<Int.random(in: 0..<600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? Certificate(der: [0x30, 0x82, 0x01, 0x00] + random)
        }
    }
}

@Suite struct DistinguishedNameTests {
    /// PrintableString values are upper-cased with blanks trimmed and collapsed; UTF8String
    /// values are kept (Apple's createNormalizedX501Name); the outer SEQUENCE is dropped.
    @Test func printableStringsAreNormalizedAsApple() {
        let cn: [UInt8] = [0x06, 0x03, 0x55, 0x04, 0x03]
        let o: [UInt8] = [0x06, 0x03, 0x55, 0x04, 0x0A]
        func atv(_ type: [UInt8], _ tag: UInt8, _ text: String) -> [UInt8] {
            let value = Array(text.utf8)
            let inner = type + [tag, UInt8(value.count)] + value
            return [0x31, UInt8(inner.count + 2), 0x30, UInt8(inner.count)] + inner
        }
        let rdns = atv(cn, 0x13, "  my \t  host  ") + atv(o, 0x0C, "  Acme  ")
        let name: [UInt8] = [0x30, UInt8(rdns.count)] + rdns
        let expected = atv(cn, 0x13, "MY HOST") + atv(o, 0x0C, "  Acme  ")
        #expect(DistinguishedName.normalizedContent(name) == expected)
        #expect(DistinguishedName.canonical(name) == expected)
        #expect(DistinguishedName.canonical(expected) == expected, "normalized content stays as it is")
        #expect(DistinguishedName.normalizedContent(Array(name.dropLast())) == nil)
        #expect(DistinguishedName.normalizedContent([0x30, 0x02, 0x31, 0x00]) == nil, "an empty RDN")
        #expect(DistinguishedName.normalizedContent([0x30, 0x80, 0x00, 0x00]) == nil, "an indefinite length")
    }

    @Test func truncatedNamesAreNil() {
        let name: [UInt8] = [0x30, 0x0E, 0x31, 0x0C, 0x30, 0x0A, 0x06, 0x03, 0x55, 0x04, 0x03, 0x13, 0x03, 0x61, 0x62, 0x63]
        #expect(DistinguishedName.normalizedContent(name) != nil)
        for length in 0..<name.count { #expect(DistinguishedName.normalizedContent(Array(name.prefix(length))) == nil) }
    }
}

/// The subject read straight from the DER (what the subject match keys compare with) is the
/// text OpenSSL's whole parse gives, for each string type a subject may use.
@Suite struct SubjectValuesTests {
    /// `string_mask` decides the types openssl writes: `utf8only` UTF8String, `default`
    /// PrintableString, T61String (Latin-1) and BMPString, `pkix` PrintableString and BMPString.
    @Test(arguments: ["utf8only", "default", "pkix"])
    func theDERWalkGivesOpenSSLsText(mask: String) throws {
        let certs = TestCertificates()
        let dir = certs.directory.path
        try "[req]\ndistinguished_name = dn\nstring_mask = \(mask)\n[dn]\n".write(
            toFile: "\(dir)/req.cnf", atomically: true, encoding: .utf8)
        try certs.openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "\(dir)/k.pem"])
        try certs.openssl([
            "req", "-x509", "-new", "-key", "\(dir)/k.pem", "-config", "\(dir)/req.cnf", "-utf8", "-multivalue-rdn",
            "-subj", "/CN=Zoë Ωmega host+OU=unit 7/O=Ünïcode Ltd/emailAddress=ops@example.com/C=DE",
            "-days", "2", "-out", "\(dir)/c.pem",
        ])
        let der = try certs.der("\(dir)/c.pem")
        let values = try #require(Certificate.subjectValues(ofDER: der))
        #expect(values == (try Certificate(der: der)).subjectValues)
        #expect(values.contains("Zoë Ωmega host") && values.contains("Ünïcode Ltd"))
        #expect(values.contains("ops@example.com"))
    }

    @Test func aVersion1CertificateAndMalformedBytes() throws {
        let certs = TestCertificates()
        let ca = try certs.makeCA("ca", subject: "/CN=CA")
        let leaf = try certs.makeLeaf("leaf", subject: "/CN=plain v1/O=Acme", issuer: ca, serial: "05")
        #expect(Certificate.subjectValues(ofDER: leaf.der) == ["plain v1", "Acme"])
        #expect(Certificate.subjectValues(ofDER: []) == nil)
        #expect(Certificate.subjectValues(ofDER: Array(leaf.der.prefix(40))) == nil)
        #expect(Certificate.subjectValues(ofDER: [0x30, 0x03, 0x30, 0x01, 0x00]) == nil)
    }
}

/// A BOOLEAN must be DER's (00 or FF), in the certificate and in its extensions' values: BER's
/// other TRUEs, which OpenSSL takes, are refused as Apple's decoder refuses them.
@Suite struct DERBooleanTests {
    @Test func aBERTrueAnywhereIsRefused() throws {
        let certs = TestCertificates()
        let ca = try certs.makeCA("ca", subject: "/CN=CA")
        let leaf = try certs.makeLeaf(
            "leaf", subject: "/CN=strict", issuer: ca, serial: "07",
            extensions: "basicConstraints=critical,CA:TRUE\nsubjectAltName=critical,email:a@example.com")
        _ = try Certificate(der: leaf.der)
        // Each FF after a BOOLEAN's header (01 01), made 01: the critical flags and the cA flag.
        var patched = 0
        for index in 0..<(leaf.der.count - 2)
        where leaf.der[index] == 0x01 && leaf.der[index + 1] == 0x01 && leaf.der[index + 2] == 0xFF {
            var der = leaf.der
            der[index + 2] = 0x01
            #expect(throws: CertificateError.self) { try Certificate(der: der) }
            patched += 1
        }
        #expect(patched >= 3, "two critical flags and the cA flag")
    }
}

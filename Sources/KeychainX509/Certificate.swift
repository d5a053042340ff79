internal import COpenSSL

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A DER X.509 certificate, parsed once, with what the keychain derives from it: the attributes
/// Apple's `SecCertificateCopyAttributeDictionary` stores, and what the match keys compare.
///
/// Parsing is OpenSSL's `d2i_X509` over untrusted bytes: bounded (`maxBytes`), the whole input
/// must be the one certificate (no trailing bytes), and every failure is a `CertificateError`,
/// never a crash or a partial value.
public struct Certificate: Sendable {
    /// The most bytes a certificate may have: far above any real certificate (a few KiB), far
    /// below what would let one request make the parser work for long.
    public static let maxBytes = 64 * 1024

    /// `kSecAttrCertificateType`: CSSM_CERT_X_509v1, v2 or v3 (1, 2, 3), the version plus one.
    public let certificateType: Int64
    /// `kSecAttrCertificateEncoding`: CSSM_CERT_ENCODING_DER (3).
    public let certificateEncoding: Int64 = 3
    /// `kSecAttrSubject`: the subject Name's normalized content (`DistinguishedName`).
    public let subject: [UInt8]
    /// `kSecAttrIssuer`: the issuer Name's normalized content.
    public let issuer: [UInt8]
    /// `kSecAttrSerialNumber`: the serial INTEGER's content bytes, as SecCertificateCopySerialNumberData.
    public let serialNumber: [UInt8]
    /// `kSecAttrSubjectKeyID`: the SubjectKeyIdentifier extension's key identifier, when there is one.
    public let subjectKeyID: [UInt8]?
    /// `kSecAttrPublicKeyHash`: SHA-1 of the subjectPublicKey BIT STRING's bytes.
    public let publicKeyHash: [UInt8]
    /// The subject's attribute values as text (UTF-8), in order: what `matchSubject…` compare.
    public let subjectValues: [String]
    /// The subject's (last) common name, as Apple's `SecCertificateCopyCommonName` gives it.
    public let commonName: String?
    /// RFC 822 addresses: the subject's emailAddress values and the subjectAltName's rfc822Names.
    public let emailAddresses: [String]
    /// Validity, in milliseconds since 1970.
    public let notBefore: Int64
    public let notAfter: Int64

    /// Parses `der`.
    public init(der: [UInt8]) throws(CertificateError) {
        guard der.count <= Self.maxBytes else { throw .tooLarge }
        guard !der.isEmpty else { throw .malformed("empty") }
        guard Self.hasOnlyDERBooleans(der) else { throw .malformed("a BOOLEAN that is not DER (neither 00 nor FF)") }
        let parsed: X509Handle
        do { parsed = try X509Handle(der) } catch { throw error }
        let x = parsed.pointer
        let version = X509_get_version(x)
        guard (0...2).contains(version) else { throw .malformed("unknown X.509 version") }
        certificateType = Int64(version) + 1

        guard let subjectName = X509_get_subject_name(x), let issuerName = X509_get_issuer_name(x) else {
            throw .malformed("no subject or issuer")
        }
        guard let subject = DistinguishedName.normalizedContent(try Self.der(of: subjectName)),
            let issuer = DistinguishedName.normalizedContent(try Self.der(of: issuerName))
        else { throw .malformed("a malformed subject or issuer name") }
        self.subject = subject
        self.issuer = issuer

        guard let serial = X509_get0_serialNumber(x) else { throw .malformed("no serial number") }
        serialNumber = try Self.integerContent(serial)

        // X509_get0_subject_key_id caches the extensions first (X509_check_purpose).
        if let skid = X509_get0_subject_key_id(x) {
            subjectKeyID = Self.bytes(of: skid)
        } else {
            subjectKeyID = nil
        }

        guard let bits = X509_get0_pubkey_bitstr(x) else { throw .malformed("no subject public key") }
        publicKeyHash = Fingerprint.sha1(Self.bytes(of: bits))

        subjectValues = Self.values(of: subjectName)
        commonName = Self.values(of: subjectName, nid: NID_commonName).last
        emailAddresses = Self.emails(x)
        guard let before = X509_get0_notBefore(x), let after = X509_get0_notAfter(x),
            let notBefore = Self.milliseconds(before), let notAfter = Self.milliseconds(after)
        else { throw .malformed("a malformed validity period") }
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// Whether the certificate is valid at `milliseconds` since 1970 (both ends included).
    public func isValid(at milliseconds: Int64) -> Bool { notBefore <= milliseconds && milliseconds <= notAfter }

    // MARK: OpenSSL values into Swift

    /// A Name's DER encoding as the certificate carried it.
    private static func der(of name: OpaquePointer) throws(CertificateError) -> [UInt8] {
        var pointer: UnsafePointer<UInt8>?
        var length = 0
        guard X509_NAME_get0_der(name, &pointer, &length) == 1, let pointer, length > 0 else {
            throw .malformed("a name without an encoding")
        }
        return Array(UnsafeBufferPointer(start: pointer, count: length))
    }

    /// An INTEGER's content bytes (its DER without tag and length).
    private static func integerContent(_ integer: UnsafePointer<ASN1_INTEGER>) throws(CertificateError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_ASN1_INTEGER(integer, &out)
        guard length > 0, let out else { throw .malformed("a malformed serial number") }
        defer { CRYPTO_free(out, #fileID, #line) }
        let encoded = Array(UnsafeBufferPointer(start: out, count: Int(length)))
        guard let element = DER.element(encoded, at: 0, limit: encoded.count), element.tag == DER.integer,
            !element.content.isEmpty
        else { throw .malformed("a malformed serial number") }
        return Array(encoded[element.content])
    }

    private static func bytes(of string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(string))
        guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    /// Each entry's value as UTF-8 text (ASN1_STRING_to_UTF8 converts BMPString and the like);
    /// an entry that does not convert is left out.
    private static func values(of name: OpaquePointer, nid: Int32? = nil) -> [String] {
        var values: [String] = []
        for index in 0..<max(0, X509_NAME_entry_count(name)) {
            guard let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry) else { continue }
            if let nid, OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry)) != nid { continue }
            var out: UnsafeMutablePointer<UInt8>?
            let length = ASN1_STRING_to_UTF8(&out, data)
            guard length >= 0, let out else { continue }
            values.append(String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self))
            CRYPTO_free(out, #fileID, #line)
        }
        return values
    }

    private static func emails(_ x: OpaquePointer) -> [String] {
        guard let stack = X509_get1_email(x) else { return [] }
        defer { X509_email_free(stack) }
        var emails: [String] = []
        for index in 0..<max(0, keychaind_string_stack_count(stack)) {
            if let text = keychaind_string_stack_value(stack, index) { emails.append(String(cString: text)) }
        }
        return emails
    }

    private static func milliseconds(_ time: UnsafePointer<ASN1_TIME>) -> Int64? {
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        let seconds = timegm(&parts)
        return Int64(seconds) * 1000
    }
}

/// Owns one `X509` and frees it.
final class X509Handle {
    let pointer: OpaquePointer

    /// Takes over `pointer` (from `PKCS12_SAFEBAG_get1_cert` and the like), which it frees.
    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    /// Parses `der`, which must be one certificate and nothing after it.
    init(_ der: [UInt8]) throws(CertificateError) {
        switch D2I.parse(der, { d2i_X509(nil, $0, $1) }, free: X509_free) {
        case .parsed(let parsed): pointer = parsed
        case .malformed: throw .malformed("not a DER X.509 certificate")
        case .trailing: throw .malformed("bytes after the certificate")
        }
    }

    deinit { X509_free(pointer) }
}

internal import COpenSSL

/// Password-based encryption as PKCS #12 files and encrypted PKCS #8 keys use it: the password
/// as OpenSSL takes it, and the cost of the key derivations the file asks for.
enum PBE {
    /// The most iterations the key derivations of one file (a PKCS #12 file's MAC and
    /// encryptions, an encrypted key's) may cost in all: OpenSSL's default is 2048 each.
    static let maxIterations = 1_000_000

    /// Whether OpenSSL's legacy provider loaded (RC2, DES: what older PKCS #12 files and
    /// encrypted keys use), beside the default one.
    static var legacyProviderLoaded: Bool { Providers.loaded.legacy != nil }

    /// Loads the providers (once), before anything is decrypted.
    static func loadProviders() { _ = Providers.loaded }

    /// The providers loaded, held for the process's life (never unloaded, and reachable, so a
    /// leak checker does not count them once OpenSSL's exit handler has cleaned up around them).
    /// Loading any provider explicitly stops OpenSSL 3 from loading the default one by itself,
    /// so the default one is loaded first.
    private final class Providers: @unchecked Sendable {  // written once, in `loaded`'s initializer
        let `default`: OpaquePointer?
        let legacy: OpaquePointer?

        static let loaded = Providers()

        private init() {
            `default` = OSSL_PROVIDER_load(nil, "default")
            legacy = `default` == nil ? nil : OSSL_PROVIDER_load(nil, "legacy")
            ERR_clear_error()
        }
    }

    /// `password` as a C string (UTF-8, NUL-terminated), which OpenSSL's PKCS #12 and PKCS #8
    /// functions take; a NUL inside would cut it short, so it is refused.
    static func cString(_ password: String) throws(CertificateError) -> [CChar] {
        guard !password.utf8.contains(0) else { throw .malformed("a password with a NUL character") }
        return password.utf8CString.map { $0 }
    }

    /// The iterations the key derivations of one file may cost in all, spent as each
    /// AlgorithmIdentifier is read and before OpenSSL runs the derivation it names. The count is
    /// the sender's to choose: PBKDF2 over two billion iterations would hold a thread for hours.
    struct Budget {
        let limit: Int
        private(set) var remaining: Int

        init(_ limit: Int) {
            self.limit = limit
            remaining = limit
        }

        /// Spends `iterations` (a MAC's count, or a scheme's).
        mutating func spend(_ iterations: Int) throws(CertificateError) {
            guard iterations >= 1 else { throw .malformed("a key derivation without a positive iteration count") }
            guard iterations <= remaining else { throw .malformed("key derivations of more than \(limit) iterations in all") }
            remaining -= iterations
        }

        /// Spends what an encryption scheme's AlgorithmIdentifier asks: PBES2 with PBKDF2 (its
        /// PBKDF2-params' count), or a PKCS #5 v1.5 or PKCS #12 scheme (its PBEParameter's).
        /// Other key derivations (scrypt) are refused.
        mutating func spend(_ algorithm: UnsafePointer<X509_ALGOR>?) throws(CertificateError) {
            guard let (nid, parameters) = Self.parts(algorithm) else { throw .malformed("an encryption without its parameters") }
            let iterations: Int
            if nid == NID_pbes2 {
                let scheme = try Self.parse(parameters, { d2i_PBE2PARAM(nil, $0, $1) }, free: PBE2PARAM_free)
                defer { PBE2PARAM_free(scheme) }
                guard let keyDerivation = Self.parts(UnsafePointer(scheme.pointee.keyfunc)), keyDerivation.nid == NID_id_pbkdf2
                else { throw .malformed("a key derivation other than PBKDF2") }
                let kdf = try Self.parse(keyDerivation.parameters, { d2i_PBKDF2PARAM(nil, $0, $1) }, free: PBKDF2PARAM_free)
                defer { PBKDF2PARAM_free(kdf) }
                iterations = kdf.pointee.iter.map { Int(ASN1_INTEGER_get($0)) } ?? 0
            } else {
                let scheme = try Self.parse(parameters, { d2i_PBEPARAM(nil, $0, $1) }, free: PBEPARAM_free)
                defer { PBEPARAM_free(scheme) }
                iterations = scheme.pointee.iter.map { Int(ASN1_INTEGER_get($0)) } ?? 0
            }
            try spend(iterations)
        }

        /// An AlgorithmIdentifier's NID and its parameters' DER (a SEQUENCE); nil when the
        /// parameters are absent or of another type.
        private static func parts(_ algorithm: UnsafePointer<X509_ALGOR>?) -> (nid: Int32, parameters: [UInt8])? {
            guard let algorithm else { return nil }
            var object: OpaquePointer?
            var type: Int32 = 0
            var value: UnsafeRawPointer?
            X509_ALGOR_get0(&object, &type, &value, algorithm)
            guard type == V_ASN1_SEQUENCE, let value else { return nil }
            let sequence = value.assumingMemoryBound(to: ASN1_STRING.self)
            let length = Int(ASN1_STRING_length(sequence))
            guard length > 0, let data = ASN1_STRING_get0_data(sequence) else { return nil }
            return (OBJ_obj2nid(object), Array(UnsafeBufferPointer(start: data, count: length)))
        }

        /// One parameters structure, the whole of `der`.
        private static func parse<T>(
            _ der: [UInt8], _ d2i: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> UnsafeMutablePointer<T>?,
            free: @escaping (UnsafeMutablePointer<T>?) -> Void
        ) throws(CertificateError) -> UnsafeMutablePointer<T> {
            let outcome = D2I.parse(
                der, { OpaquePointer(d2i($0, $1)) }, free: { free(UnsafeMutablePointer<T>($0)) })
            guard case .parsed(let parsed) = outcome else { throw .malformed("malformed encryption parameters") }
            return UnsafeMutablePointer<T>(parsed)
        }
    }
}

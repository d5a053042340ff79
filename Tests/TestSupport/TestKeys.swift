import Foundation

/// Keys made for a test by the `openssl` command line, in Apple's external representation,
/// with what openssl itself says of them: the reference the keychain's checks are compared against.
public final class TestKeys: @unchecked Sendable {  // used from one test at a time
    public let tool = TestCertificates()

    public init() {}

    /// One key pair (or a symmetric key, `publicKey` empty): the bytes a client would send.
    public struct Made: Sendable {
        public let privateKey: [UInt8]
        public let publicKey: [UInt8]
        /// SHA-1 of `publicKey`, by `openssl dgst -sha1`.
        public let publicKeyHash: [UInt8]
        /// The PEM key file, for a certificate of the same key.
        public let keyPath: String
    }

    private var directory: String { tool.directory.path }

    private func read(_ path: String) throws -> [UInt8] { try TestCertificates.read(path) }

    private func sha1(_ bytes: [UInt8], _ name: String) throws -> [UInt8] {
        let path = "\(directory)/\(name).hashin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let line = try tool.openssl(["dgst", "-sha1", "-r", path])
        return TestCertificates.hexBytes(String(line.prefix(40)))!
    }

    /// RSA of `bits`: PKCS#1 RSAPrivateKey and RSAPublicKey DER.
    public func rsa(_ name: String, bits: Int = 2048) throws -> Made {
        let pem = "\(directory)/\(name).pem"
        try tool.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)", "-out", pem])
        try tool.openssl(["rsa", "-in", pem, "-outform", "DER", "-traditional", "-out", "\(pem).priv"])
        try tool.openssl(["rsa", "-in", pem, "-RSAPublicKey_out", "-outform", "DER", "-out", "\(pem).pub"])
        let publicKey = try read("\(pem).pub")
        return Made(
            privateKey: try read("\(pem).priv"), publicKey: publicKey, publicKeyHash: try sha1(publicKey, name), keyPath: pem)
    }

    /// EC on `curve` (P-256, P-384, P-521): X9.63 `04‖X‖Y` and `04‖X‖Y‖K`, from `openssl ec -text`.
    public func ec(_ name: String, curve: String = "P-256") throws -> Made {
        let pem = "\(directory)/\(name).pem"
        try tool.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve)", "-out", pem])
        let (point, privateKey) = try Self.x963(ofECKeyFile: pem, tool: tool)
        return Made(privateKey: privateKey, publicKey: point, publicKeyHash: try sha1(point, name), keyPath: pem)
    }

    /// The X9.63 public point and private key (`04‖X‖Y‖K`, K padded to the field) of the EC
    /// key file at `pem`, from `openssl ec -text`.
    public static func x963(ofECKeyFile pem: String, tool: TestCertificates) throws -> (point: [UInt8], privateKey: [UInt8]) {
        let text = try tool.openssl(["ec", "-in", pem, "-noout", "-text"])
        func hex(after label: String) -> [UInt8] {
            var lines = text.split(separator: "\n").drop { !$0.hasPrefix(label) }.dropFirst()
            var digits = ""
            while let line = lines.first, line.hasPrefix(" ") {
                digits += line.filter { $0.isHexDigit }
                lines = lines.dropFirst()
            }
            return TestCertificates.hexBytes(digits)!
        }
        let point = hex(after: "pub:")
        let length = (point.count - 1) / 2
        var scalar = hex(after: "priv:")
        while scalar.count > length, scalar.first == 0 { scalar.removeFirst() }
        scalar = [UInt8](repeating: 0, count: length - scalar.count) + scalar
        return (point, point + scalar)
    }

    /// Ed25519 or X25519 (`algorithm` ED25519 or X25519): the raw 32-byte keys, the last 32
    /// bytes of openssl's PKCS#8 and SubjectPublicKeyInfo DER.
    public func raw25519(_ name: String, algorithm: String) throws -> Made {
        let pem = "\(directory)/\(name).pem"
        try tool.openssl(["genpkey", "-algorithm", algorithm, "-out", pem])
        try tool.openssl(["pkey", "-in", pem, "-outform", "DER", "-out", "\(pem).priv"])
        try tool.openssl(["pkey", "-in", pem, "-pubout", "-outform", "DER", "-out", "\(pem).pub"])
        let publicKey = Array(try read("\(pem).pub").suffix(32))
        return Made(
            privateKey: Array(try read("\(pem).priv").suffix(32)), publicKey: publicKey, publicKeyHash: try sha1(publicKey, name),
            keyPath: pem)
    }

    /// `count` random bytes from `openssl rand`: a symmetric key.
    public func symmetric(_ name: String, count: Int = 32) throws -> Made {
        let path = "\(directory)/\(name).key"
        try tool.openssl(["rand", "-out", path, String(count)])
        return Made(privateKey: try read(path), publicKey: [], publicKeyHash: [], keyPath: path)
    }

    /// A self-signed certificate of `made`'s key pair.
    public func certificate(_ name: String, of made: Made) throws -> [UInt8] {
        let pem = "\(directory)/\(name).crt.pem"
        try tool.openssl(["req", "-x509", "-new", "-key", made.keyPath, "-subj", "/CN=\(name)", "-days", "2", "-out", pem])
        return try tool.der(pem)
    }
}

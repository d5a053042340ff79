import Foundation

/// Certificates made for a test by the `openssl` command line (Debian's `openssl`, in the
/// Makefile's DEBS_TEST), in a temporary directory of their own, and what `openssl x509` says
/// of them: the reference the keychain's derived attributes are compared against.
public final class TestCertificates: @unchecked Sendable {  // used from one test at a time
    public let directory = TemporaryDirectory(prefix: "kcd-certs")

    public init() {}

    /// One certificate: its DER, and the files it was made from.
    public struct Made: Sendable {
        public let der: [UInt8]
        public let certificatePath: String
        public let keyPath: String
    }

    /// A self-signed CA (P-256) with `subject` (`/CN=…/O=…`) and `serial` (hex).
    public func makeCA(_ name: String, subject: String, serial: String = "01", days: Int = 30) throws -> Made {
        let key = "\(directory.path)/\(name).key"
        let pem = "\(directory.path)/\(name).pem"
        try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key])
        try openssl([
            "req", "-x509", "-new", "-key", key, "-subj", subject, "-set_serial", "0x" + serial, "-days", String(days),
            "-sha256", "-out", pem,
        ])
        return Made(der: try der(pem), certificatePath: pem, keyPath: key)
    }

    /// A leaf for `subject`, signed by `issuer`, with `serial` (hex); `extensions` is an
    /// `openssl x509 -extfile` text (`subjectAltName=email:a@b`), or none (then no extension
    /// at all, so no subjectKeyIdentifier either).
    public func makeLeaf(
        _ name: String, subject: String, issuer: Made, serial: String, days: Int = 30, extensions: String? = nil
    ) throws -> Made {
        let key = "\(directory.path)/\(name).key"
        let csr = "\(directory.path)/\(name).csr"
        let pem = "\(directory.path)/\(name).pem"
        try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key])
        try openssl(["req", "-new", "-key", key, "-subj", subject, "-out", csr])
        var arguments = [
            "x509", "-req", "-in", csr, "-CA", issuer.certificatePath, "-CAkey", issuer.keyPath, "-set_serial", "0x" + serial,
            "-days", String(days), "-sha256", "-out", pem,
        ]
        if let extensions {
            let file = "\(directory.path)/\(name).ext"
            try extensions.write(toFile: file, atomically: true, encoding: .utf8)
            arguments += ["-extfile", file]
        }
        try openssl(arguments)
        return Made(der: try der(pem), certificatePath: pem, keyPath: key)
    }

    /// The DER of the PEM certificate at `pem`.
    public func der(_ pem: String) throws -> [UInt8] {
        let out = "\(pem).der"
        try openssl(["x509", "-in", pem, "-outform", "DER", "-out", out])
        return Array(try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    /// `openssl x509 -noout -serial`: the serial in upper-case hex.
    public func serialHex(_ made: Made) throws -> String {
        let line = try openssl(["x509", "-in", made.certificatePath, "-noout", "-serial"])
        return String(line.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("serial=".count))
    }

    /// `openssl x509 -noout -ext subjectKeyIdentifier`: the key identifier's bytes, or nil when none.
    public func subjectKeyID(_ made: Made) throws -> [UInt8]? {
        let text = try openssl(["x509", "-in", made.certificatePath, "-noout", "-ext", "subjectKeyIdentifier"])
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.count >= 2 else { return nil }
        return Self.hexBytes(lines[1].replacingOccurrences(of: ":", with: ""))
    }

    /// The DER of the subject or issuer Name (`openssl x509 -subject`/`-issuer` with `-nameopt`
    /// would print text; the DER is cut from `openssl asn1parse` of the certificate instead).
    public func nameDER(_ made: Made, issuer: Bool) throws -> [UInt8] {
        // tbsCertificate children: [0] version, serial, signature, issuer, validity, subject.
        let text = try openssl(["asn1parse", "-in", made.certificatePath, "-i"])
        var names: [(offset: Int, length: Int)] = []
        for line in text.split(separator: "\n") where line.contains("d=2") && line.contains("SEQUENCE") {
            // "   31:d=2  hl=2 l=  23 cons:  SEQUENCE"
            let parts = line.split(separator: ":")
            guard let offset = Int(parts[0].trimmingCharacters(in: .whitespaces)) else { continue }
            let header = parts[1]
            guard let hl = Self.field(header, "hl="), let l = Self.field(header, " l=") else { continue }
            names.append((offset, hl + l))
        }
        // d=2 SEQUENCEs in order: signature algorithm, issuer, validity, subject, subjectPublicKeyInfo, …
        let which = names[issuer ? 1 : 3]
        return Array(made.der[which.offset..<which.offset + which.length])
    }

    /// SHA-1 of the subjectPublicKey BIT STRING's bytes, from `openssl x509 -pubkey` (a P-256
    /// key's SubjectPublicKeyInfo ends with its 65-byte point) and `openssl dgst -sha1`.
    public func publicKeyHash(_ made: Made) throws -> [UInt8] {
        let pub = "\(made.certificatePath).pub.pem"
        let spki = "\(made.certificatePath).spki"
        let point = "\(made.certificatePath).point"
        try openssl(["x509", "-in", made.certificatePath, "-noout", "-pubkey", "-out", pub])
        try openssl(["pkey", "-pubin", "-in", pub, "-outform", "DER", "-out", spki])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: spki)))
        try Data(bytes.suffix(65)).write(to: URL(fileURLWithPath: point))
        let line = try openssl(["dgst", "-sha1", "-r", point])
        return Self.hexBytes(String(line.prefix(40)))!
    }

    @discardableResult
    public func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(
                domain: "openssl", code: Int(process.terminationStatus),
                userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.first ?? "") failed"])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The bytes of the file at `path`.
    public static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    public static func hexBytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    private static func field(_ header: Substring, _ name: String) -> Int? {
        guard let range = header.range(of: name) else { return nil }
        let rest = header[range.upperBound...].drop { $0 == " " }
        return Int(rest.prefix { $0.isNumber })
    }
}

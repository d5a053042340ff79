import KeychainX509
import TestSupport
import Testing

@Suite struct PKCS12Tests {
    /// A CA, a leaf of `kind` signed by it, and the files: what `openssl pkcs12 -export` reads.
    struct Identity {
        let keys = TestKeys()
        let made: TestKeys.Made
        let ca: TestCertificates.Made
        let leaf: [UInt8]
        let openssl: OpenSSL

        init(_ kind: KeyKind) throws {
            made = try kind.make(keys)
            openssl = OpenSSL(directory: keys.tool.directory.path)
            ca = try keys.tool.makeCA("ca", subject: "/CN=P12 CA/O=Acme")
            try openssl.run([
                "req", "-new", "-key", made.keyPath, "-subj", "/CN=\(kind.rawValue).example.com", "-out", "leaf.csr",
            ])
            try openssl.run([
                "x509", "-req", "-in", "leaf.csr", "-CA", ca.certificatePath, "-CAkey", ca.keyPath, "-set_serial", "0x1234",
                "-days", "2", "-out", "leaf.pem",
            ])
            leaf = try keys.tool.der(openssl.path("leaf.pem"))
        }

        /// `openssl pkcs12 -export` of the key, the leaf and the CA, with `options`.
        func export(_ options: [String], password: String = "pw", name: String = "id.p12") throws -> [UInt8] {
            try openssl.run(
                [
                    "pkcs12", "-export", "-inkey", made.keyPath, "-in", "leaf.pem", "-certfile", ca.certificatePath, "-passout",
                    "pass:\(password)",
                    "-out", name,
                ] + options)
            return try openssl.read(name)
        }
    }

    /// openssl's file gives the leaf, the CA as the chain, the key openssl's own output gives,
    /// and the friendly name; another password is the distinct wrong-password error.
    @Test(arguments: KeyKind.certifiable)
    func parsesWhatOpenSSLExports(kind: KeyKind) throws {
        let identity = try Identity(kind)
        let file = try identity.export(["-name", "svc key"])
        let contents = try PKCS12.parse(file, password: "pw")
        #expect(contents.certificate == identity.leaf)
        #expect(contents.chain == [identity.ca.der])
        #expect(contents.key.algorithm == kind.algorithm && contents.key.role == .private)
        #expect(contents.key.external == identity.made.privateKey)
        #expect(contents.friendlyName == "svc key")
        #expect(try contents.key.material.publicKeyHash == (try Certificate(der: contents.certificate)).publicKeyHash)

        let wrong = try #require(throws: CertificateError.self) { try PKCS12.parse(file, password: "pW") }
        #expect(wrong.isWrongPassword && wrong == .wrongPassword)
        #expect(throws: CertificateError.wrongPassword) { try PKCS12.parse(file, password: "") }
    }

    /// Files of openssl 1.1's algorithms (RC2-40, 3DES, a SHA-1 MAC) through the legacy
    /// provider, an empty password, and a file without a name.
    @Test func legacyAndEmptyPasswordFiles() throws {
        let identity = try Identity(.p256)
        #expect(PKCS12.legacyAlgorithmsAvailable, "Debian's libssl3 has the legacy provider")
        let legacy = try identity.export(["-legacy"])
        let info = try identity.openssl.run(["pkcs12", "-in", "id.p12", "-passin", "pass:pw", "-info", "-noout", "-legacy"]).err
        #expect(info.contains("pbeWithSHA1And40BitRC2-CBC") && info.contains("MAC: sha1"))
        let contents = try PKCS12.parse(legacy, password: "pw")
        #expect(contents.key.external == identity.made.privateKey)
        #expect(contents.certificate == identity.leaf && contents.chain == [identity.ca.der])
        #expect(contents.friendlyName == nil)
        #expect(throws: CertificateError.wrongPassword) { try PKCS12.parse(legacy, password: "pw ") }

        let empty = try identity.export([], password: "", name: "empty.p12")
        #expect(try PKCS12.parse(empty, password: "").key.external == identity.made.privateKey)
        #expect(throws: CertificateError.wrongPassword) { try PKCS12.parse(empty, password: "pw") }

    }

    @Test func incompleteAndMalformedFilesAreRefused() throws {
        let identity = try Identity(.p256)
        let openssl = identity.openssl
        let malformed = CertificateError.malformed("")
        try openssl.run(["pkcs12", "-export", "-nokeys", "-in", "leaf.pem", "-passout", "pass:pw", "-out", "nokey.p12"])
        let noKey = try #require(throws: CertificateError.self) {
            try PKCS12.parse(try openssl.read("nokey.p12"), password: "pw")
        }
        #expect(noKey == malformed && noKey.message.contains("private key"))
        try openssl.run([
            "pkcs12", "-export", "-nocerts", "-inkey", identity.made.keyPath, "-passout", "pass:pw", "-out", "nocert.p12",
        ])
        let noCertificate = try #require(throws: CertificateError.self) {
            try PKCS12.parse(try openssl.read("nocert.p12"), password: "pw")
        }
        #expect(noCertificate == malformed && noCertificate.message.contains("certificate"))
        let noMAC = try identity.export(["-nomac"], name: "nomac.p12")
        let noMACError = try #require(throws: CertificateError.self) { try PKCS12.parse(noMAC, password: "pw") }
        #expect(noMACError == malformed && noMACError.message.contains("MAC"))
        let file = try identity.export([])
        #expect(throws: malformed) { try PKCS12.parse([], password: "pw") }
        #expect(throws: malformed) { try PKCS12.parse(Array("not pkcs12".utf8), password: "pw") }
        #expect(throws: malformed) { try PKCS12.parse(file + [0], password: "pw") }
        #expect(throws: malformed) { try PKCS12.parse([UInt8](repeating: 0x30, count: PKCS12.maxBytes + 1), password: "pw") }
        #expect(throws: malformed) { try PKCS12.parse(identity.leaf, password: "pw") }
        #expect(throws: malformed) { try PKCS12.parse(file, password: "p\u{0}w") }
        for length in 0..<file.count {
            #expect(throws: malformed) { try PKCS12.parse(Array(file.prefix(length)), password: "pw") }
        }
        // A flipped bit is refused (most often by the MAC), or changes nothing that is read.
        let contents = try PKCS12.parse(file, password: "pw")
        var generator = SystemRandomNumberGenerator()
        for index in 0..<file.count {
            var mutated = file
            mutated[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            guard let parsed = try? PKCS12.parse(mutated, password: "pw") else { continue }
            #expect(parsed.certificate == contents.certificate && parsed.key.external == contents.key.external, "byte \(index)")
        }
    }

    /// Iteration counts are read before any key derivation runs: a MAC's count over the budget is
    /// refused at once, and so are encryptions whose counts add up past it.
    @Test func iterationCountsAreBounded() throws {
        let identity = try Identity(.p256)
        // 65536 iterations: the INTEGER 01 00 00, for the MAC (last) and each encryption.
        let file = try identity.export(["-iter", "65536"])
        #expect(try PKCS12.parse(file, password: "pw").key.external == identity.made.privateKey)
        let count: [UInt8] = [0x02, 0x03, 0x01, 0x00, 0x00]
        let macCount = try #require(file.lastRange(of: count))
        var huge = file
        huge.replaceSubrange(macCount, with: [0x02, 0x03, 0x7F, 0xFF, 0xFF])
        let error = try #require(throws: CertificateError.self) { try PKCS12.parse(huge, password: "pw") }
        #expect(!error.isWrongPassword && error.message.contains("iterations"))

        // 400000 each: the MAC's and the certificates' fit, the key's does not.
        let costly = try identity.export(["-iter", "400000"], name: "costly.p12")
        let costlyError = try #require(throws: CertificateError.self) { try PKCS12.parse(costly, password: "pw") }
        #expect(costlyError.message.contains("iterations"))
    }

    /// make's file is read by `openssl pkcs12` (its algorithms as openssl 3 writes by default,
    /// the key, the certificates and the name) and by parse.
    @Test(arguments: KeyKind.certifiable)
    func makeIsReadByOpenSSLAndParse(kind: KeyKind) throws {
        let identity = try Identity(kind)
        let key = try ImportedKey(identity.made.privateKey, algorithm: kind.algorithm, role: .private)
        let file = try PKCS12.make(
            certificate: identity.leaf, key: key, chain: [identity.ca.der], password: "pässword", friendlyName: "svc ü")
        let openssl = identity.openssl
        try openssl.write("made.p12", file)
        let (dump, info) = try openssl.run(["pkcs12", "-in", "made.p12", "-passin", "pass:pässword", "-nodes", "-info"])
        #expect(
            info.contains("PKCS7 Encrypted data: PBES2, PBKDF2, AES-256-CBC, Iteration \(PKCS12.iterations), PRF hmacWithSHA256"))
        #expect(info.contains("Shrouded Keybag: PBES2, PBKDF2, AES-256-CBC, Iteration \(PKCS12.iterations), PRF hmacWithSHA256"))
        #expect(info.contains("MAC: sha256, Iteration \(PKCS12.iterations)"))
        // openssl prints the name's BMPString as Latin-1: the parse below reads it as UTF-8.
        #expect(String(decoding: dump, as: UTF8.self).components(separatedBy: "friendlyName: svc ").count == 3)
        let blocks = try PEM.decode(dump)
        #expect(blocks.filter { $0.label == "CERTIFICATE" }.map(\.der) == [identity.leaf, identity.ca.der])
        let keyBlock = try #require(blocks.first { $0.label == "PRIVATE KEY" })
        #expect(try PEM.importKey(keyBlock).external == identity.made.privateKey)

        let contents = try PKCS12.parse(file, password: "pässword")
        #expect(contents.certificate == identity.leaf && contents.chain == [identity.ca.der])
        #expect(contents.key.external == identity.made.privateKey && contents.key.algorithm == kind.algorithm)
        #expect(contents.friendlyName == "svc ü")
        #expect(throws: CertificateError.wrongPassword) { try PKCS12.parse(file, password: "password") }
    }

    @Test func makeRefusesWhatDoesNotGoTogether() throws {
        let identity = try Identity(.ed25519)
        let key = try ImportedKey(identity.made.privateKey, algorithm: .ed25519, role: .private)
        let publicKey = try ImportedKey(identity.made.publicKey, algorithm: .ed25519, role: .public)
        let noName = try PKCS12.make(certificate: identity.leaf, key: key, chain: [], password: "pw", friendlyName: nil)
        let contents = try PKCS12.parse(noName, password: "pw")
        #expect(contents.chain.isEmpty && contents.friendlyName == nil && contents.key.external == identity.made.privateKey)
        // An empty password, as openssl reads it (`pass:`).
        let empty = try PKCS12.make(certificate: identity.leaf, key: key, chain: [], password: "", friendlyName: nil)
        try identity.openssl.write("empty.p12", empty)
        let dump = try identity.openssl.run(["pkcs12", "-in", "empty.p12", "-passin", "pass:", "-nodes"]).out
        let keyBlock = try #require(try PEM.decode(dump).first { $0.label == "PRIVATE KEY" })
        #expect(try PEM.importKey(keyBlock).external == key.external)
        #expect(try PKCS12.parse(empty, password: "").certificate == identity.leaf)
        #expect(throws: CertificateError.wrongPassword) { try PKCS12.parse(empty, password: "pw") }
        let wrongCertificate = try #require(throws: CertificateError.self) {
            try PKCS12.make(certificate: identity.ca.der, key: key, chain: [], password: "pw", friendlyName: nil)
        }
        #expect(wrongCertificate.message.contains("another key"))
        let notPrivate = try #require(throws: CertificateError.self) {
            try PKCS12.make(certificate: identity.leaf, key: publicKey, chain: [], password: "pw", friendlyName: nil)
        }
        #expect(notPrivate.isMismatch)
        #expect(throws: CertificateError.malformed("")) {
            try PKCS12.make(certificate: identity.leaf, key: key, chain: [[0x30, 0x00]], password: "pw", friendlyName: nil)
        }
        #expect(throws: CertificateError.malformed("")) {
            try PKCS12.make(certificate: Array(identity.leaf.dropLast()), key: key, chain: [], password: "pw", friendlyName: nil)
        }
    }
}

extension Array where Element == UInt8 {
    /// The range of the last occurrence of `pattern`.
    fileprivate func lastRange(of pattern: [UInt8]) -> Range<Int>? {
        guard count >= pattern.count else { return nil }
        for start in stride(from: count - pattern.count, through: 0, by: -1)
        where self[start..<start + pattern.count].elementsEqual(pattern) {
            return start..<start + pattern.count
        }
        return nil
    }
}

import KeychainX509
import TestSupport
import Testing

@Suite struct KeyImportTests {
    /// Each operator form of a key openssl made gives the external bytes openssl's own output
    /// gives (`TestKeys`), which `KeyMaterial` accepts with the certificate's public-key hash.
    @Test(arguments: KeyKind.allCases)
    func everyFormImportsToOpenSSLsExternalBytes(kind: KeyKind) throws {
        let keys = TestKeys()
        let made = try kind.make(keys)
        let openssl = OpenSSL(directory: keys.tool.directory.path)
        let file = "\(kind.rawValue).pem"
        var privateForms: [(label: String, text: [UInt8])] = [("PRIVATE KEY", try openssl.run(["pkey", "-in", file]).out)]
        var publicForms: [(label: String, text: [UInt8])] = [
            ("PUBLIC KEY", try openssl.run(["pkey", "-in", file, "-pubout"]).out)
        ]
        // `pkey -outform DER` writes RSA and EC keys in their own forms; `pkcs8 -topk8` writes PKCS #8.
        var privateDER = [try openssl.run(["pkcs8", "-topk8", "-nocrypt", "-in", file, "-outform", "DER"]).out]
        var publicDER = [try openssl.run(["pkey", "-in", file, "-pubout", "-outform", "DER"]).out]
        switch kind.algorithm {
        case .rsa:
            privateForms.append(("RSA PRIVATE KEY", try openssl.run(["rsa", "-in", file, "-traditional"]).out))
            publicForms.append(("RSA PUBLIC KEY", try openssl.run(["rsa", "-in", file, "-RSAPublicKey_out"]).out))
            privateDER.append(made.privateKey)
            publicDER.append(made.publicKey)
        case .ec:
            privateForms.append(("EC PRIVATE KEY", try openssl.run(["ec", "-in", file]).out))
            privateDER.append(try openssl.run(["ec", "-in", file, "-outform", "DER"]).out)
            // A compressed point comes out uncompressed, as X9.63's external form has it.
            publicForms.append(("PUBLIC KEY", try openssl.run(["ec", "-in", file, "-pubout", "-conv_form", "compressed"]).out))
            let sec1Compressed = try openssl.run(["ec", "-in", file, "-conv_form", "compressed", "-outform", "DER"]).out
            privateDER.append(sec1Compressed)
        default:
            break
        }
        for (label, text) in privateForms {
            let blocks = try PEM.decode(text)
            #expect(blocks.map(\.label) == [label])
            let key = try PEM.importKey(try #require(blocks.first))
            #expect((key.algorithm, key.role) == (kind.algorithm, .private), "\(label)")
            #expect(key.external == made.privateKey, "\(label)")
        }
        for (label, text) in publicForms {
            let key = try PEM.importKey(try #require(try PEM.decode(text).first))
            #expect((key.algorithm, key.role) == (kind.algorithm, .public), "\(label)")
            #expect(key.external == made.publicKey, "\(label)")
        }
        for der in privateDER { #expect(try PEM.importKey(der: der).external == made.privateKey) }
        for der in publicDER { #expect(try PEM.importKey(der: der).external == made.publicKey) }

        let imported = try PEM.importKey(try #require(try PEM.decode(privateForms[0].text).first))
        let material = try KeyMaterial(imported.external, algorithm: kind.algorithm, role: .private)
        #expect(material.publicKeyHash == made.publicKeyHash)
        if kind.certifiable {
            let certificate = try Certificate(der: try keys.certificate(kind.rawValue, of: made))
            #expect(material.publicKeyHash == certificate.publicKeyHash)
            #expect(try imported.material.publicKeyHash == certificate.publicKeyHash)
        }
    }

    /// exportKey writes the PKCS #8 and SubjectPublicKeyInfo openssl writes for the same key;
    /// `openssl pkey` reads them back; importing the export gives the bytes exported.
    @Test(arguments: KeyKind.allCases)
    func exportIsWhatOpenSSLWritesAndReadsBack(kind: KeyKind) throws {
        let keys = TestKeys()
        let made = try kind.make(keys)
        let openssl = OpenSSL(directory: keys.tool.directory.path)
        let file = "\(kind.rawValue).pem"

        let privateBlock = try PEM.exportKey(made.privateKey, algorithm: kind.algorithm, role: .private)
        #expect(privateBlock.label == "PRIVATE KEY")
        #expect(privateBlock.der == (try openssl.run(["pkcs8", "-topk8", "-nocrypt", "-in", file, "-outform", "DER"]).out))
        try openssl.write("exported.pem", PEM.encode(label: privateBlock.label, der: privateBlock.der))
        let reread = try openssl.run(["pkey", "-in", "exported.pem"]).out
        #expect(try PEM.decode(reread) == [privateBlock])
        #expect(try PEM.importKey(privateBlock).external == made.privateKey)

        let publicBlock = try PEM.exportKey(made.publicKey, algorithm: kind.algorithm, role: .public)
        #expect(publicBlock.label == "PUBLIC KEY")
        #expect(publicBlock.der == (try openssl.run(["pkey", "-in", file, "-pubout", "-outform", "DER"]).out))
        try openssl.write("exported.pub.pem", PEM.encode(label: publicBlock.label, der: publicBlock.der))
        let rereadPublic = try openssl.run(["pkey", "-pubin", "-in", "exported.pub.pem", "-outform", "DER"]).out
        #expect(rereadPublic == publicBlock.der)
        #expect(try PEM.importKey(publicBlock).external == made.publicKey)
    }

    /// An ENCRYPTED PRIVATE KEY (openssl's default: PBES2, AES-256-CBC) opens with its password
    /// only; a traditional encrypted key (Proc-Type headers) is refused.
    @Test func encryptedKeysNeedTheirPassword() throws {
        let keys = TestKeys()
        let made = try keys.ec("ec", curve: "P-384")
        let openssl = OpenSSL(directory: keys.tool.directory.path)
        let text = try openssl.run(["pkcs8", "-topk8", "-in", "ec.pem", "-passout", "pass:s3cret"]).out
        let block = try #require(try PEM.decode(text).first)
        #expect(block.label == "ENCRYPTED PRIVATE KEY")
        #expect(try PEM.importKey(block, password: "s3cret").external == made.privateKey)
        #expect(throws: CertificateError.wrongPassword) { try PEM.importKey(block, password: "secret") }
        let error = try #require(throws: CertificateError.self) { try PEM.importKey(block) }
        #expect(!error.isWrongPassword && error.message.contains("encrypted"))
        #expect(throws: CertificateError.malformed("")) { try PEM.importKey(block, password: "s3\u{0}cret") }

        let legacy = try openssl.run(["pkcs8", "-topk8", "-in", "ec.pem", "-v1", "PBE-SHA1-3DES", "-passout", "pass:pw"]).out
        #expect(try PEM.importKey(try #require(try PEM.decode(legacy).first), password: "pw").external == made.privateKey)

        let traditional = try openssl.run(["ec", "-in", "ec.pem", "-aes256", "-passout", "pass:pw"]).out
        #expect(String(decoding: traditional, as: UTF8.self).contains("Proc-Type: 4,ENCRYPTED"))
        #expect(throws: CertificateError.malformed("")) { try PEM.decode(traditional) }
    }

    @Test func otherKeysAndLabelsAreRefused() throws {
        let keys = TestKeys()
        let rsa = try keys.rsa("rsa", bits: 1024)
        let ec = try keys.ec("ec")
        let openssl = OpenSSL(directory: keys.tool.directory.path)
        let pkcs8 = try openssl.run(["pkcs8", "-topk8", "-nocrypt", "-in", "rsa.pem", "-outform", "DER"]).out
        let malformed = CertificateError.malformed("")
        // A form under another form's label.
        #expect(throws: malformed) { try PEM.importKey(PEM.Block(label: "RSA PRIVATE KEY", der: pkcs8)) }
        #expect(throws: malformed) { try PEM.importKey(PEM.Block(label: "EC PRIVATE KEY", der: rsa.privateKey)) }
        #expect(throws: malformed) { try PEM.importKey(PEM.Block(label: "PRIVATE KEY", der: rsa.privateKey)) }
        #expect(throws: malformed) { try PEM.importKey(PEM.Block(label: "RSA PUBLIC KEY", der: rsa.privateKey)) }
        #expect(throws: malformed) { try PEM.importKey(PEM.Block(label: "PUBLIC KEY", der: rsa.publicKey)) }
        #expect(throws: malformed) { try PEM.importKey(PEM.Block(label: "CERTIFICATE", der: pkcs8)) }
        #expect(throws: malformed) { try PEM.importKey(der: ec.privateKey) }
        #expect(throws: malformed) { try PEM.importKey(der: []) }

        // Types and curves the keychain does not hold, and explicit curve parameters.
        try openssl.run(["genpkey", "-algorithm", "ED448", "-out", "ed448.pem"])
        try openssl.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:secp256k1", "-out", "k1.pem"])
        try openssl.run(["genpkey", "-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "pss.pem"])
        for file in ["ed448.pem", "k1.pem", "pss.pem"] {
            let block = try #require(try PEM.decode(try openssl.read(file)).first)
            #expect(throws: malformed, "\(file)") { try PEM.importKey(block) }
        }
        let explicit = try openssl.run(["ec", "-in", "ec.pem", "-param_enc", "explicit"]).out
        let explicitBlock = try #require(try PEM.decode(explicit).first)
        #expect(explicitBlock.label == "EC PRIVATE KEY")
        let error = try #require(throws: CertificateError.self) { try PEM.importKey(explicitBlock) }
        #expect(error.message.contains("explicit"))

        // AES has no PEM form; a pair's bytes under another type are KeyMaterial's errors.
        let aes = try #require(throws: CertificateError.self) {
            try PEM.exportKey([UInt8](repeating: 1, count: 32), algorithm: .aes, role: .symmetric)
        }
        #expect(aes.isMismatch)
        #expect(throws: malformed) { try PEM.exportKey(ec.privateKey, algorithm: .rsa, role: .private) }
        #expect(throws: malformed) { try PEM.exportKey(Array(ec.privateKey.dropLast()), algorithm: .ec, role: .private) }
    }

    /// Truncations and bit flips of every DER form: a key or a CertificateError, never a crash;
    /// an error's message never holds the key's bytes.
    @Test(arguments: [KeyKind.rsa2048, .p521, .ed25519])
    func mutatedKeysAreErrorsNotCrashes(kind: KeyKind) throws {
        let keys = TestKeys()
        let made = try kind.make(keys)
        let openssl = OpenSSL(directory: keys.tool.directory.path)
        let pkcs8 = try openssl.run(["pkcs8", "-topk8", "-nocrypt", "-in", "\(kind.rawValue).pem", "-outform", "DER"]).out
        var generator = SystemRandomNumberGenerator()
        for length in 0..<pkcs8.count {
            let error = try #require(throws: CertificateError.self) { try PEM.importKey(der: Array(pkcs8.prefix(length))) }
            #expect(!error.message.contains(Base64.encode(Array(made.privateKey.prefix(12)))))
        }
        for index in 0..<pkcs8.count {
            var mutated = pkcs8
            mutated[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            if let key = try? PEM.importKey(der: mutated) {
                // Whatever parses is a key KeyMaterial accepts.
                _ = try KeyMaterial(key.external, algorithm: key.algorithm, role: key.role)
            }
        }
        let key = try PEM.importKey(der: pkcs8)
        #expect(!"\(key)".contains("\(made.privateKey[0]), \(made.privateKey[1])"))
        #expect("\(key)" == "ImportedKey(\(kind.algorithm.rawValue) private, \(made.privateKey.count) bytes)")
    }
}

import KeychainCrypto
import KeychainX509
import TestSupport
import Testing

/// A key type and size `KeyOperations.generate` makes.
struct KeySize: Sendable, CustomTestStringConvertible {
    let type: KeyMaterial.Algorithm
    let bits: Int

    var testDescription: String { "\(type.rawValue)-\(bits)" }

    static let all = [
        KeySize(type: .rsa, bits: 2048), KeySize(type: .rsa, bits: 3072), KeySize(type: .rsa, bits: 4096),
        KeySize(type: .ec, bits: 256), KeySize(type: .ec, bits: 384), KeySize(type: .ec, bits: 521),
        KeySize(type: .ed25519, bits: 256), KeySize(type: .x25519, bits: 256),
    ]
    static let agreeing = all.filter { $0.type == .ec || $0.type == .x25519 }
    static let encrypting = all.filter { $0.type != .ed25519 }
}

@Suite struct KeyOperationsTests {
    static let undecryptable = "the ciphertext does not decrypt with this key"

    // MARK: Generating

    /// The pair is what `KeyMaterial` accepts, of the size asked for, and the public key is the
    /// one `publicKey(of:)` derives from the private key.
    @Test(arguments: KeySize.all)
    func generateGivesAPairKeyMaterialAccepts(size: KeySize) throws {
        let (privateKey, publicKey) = try KeyOperations.generate(size.type, bits: size.bits)
        #expect(try KeyOperations.publicKey(of: privateKey, type: size.type) == publicKey)
        let material = try KeyMaterial(publicKey, algorithm: size.type, role: .public)
        #expect(material.sizeInBits == size.bits)
        let privateMaterial = try KeyMaterial(Self.clear(privateKey), algorithm: size.type, role: .private)
        #expect(privateMaterial.sizeInBits == size.bits)
        #expect(privateMaterial.publicKeyHash == material.publicKeyHash)
        switch size.type {
        case .ec:
            let field = (size.bits + 7) / 8
            #expect(privateKey.count == 1 + 3 * field)
            #expect(publicKey.count == 1 + 2 * field)
        case .ed25519, .x25519:
            #expect(privateKey.count == 32)
            #expect(publicKey.count == 32)
        default:
            break
        }
        let (other, _) = try KeyOperations.generate(size.type, bits: size.bits)
        #expect(!other.constantTimeEquals(privateKey))
    }

    @Test func generateRefusesOtherSizesAndSymmetricKeys() throws {
        for (type, bits) in [
            (KeyMaterial.Algorithm.rsa, 1024), (.rsa, 2047), (.rsa, 2052), (.rsa, 4104), (.ec, 224), (.ec, 512),
            (.ed25519, 255), (.x25519, 512),
        ] {
            let error = try #require(throws: CertificateError.self) { try KeyOperations.generate(type, bits: bits) }
            #expect(!error.isMismatch, "\(type) \(bits)")
            #expect(error.message.contains("\(bits)"), "\(error.message)")
        }
        let error = try #require(throws: CertificateError.self) { try KeyOperations.generate(.aes, bits: 256) }
        #expect(error.isMismatch)
    }

    /// Keys the `openssl` command line made: `publicKey(of:)` gives openssl's public key, and
    /// what is signed with the private key verifies with it.
    @Test(arguments: KeyKind.allCases)
    func keysOpenSSLMadeWork(kind: KeyKind) throws {
        let made = try kind.make(TestKeys())
        let privateKey = try Self.secure(made.privateKey)
        #expect(try KeyOperations.publicKey(of: privateKey, type: kind.algorithm) == made.publicKey)
        for algorithm in KeyAlgorithm.allCases where algorithm.isSupported(.sign, type: kind.algorithm, role: .private) {
            let data = Self.input(for: algorithm)
            let signature = try KeyOperations.sign(data, algorithm: algorithm, privateKey: privateKey, type: kind.algorithm)
            #expect(
                try KeyOperations.verify(
                    data, signature: signature, algorithm: algorithm, publicKey: made.publicKey, type: kind.algorithm),
                "\(algorithm)")
        }
    }

    /// Bytes that are not a private key of the type are `.malformed`; an EC scalar that does not
    /// give the point is refused; PKCS #8 is not Apple's RSA representation.
    @Test func malformedPrivateKeysAreRefused() throws {
        let (ecKey, _) = try KeyOperations.generate(.ec, bits: 256)
        var scalarChanged = Self.clear(ecKey)
        scalarChanged[80] ^= 0x01
        var pointChanged = Self.clear(ecKey)
        pointChanged[40] ^= 0x01
        let keys = TestKeys()
        let rsa = try keys.rsa("rsa", bits: 2048)
        try keys.tool.openssl(["pkcs8", "-topk8", "-nocrypt", "-in", rsa.keyPath, "-outform", "DER", "-out", "\(rsa.keyPath).p8"])
        let pkcs8 = try TestCertificates.read("\(rsa.keyPath).p8")
        // A scalar that does not give its point is KeyMaterial's to refuse, when the key is added.
        #expect(throws: CertificateError.self) { try KeyMaterial(scalarChanged, algorithm: .ec, role: .private) }
        let cases: [([UInt8], KeyMaterial.Algorithm)] = [
            (pointChanged, .ec), (Array(Self.clear(ecKey).prefix(96)), .ec), ([0x04], .ec),
            (pkcs8, .rsa), (rsa.privateKey + [0], .rsa), (Array(rsa.privateKey.prefix(100)), .rsa), ([0x30], .rsa),
            ([UInt8](repeating: 1, count: 31), .ed25519), ([UInt8](repeating: 1, count: 33), .x25519),
        ]
        for (bytes, type) in cases {
            let error = try #require(throws: CertificateError.self) {
                try KeyOperations.publicKey(of: try Self.secure(bytes), type: type)
            }
            #expect(!error.isMismatch, "\(type) \(bytes.count)")
        }
        let error = try #require(throws: CertificateError.self) {
            try KeyOperations.publicKey(of: try Self.secure([UInt8](repeating: 7, count: 32)), type: .aes)
        }
        #expect(error.isMismatch)
    }

    // MARK: Signatures

    /// Every algorithm that fits the key signs and verifies; a flipped bit in the data or the
    /// signature, or a truncated signature, verifies false; a digest of another length throws.
    @Test(arguments: KeySize.all)
    func signAndVerifyWithEveryFittingAlgorithm(size: KeySize) throws {
        let (privateKey, publicKey) = try KeyOperations.generate(size.type, bits: size.bits)
        let algorithms = KeyAlgorithm.allCases.filter { $0.isSupported(.sign, type: size.type, role: .private) }
        #expect(algorithms.count == [.rsa: 20, .ec: 10, .ed25519: 1, .x25519: 0][size.type])
        for algorithm in algorithms {
            let data = Self.input(for: algorithm)
            let signature = try KeyOperations.sign(data, algorithm: algorithm, privateKey: privateKey, type: size.type)
            func verifies(_ data: [UInt8], _ signature: [UInt8]) throws -> Bool {
                try KeyOperations.verify(data, signature: signature, algorithm: algorithm, publicKey: publicKey, type: size.type)
            }
            #expect(try verifies(data, signature), "\(algorithm)")
            // The first byte: ECDSA uses only as many of a digest's leading bits as the curve's order has.
            #expect(try !verifies(Self.flipped(data, at: 0), signature), "\(algorithm)")
            for index in [0, signature.count / 2, signature.count - 1] {
                #expect(try !verifies(data, Self.flipped(signature, at: index)), "\(algorithm) \(index)")
            }
            #expect(try !verifies(data, Array(signature.dropLast())), "\(algorithm)")
            #expect(try !verifies(data, []), "\(algorithm)")
            switch size.type {
            case .ed25519: #expect(signature.count == 64)
            case .ec: #expect(signature.first == 0x30)
            case .rsa: #expect(signature.count == size.bits / 8)
            default: break
            }
            guard algorithm.rawValue.contains("SignatureDigest") else { continue }
            for wrong in [data + [0], Array(data.dropLast()), []] {
                let error = try #require(throws: CertificateError.self) {
                    try KeyOperations.sign(wrong, algorithm: algorithm, privateKey: privateKey, type: size.type)
                }
                #expect(!error.isMismatch)
                #expect(error.message.contains("\(wrong.count) bytes"), "\(error.message)")
                #expect(throws: CertificateError.self) { _ = try verifies(wrong, signature) }
            }
        }
    }

    /// An algorithm that does not fit the key's type or class throws `.mismatch` naming both,
    /// whatever the operation; so do PSS and OAEP with too small an RSA modulus.
    @Test func algorithmsThatDoNotFitTheKeyAreMismatches() throws {
        let (rsaKey, _) = try KeyOperations.generate(.rsa, bits: 2048)
        let (ecKey, ecPublic) = try KeyOperations.generate(.ec, bits: 256)
        let (edKey, edPublic) = try KeyOperations.generate(.ed25519, bits: 256)
        let (xKey, _) = try KeyOperations.generate(.x25519, bits: 256)
        let mismatches: [(String, () throws -> Void)] = [
            (
                "algorithm: ecdsaSignatureDigestX962SHA256 does not fit a private rsa key",
                {
                    _ = try KeyOperations.sign(
                        [UInt8](repeating: 1, count: 32), algorithm: .ecdsaSignatureDigestX962SHA256, privateKey: rsaKey,
                        type: .rsa)
                }
            ),
            (
                "algorithm: rsaSignatureMessagePSSSHA256 does not fit a public ec key",
                {
                    _ = try KeyOperations.verify(
                        [1], signature: [1], algorithm: .rsaSignatureMessagePSSSHA256, publicKey: ecPublic, type: .ec)
                }
            ),
            (
                "algorithm: edDSASignatureMessageCurve25519SHA512 does not fit a private x25519 key",
                {
                    _ = try KeyOperations.sign(
                        [1], algorithm: .edDSASignatureMessageCurve25519SHA512, privateKey: xKey, type: .x25519)
                }
            ),
            (
                "algorithm: rsaEncryptionOAEPSHA256 does not fit a public ec key",
                { _ = try KeyOperations.encrypt([1], algorithm: .rsaEncryptionOAEPSHA256, publicKey: ecPublic, type: .ec) }
            ),
            (
                "algorithm: eciesEncryptionStandardVariableIVX963SHA256AESGCM does not fit a public ed25519 key",
                {
                    _ = try KeyOperations.encrypt(
                        [1], algorithm: .eciesEncryptionStandardVariableIVX963SHA256AESGCM, publicKey: edPublic, type: .ed25519)
                }
            ),
            (
                "algorithm: eciesEncryptionCofactorVariableIVX963SHA256AESGCM does not fit a private rsa key",
                {
                    _ = try KeyOperations.decrypt(
                        [1], algorithm: .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, privateKey: rsaKey, type: .rsa)
                }
            ),
            (
                "algorithm: ecdhKeyExchangeStandard does not fit a private ed25519 key",
                {
                    _ = try KeyOperations.keyExchange(
                        privateKey: edKey, type: .ed25519, peerPublicKey: edPublic, algorithm: .ecdhKeyExchangeStandard,
                        requestedSize: 32, sharedInfo: [])
                }
            ),
            (
                "algorithm: rsaEncryptionPKCS1 does not fit a private rsa key",
                { _ = try KeyOperations.sign([1], algorithm: .rsaEncryptionPKCS1, privateKey: rsaKey, type: .rsa) }
            ),
            (
                "algorithm: ecdsaSignatureMessageX962SHA256 does not fit a private ec key",
                { _ = try KeyOperations.decrypt([1], algorithm: .ecdsaSignatureMessageX962SHA256, privateKey: ecKey, type: .ec) }
            ),
            (
                "algorithm: ecdsaSignatureMessageX962SHA256 does not fit a public ec key",
                { try KeyAlgorithm.ecdsaSignatureMessageX962SHA256.check(.sign, type: .ec, role: .public) }
            ),
            (
                "algorithm: rsaEncryptionOAEPSHA1 does not fit a public rsa key",
                { try KeyAlgorithm.rsaEncryptionOAEPSHA1.check(.decrypt, type: .rsa, role: .public) }
            ),
            (
                "algorithm: rsaSignatureMessagePKCS1v15SHA256 does not fit a public rsa key",
                { try KeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256.check(.sign, type: .rsa, role: .public) }
            ),
        ]
        for (message, operation) in mismatches {
            let error = try #require(throws: CertificateError.self) { try operation() }
            #expect(error.isMismatch, "\(message)")
            #expect(error.message == message)
        }

        // Apple's bounds: PSS needs 16 × the hash's length + 9 bits, OAEP 2 × the hash's length + 2 bytes.
        let small = try TestKeys().rsa("small", bits: 1024)
        let smallKey = try Self.secure(small.privateKey)
        let pss = try #require(throws: CertificateError.self) {
            try KeyOperations.sign([1], algorithm: .rsaSignatureMessagePSSSHA512, privateKey: smallKey, type: .rsa)
        }
        #expect(pss.isMismatch)
        #expect(
            try KeyOperations.sign([1], algorithm: .rsaSignatureMessagePSSSHA384, privateKey: smallKey, type: .rsa).count == 128)
        let oaep = try #require(throws: CertificateError.self) {
            try KeyOperations.encrypt([1], algorithm: .rsaEncryptionOAEPSHA512, publicKey: small.publicKey, type: .rsa)
        }
        #expect(oaep.isMismatch)
    }

    /// Apple's table: which operations each type and class can do with each algorithm.
    @Test func isSupportedFollowsApplesTable() {
        func count(_ operation: KeyAlgorithm.Operation, _ type: KeyMaterial.Algorithm, _ role: KeyMaterial.Role) -> Int {
            KeyAlgorithm.allCases.filter { $0.isSupported(operation, type: type, role: role) }.count
        }
        #expect(count(.sign, .rsa, .private) == 20)
        #expect(count(.sign, .rsa, .public) == 0)
        #expect(count(.verify, .rsa, .public) == 20)
        #expect(count(.verify, .rsa, .private) == 0)
        #expect(count(.encrypt, .rsa, .public) == 6)
        #expect(count(.decrypt, .rsa, .private) == 6)
        #expect(count(.decrypt, .rsa, .public) == 0)
        #expect(count(.keyExchange, .rsa, .private) == 0)
        #expect(count(.sign, .ec, .private) == 10)
        #expect(count(.encrypt, .ec, .public) == 8)
        #expect(count(.decrypt, .ec, .private) == 8)
        #expect(count(.keyExchange, .ec, .private) == 12)
        #expect(count(.keyExchange, .ec, .public) == 0)
        #expect(count(.sign, .ed25519, .private) == 1)
        #expect(count(.verify, .ed25519, .public) == 1)
        #expect(count(.encrypt, .ed25519, .public) == 0)
        #expect(count(.keyExchange, .ed25519, .private) == 0)
        #expect(count(.sign, .x25519, .private) == 0)
        #expect(count(.keyExchange, .x25519, .private) == 12)
        #expect(count(.encrypt, .x25519, .public) == 8)
        for operation in [KeyAlgorithm.Operation.sign, .verify, .encrypt, .decrypt, .keyExchange] {
            #expect(count(operation, .aes, .symmetric) == 0)
            #expect(count(operation, .ec, .symmetric) == 0)
        }
        #expect(KeyAlgorithm.allCases.count == 57)
    }

    // MARK: Encryption

    /// Each encryption algorithm that fits round trips; a changed or cut ciphertext throws the one
    /// decryption error; too long a plaintext for RSA is `.malformed` at encryption.
    @Test(arguments: KeySize.encrypting)
    func encryptAndDecryptWithEveryFittingAlgorithm(size: KeySize) throws {
        let (privateKey, publicKey) = try KeyOperations.generate(size.type, bits: size.bits)
        let algorithms = KeyAlgorithm.allCases.filter { $0.isSupported(.encrypt, type: size.type, role: .public) }
        #expect(algorithms.count == (size.type == .rsa ? 6 : 8))
        for algorithm in algorithms {
            for plaintext in [[], Array("sealed for the keychain".utf8), [UInt8](repeating: 0xA5, count: 100)] {
                let ciphertext = try KeyOperations.encrypt(plaintext, algorithm: algorithm, publicKey: publicKey, type: size.type)
                let again = try KeyOperations.encrypt(plaintext, algorithm: algorithm, publicKey: publicKey, type: size.type)
                #expect(ciphertext != again, "\(algorithm): randomized")
                let decrypted = try KeyOperations.decrypt(
                    ciphertext, algorithm: algorithm, privateKey: privateKey, type: size.type)
                #expect(decrypted == plaintext, "\(algorithm)")
                if size.type == .rsa {
                    #expect(ciphertext.count == size.bits / 8)
                } else {
                    // ephemeral public key ‖ ciphertext ‖ tag
                    #expect(ciphertext.count == publicKey.count + plaintext.count + 16)
                    if size.type == .ec { #expect(ciphertext.first == 0x04) }
                }
                var tampered = [Self.flipped(ciphertext, at: ciphertext.count - 1), Array(ciphertext.dropLast()), []]
                tampered += [Self.flipped(ciphertext, at: 0), Self.flipped(ciphertext, at: ciphertext.count / 2)]
                for bad in tampered {
                    let error = try #require(throws: CertificateError.self, "\(algorithm)") {
                        try KeyOperations.decrypt(bad, algorithm: algorithm, privateKey: privateKey, type: size.type)
                    }
                    #expect(!error.isMismatch)
                    #expect(error.message == Self.undecryptable, "\(algorithm): \(error.message)")
                }
            }
        }
        guard size.type == .rsa else { return }
        for (algorithm, capacity) in [
            (KeyAlgorithm.rsaEncryptionPKCS1, size.bits / 8 - 11), (.rsaEncryptionOAEPSHA256, size.bits / 8 - 66),
        ] {
            let fits = [UInt8](repeating: 1, count: capacity)
            let ciphertext = try KeyOperations.encrypt(fits, algorithm: algorithm, publicKey: publicKey, type: .rsa)
            #expect(try KeyOperations.decrypt(ciphertext, algorithm: algorithm, privateKey: privateKey, type: .rsa) == fits)
            let error = try #require(throws: CertificateError.self) {
                try KeyOperations.encrypt(fits + [1], algorithm: algorithm, publicKey: publicKey, type: .rsa)
            }
            #expect(!error.isMismatch)
            #expect(error.message.contains("at most \(capacity)"), "\(error.message)")
        }
        // Another key's ciphertext and another padding's ciphertext do not decrypt either.
        let (otherKey, _) = try KeyOperations.generate(.rsa, bits: size.bits)
        let ciphertext = try KeyOperations.encrypt(
            [1, 2, 3], algorithm: .rsaEncryptionOAEPSHA1, publicKey: publicKey, type: .rsa)
        for (key, algorithm) in [
            (otherKey, KeyAlgorithm.rsaEncryptionOAEPSHA1), (privateKey, .rsaEncryptionPKCS1),
            (privateKey, .rsaEncryptionOAEPSHA256),
        ] {
            let error = try #require(throws: CertificateError.self) {
                try KeyOperations.decrypt(ciphertext, algorithm: algorithm, privateKey: key, type: .rsa)
            }
            #expect(error.message == Self.undecryptable)
        }
    }

    // MARK: Key exchange

    /// Both sides of ECDH and X25519 agree, raw and through the X9.63 KDF; the KDF's output has
    /// the size asked for and depends on sharedInfo; Cofactor equals Standard on these curves.
    @Test(arguments: KeySize.agreeing)
    func bothSidesOfAKeyExchangeAgree(size: KeySize) throws {
        let (alice, alicePublic) = try KeyOperations.generate(size.type, bits: size.bits)
        let (bob, bobPublic) = try KeyOperations.generate(size.type, bits: size.bits)
        func exchange(_ key: SecureBytes, _ peer: [UInt8], _ algorithm: KeyAlgorithm, _ requested: Int, _ info: [UInt8]) throws
            -> [UInt8]
        {
            try KeyOperations.keyExchange(
                privateKey: key, type: size.type, peerPublicKey: peer, algorithm: algorithm, requestedSize: requested,
                sharedInfo: info)
        }
        let raw = try exchange(alice, bobPublic, .ecdhKeyExchangeStandard, 0, [])
        #expect(raw.count == (size.bits + 7) / 8)
        #expect(try exchange(bob, alicePublic, .ecdhKeyExchangeStandard, 7, [1]) == raw)
        #expect(try exchange(bob, alicePublic, .ecdhKeyExchangeCofactor, 0, []) == raw)
        let algorithms = KeyAlgorithm.allCases.filter { $0.isSupported(.keyExchange, type: size.type, role: .private) }
        #expect(algorithms.count == 12)
        for algorithm in algorithms where algorithm.rawValue.contains("X963") {
            for (requested, info) in [(1, [UInt8]()), (42, Array("keychaind".utf8)), (KeyOperations.maxDerivedBytes, [7])] {
                let derived = try exchange(alice, bobPublic, algorithm, requested, info)
                #expect(derived.count == requested, "\(algorithm)")
                #expect(try exchange(bob, alicePublic, algorithm, requested, info) == derived, "\(algorithm)")
            }
            let plain = try exchange(alice, bobPublic, algorithm, 32, [])
            #expect(try exchange(alice, bobPublic, algorithm, 32, [0]) != plain, "\(algorithm)")
            for requested in [0, -1, KeyOperations.maxDerivedBytes + 1] {
                let error = try #require(throws: CertificateError.self) {
                    try exchange(alice, bobPublic, algorithm, requested, [])
                }
                #expect(error.message.contains("requestedSize"))
            }
        }
        // A peer key that is not one of the type is malformed, one on another curve a mismatch.
        #expect(throws: CertificateError.self) {
            try exchange(alice, Array(bobPublic.dropLast()), .ecdhKeyExchangeStandard, 0, [])
        }
        if size.type == .ec {
            let (_, otherCurve) = try KeyOperations.generate(.ec, bits: size.bits == 256 ? 384 : 256)
            let error = try #require(throws: CertificateError.self) {
                try exchange(alice, otherCurve, .ecdhKeyExchangeStandard, 0, [])
            }
            #expect(error.isMismatch)
        }
    }

    // MARK: Fixed vectors

    /// RFC 8032 section 7.1, TEST 1: Ed25519's public key, signature (byte for byte: Ed25519 is
    /// deterministic) and verification.
    @Test func ed25519MatchesRFC8032Test1() throws {
        let seed = try Self.secure(try Self.hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        let publicKey = try Self.hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let signature = try Self.hex(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        )
        #expect(try KeyOperations.publicKey(of: seed, type: .ed25519) == publicKey)
        #expect(
            try KeyOperations.sign([], algorithm: .edDSASignatureMessageCurve25519SHA512, privateKey: seed, type: .ed25519)
                == signature)
        #expect(
            try KeyOperations.verify(
                [], signature: signature, algorithm: .edDSASignatureMessageCurve25519SHA512, publicKey: publicKey, type: .ed25519)
        )
        #expect(
            try !KeyOperations.verify(
                [0], signature: signature, algorithm: .edDSASignatureMessageCurve25519SHA512, publicKey: publicKey, type: .ed25519
            ))
    }

    /// RFC 7748 section 6.1: X25519's public keys and shared secret.
    @Test func x25519MatchesRFC7748() throws {
        let alice = try Self.secure(try Self.hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bobPublic = try Self.hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        #expect(
            try KeyOperations.publicKey(of: alice, type: .x25519)
                == (try Self.hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")))
        let shared = try KeyOperations.keyExchange(
            privateKey: alice, type: .x25519, peerPublicKey: bobPublic, algorithm: .ecdhKeyExchangeStandard, requestedSize: 0,
            sharedInfo: [])
        #expect(shared == (try Self.hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")))
    }

    /// ECDH between two fixed P-256 keys and ANSI X9.63's KDF over it, as pyca/cryptography's
    /// `ECDH` and `X963KDF` compute them (`Vectors.script`).
    @Test func ecdhAndX963KDFMatchPythonCryptography() throws {
        let b = try Self.secure(try Self.hex(Vectors.p256B))
        let aPublic = Array(try Self.hex(Vectors.p256A).prefix(65))
        func exchange(_ algorithm: KeyAlgorithm, _ requested: Int, _ info: [UInt8]) throws -> [UInt8] {
            try KeyOperations.keyExchange(
                privateKey: b, type: .ec, peerPublicKey: aPublic, algorithm: algorithm, requestedSize: requested, sharedInfo: info
            )
        }
        #expect(try exchange(.ecdhKeyExchangeStandard, 0, []) == (try Self.hex(Vectors.ecdhZ)))
        #expect(
            try exchange(.ecdhKeyExchangeStandardX963SHA256, 50, Array("keychaind".utf8)) == (try Self.hex(Vectors.x963SHA256)))
        #expect(try exchange(.ecdhKeyExchangeCofactorX963SHA512, 100, []) == (try Self.hex(Vectors.x963SHA512)))
    }

    /// ECIES ciphertexts in Apple's VariableIV layout made by pyca/cryptography from fixed
    /// ephemeral keys (`Vectors.script`): P-256 (AES-128), P-384 (AES-256) and X25519 (AES-128).
    @Test func eciesOpensPythonCryptographysCiphertexts() throws {
        let cases: [(String, KeyMaterial.Algorithm, KeyAlgorithm, String)] = [
            (Vectors.p256A, .ec, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, Vectors.eciesP256SHA256),
            (Vectors.p384, .ec, .eciesEncryptionCofactorVariableIVX963SHA384AESGCM, Vectors.eciesP384SHA384),
            (Vectors.x25519, .x25519, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, Vectors.eciesX25519SHA256),
        ]
        for (keyHex, type, algorithm, ciphertextHex) in cases {
            let key = try Self.secure(try Self.hex(keyHex))
            let ciphertext = try Self.hex(ciphertextHex)
            #expect(
                try KeyOperations.decrypt(ciphertext, algorithm: algorithm, privateKey: key, type: type)
                    == Array("sealed for the keychain".utf8))
            // The same ciphertext under another hash derives another key: the tag fails.
            let error = try #require(throws: CertificateError.self) {
                try KeyOperations.decrypt(
                    ciphertext, algorithm: .eciesEncryptionStandardVariableIVX963SHA512AESGCM, privateKey: key, type: type)
            }
            #expect(error.message == Self.undecryptable)
        }
    }

    /// A P-256 ECDSA signature pyca/cryptography made verifies, as a message's and as its digest's.
    @Test func ecdsaVerifiesPythonCryptographysSignature() throws {
        let publicKey = Array(try Self.hex(Vectors.p256B).prefix(65))
        let signature = try Self.hex(Vectors.ecdsaSignature)
        let message = Array("signed elsewhere".utf8)
        func verifies(_ data: [UInt8], _ algorithm: KeyAlgorithm, _ signature: [UInt8]) throws -> Bool {
            try KeyOperations.verify(data, signature: signature, algorithm: algorithm, publicKey: publicKey, type: .ec)
        }
        #expect(try verifies(message, .ecdsaSignatureMessageX962SHA256, signature))
        #expect(try verifies(try Self.hex(Vectors.ecdsaDigest), .ecdsaSignatureDigestX962SHA256, signature))
        #expect(try !verifies(message, .ecdsaSignatureMessageX962SHA384, signature))
        #expect(try !verifies(message + [0], .ecdsaSignatureMessageX962SHA256, signature))
        #expect(try !verifies(message, .ecdsaSignatureMessageX962SHA256, Self.flipped(signature, at: 10)))
    }

    // MARK: Helpers

    /// Test data for a signature algorithm: a digest of the hash's length, or a message.
    static func input(for algorithm: KeyAlgorithm) -> [UInt8] {
        guard algorithm.rawValue.contains("SignatureDigest") else { return Array("a message to sign".utf8) }
        let lengths = [("SHA1", 20), ("SHA224", 28), ("SHA256", 32), ("SHA384", 48), ("SHA512", 64)]
        let length = lengths.first { algorithm.rawValue.hasSuffix($0.0) }?.1 ?? 0
        return (0..<length).map { UInt8($0 * 7 & 0xFF) }
    }

    static func flipped(_ bytes: [UInt8], at index: Int) -> [UInt8] {
        guard !bytes.isEmpty else { return [1] }
        var copy = bytes
        copy[index] ^= 0x01
        return copy
    }

    static func secure(_ bytes: [UInt8]) throws -> SecureBytes {
        var copy = bytes
        return try SecureBytes(consuming: &copy)
    }

    /// A test's own look at a private key, to check it with `KeyMaterial`.
    static func clear(_ key: SecureBytes) -> [UInt8] { key.withUnsafeBytes { Array($0) } }

    static func hex(_ text: String) throws -> [UInt8] { try #require(TestCertificates.hexBytes(text)) }
}

/// Vectors made by an independent implementation: this script, run with Python 3 and
/// pyca/cryptography 48. Its ECDSA signature is randomized (any run's output verifies); the rest
/// is deterministic.
///
/// ```python
/// import hashlib
/// from cryptography.hazmat.primitives import hashes, serialization as s
/// from cryptography.hazmat.primitives.asymmetric import ec, x25519
/// from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
/// from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
/// def x963(z, info, n, h=hashes.SHA256()): return X963KDF(algorithm=h, length=n, sharedinfo=info).derive(z)
/// def pub(k):
///     if isinstance(k, x25519.X25519PrivateKey): return k.public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)
///     return k.public_key().public_bytes(s.Encoding.X962, s.PublicFormat.UncompressedPoint)
/// def private(k, n): return (pub(k) + k.private_numbers().private_value.to_bytes(n, "big")).hex()
/// def ecies(recipient, eph, h, aes, text):  # Apple's VariableIV layout; aes 0: X25519 (AES-128)
///     z = eph.exchange(recipient.public_key()) if aes == 0 else eph.exchange(ec.ECDH(), recipient.public_key())
///     kiv = x963(z, pub(eph), (aes or 16) + 16, h)
///     enc = Cipher(algorithms.AES(kiv[:aes or 16]), modes.GCM(kiv[aes or 16:])).encryptor()
///     return (pub(eph) + enc.update(text) + enc.finalize() + enc.tag).hex()
/// a = ec.derive_private_key(int("1f2e3d4c5b6a7988" * 4, 16), ec.SECP256R1())
/// b = ec.derive_private_key(int("5c0ffee" * 9 + "e", 16), ec.SECP256R1())
/// eph = ec.derive_private_key(int("0123456789abcdef" * 4, 16), ec.SECP256R1())
/// c = ec.derive_private_key(int("384" * 32, 16), ec.SECP384R1())
/// ceph = ec.derive_private_key(int("e384" * 24, 16), ec.SECP384R1())
/// x, xeph = (x25519.X25519PrivateKey.from_private_bytes(bytes(range(i, i + 32))) for i in (1, 33))
/// text = b"sealed for the keychain"
/// z = b.exchange(ec.ECDH(), a.public_key())
/// print("p256A", private(a, 32)); print("p256B", private(b, 32)); print("p384", private(c, 48))
/// print("eciesP256SHA256", ecies(a, eph, hashes.SHA256(), 16, text))
/// print("eciesP384SHA384", ecies(c, ceph, hashes.SHA384(), 32, text))
/// print("eciesX25519SHA256", ecies(x, xeph, hashes.SHA256(), 0, text))
/// print("ecdhZ", z.hex())
/// print("x963SHA256", x963(z, b"keychaind", 50).hex())
/// print("x963SHA512", x963(z, b"", 100, hashes.SHA512()).hex())
/// print("ecdsaSignature", b.sign(b"signed elsewhere", ec.ECDSA(hashes.SHA256())).hex())
/// print("ecdsaDigest", hashlib.sha256(b"signed elsewhere").hexdigest())
/// ```
enum Vectors {
    static let p256A =
        "04bd7c73b88b2e9b4ceda62022b2da8be13193a5b56edc26e7df7842e24cd0b5eb0605ada7bda83ac6a2b80d7e314040fa47ff16b83bac85cedb014451bb7ce71a1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a7988"
    static let p256B =
        "04c44a19d8a04f6733d969c2573db3e38abdc8174dac0fe4a78c9833e306c6366d26d2e11b0ae28a164bf88b6590e199ee1943b7e208a992545e5cfec03419cbb45c0ffee5c0ffee5c0ffee5c0ffee5c0ffee5c0ffee5c0ffee5c0ffee5c0ffeee"
    static let p384 =
        "04cb30fb556ea7bcea0bcb13bc47c3d62313f0ecf7edf87c62e49464ddd319c45e1d63fac93ead23e2673e694ccd2bf5c0cd0c61571da6983e8347c66c7d2c7374a9de331c43f1aa48b4561c853913e410f4f40952462a2a2fbd8da219107cc177384384384384384384384384384384384384384384384384384384384384384384384384384384384384384384384384"
    /// The X25519 recipient's private key: bytes 1 to 32.
    static let x25519 = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"
    static let eciesP256SHA256 =
        "04d8cd12ea5c67f2f8a00c1124893edcfa6754c4d6cede6be13bdf2295c810a97fa5a89d2d2a360c0ca9a4d6c7c9ed4b28d3e199d6627f2e696d689c310a5b0f4855be358792b8fe3658a21cb4ab2e04fded7e35b11ca8cc4ef1a384f3c6d1b37e5f7ab51e658dc6"
    static let eciesP384SHA384 =
        "04dcba64900899b2a1584f99c74b53fac00c7abefa7f244a5e36671fdeb0da5b236347aa56407184e0b12675b84a09cb1bf97f4a301f2d698a3c54ebe8732256b367e667d3dc1f04fca1aff76d11303cd06315814b88a650d5c752c7a84684541052d521890bf5016fb937b0f00ec8c24266a2a469fa3e47d89e53384596e1ed0cbad80dccb4ab9a"
    static let eciesX25519SHA256 =
        "5869aff450549732cbaaed5e5df9b30a6da31cb0e5742bad5ad4a1a768f1a67bf4a5e16d2c50976cfcf267d61355abead18f60c0038f8e38e32823011b40cc66defc06d22aaee4"
    static let ecdhZ = "90140771887942468ffcc4d79f714cc37dbf9de428908cad1279389b3644faaf"
    static let x963SHA256 =
        "b14ee4c0a2f0e3af7bafbad5b89da4c57d1a0468fd017147c0d46d2e4615d22e2ba38a4ca790bffcc9a55a1128c6bcf81b7c"
    static let x963SHA512 =
        "5c7f88eb93495dd9085c3a431a2887912192c8b4e538b39d5b19a73e664eda295f75f59a13677a2f11fe470425333040db1b9b0838ffc4ba449fbf650a7702fde78c6e857e38b512ef0b0081910e1d6b7112d016857abc95d9aa65ba2c301582fabbee2f"
    static let ecdsaSignature =
        "30450220392aab4b20de5685478935054ee30769a461dd00c5ca45c4072454de86006ddc022100c5a700485a2dc6251cbd07eb1c2c1dea835b850e2ba2dd207557561b2c0f340e"
    static let ecdsaDigest = "1ead13ddda64b222418c7db9cbd0ecc7862045df1dffeaf1205300df9af676b0"
}

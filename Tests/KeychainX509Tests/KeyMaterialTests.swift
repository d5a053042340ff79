import KeychainX509
import TestSupport
import Testing

@Suite struct KeyMaterialTests {
    /// Sizes and public-key hashes against what openssl says, for each type and class.
    @Test func sizesAndHashesMatchOpenSSL() throws {
        let keys = TestKeys()
        let rsa = try keys.rsa("rsa", bits: 1024)
        let p521 = try keys.ec("p521", curve: "P-521")
        let x = try keys.raw25519("x", algorithm: "X25519")
        for (made, algorithm, bits) in [(rsa, KeyMaterial.Algorithm.rsa, 1024), (p521, .ec, 521), (x, .x25519, 256)] {
            for (bytes, role) in [(made.privateKey, KeyMaterial.Role.private), (made.publicKey, .public)] {
                let key = try KeyMaterial(bytes, algorithm: algorithm, role: role)
                #expect(key.sizeInBits == bits, "\(algorithm) \(role)")
                #expect(key.publicKeyHash == made.publicKeyHash, "\(algorithm) \(role)")
            }
        }
        #expect(try KeyMaterial([UInt8](repeating: 7, count: 24), algorithm: .aes, role: .symmetric).sizeInBits == 192)
        #expect(try KeyMaterial([UInt8](repeating: 7, count: 16), algorithm: .aes, role: .symmetric).publicKeyHash == nil)
    }

    /// PKCS#8 and SubjectPublicKeyInfo are not Apple's RSA representation; compressed points are not X9.63's.
    @Test func otherEncodingsOfTheSameKeyAreRefused() throws {
        let keys = TestKeys()
        let rsa = try keys.rsa("rsa", bits: 1024)
        try keys.tool.openssl(["pkcs8", "-topk8", "-nocrypt", "-in", rsa.keyPath, "-outform", "DER", "-out", "\(rsa.keyPath).p8"])
        try keys.tool.openssl(["pkey", "-in", rsa.keyPath, "-pubout", "-outform", "DER", "-out", "\(rsa.keyPath).spki"])
        for (file, role) in [("p8", KeyMaterial.Role.private), ("spki", .public)] {
            let bytes = try TestCertificates.read("\(rsa.keyPath).\(file)")
            #expect(throws: CertificateError.self) { try KeyMaterial(bytes, algorithm: .rsa, role: role) }
        }
        let ec = try keys.ec("ec")
        let compressed = [2 + (ec.publicKey[64] & 1)] + Array(ec.publicKey[1...32])
        #expect(throws: CertificateError.self) { try KeyMaterial(compressed, algorithm: .ec, role: .public) }
    }

    @Test func garbageAndMutatedKeysAreErrorsNotCrashes() throws {
        let keys = TestKeys()
        let rsa = try keys.rsa("rsa", bits: 1024)
        let ec = try keys.ec("ec")
        #expect(throws: CertificateError.self) { try KeyMaterial([], algorithm: .rsa, role: .private) }
        #expect(throws: CertificateError.self) { try KeyMaterial(rsa.privateKey + [0], algorithm: .rsa, role: .private) }
        #expect(throws: CertificateError.self) {
            try KeyMaterial([UInt8](repeating: 0x30, count: KeyMaterial.maxBytes + 1), algorithm: .rsa, role: .private)
        }
        for (bytes, algorithm, role) in [
            (rsa.privateKey, KeyMaterial.Algorithm.rsa, KeyMaterial.Role.private), (rsa.publicKey, .rsa, .public),
            (ec.privateKey, .ec, .private), (ec.publicKey, .ec, .public),
        ] {
            for length in 0..<bytes.count {
                #expect(throws: CertificateError.self) {
                    try KeyMaterial(Array(bytes.prefix(length)), algorithm: algorithm, role: role)
                }
            }
            var generator = SystemRandomNumberGenerator()
            for index in 0..<bytes.count {
                var mutated = bytes
                mutated[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
                _ = try? KeyMaterial(mutated, algorithm: algorithm, role: role)
            }
        }
        // Every EC private key whose scalar changed is refused: K no longer gives the point.
        for index in 65..<ec.privateKey.count {
            var mutated = ec.privateKey
            mutated[index] ^= 0x80
            #expect(throws: CertificateError.self) { try KeyMaterial(mutated, algorithm: .ec, role: .private) }
        }
    }
}

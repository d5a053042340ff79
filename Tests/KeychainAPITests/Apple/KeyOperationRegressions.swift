import ExtrasBase64
import Foundation
import KeychainJSON
import TestSupport
import Testing

/// Apple's SecKey regressions, the steps that use keys in place: `SecKeyGeneratePair`,
/// `SecKeyCreateSignature`, `SecKeyVerifySignature`, `SecKeyCopyKeyExchangeResult` and
/// `SecKeyIsAlgorithmSupported`, over `POST /v1/keys` and `/v1/keys/{sign|verify|exchange}`.
/// Apple's calls return a signature or NULL, true or false; here a refused call is an error
/// answer (its OSStatus errSecParam), a signature that does not verify `{"verified": false}`.
/// Intended differences, for every test here: keys are generated from 256 bits up (EC on P-256,
/// P-384 and P-521, RSA from 2048 bits), where Apple runs these at P-192 and RSA-768; and the
/// algorithms keychaind does not implement (raw RSA, RFC 4754 and hashless X9.62 ECDSA) are
/// errSecParam naming `algorithm`, which is what Apple's tests use them for: an incompatible
/// algorithm, whose verification must fail.
@Suite struct KeyOperationRegressions {
    struct Pair {
        let privateRef: String
        let publicRef: String
    }

    static func generate(_ f: APIFixture, type: String, bits: Int) throws -> Pair {
        let made = try f.call(
            "POST", "/v1/keys",
            json: #"""
                {"keyType":"\#(type)","keySizeInBits":\#(bits),"applicationTag":"\#(Base64.encode(Array(UUID().uuidString.utf8)))",
                 "privateKeyAttrs":{"isPermanent":true},"publicKeyAttrs":{"isPermanent":true}}
                """#)
        #expect(made.status == 201, "\(made.text)")
        return Pair(
            privateRef: try #require(made.json["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue),
            publicRef: try #require(made.json["publicKeyItem"]?.objectValue?["persistentRef"]?.stringValue))
    }

    /// `openssl dgst -<hash> -binary` of `data`: CFDataCreateWithHash.
    static func digest(_ hash: String, _ data: [UInt8]) throws -> [UInt8] {
        let tool = TestCertificates()
        let input = "\(tool.directory.path)/in"
        let output = "\(tool.directory.path)/out"
        try Data(data).write(to: URL(fileURLWithPath: input))
        try tool.openssl(["dgst", "-\(hash)", "-binary", "-out", output, input])
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    static func sign(_ f: APIFixture, _ ref: String, _ algorithm: String, _ data: [UInt8]) throws -> RawResponse {
        try f.call(
            "POST", "/v1/keys/sign",
            json: #"{"persistentRef":"\#(ref)","algorithm":"\#(algorithm)","data":"\#(Base64.encode(data))"}"#)
    }

    static func verify(_ f: APIFixture, _ ref: String, _ algorithm: String, _ data: [UInt8], _ signature: [UInt8]) throws
        -> RawResponse
    {
        try f.call(
            "POST", "/v1/keys/verify",
            json: #"""
                {"persistentRef":"\#(ref)","algorithm":"\#(algorithm)","data":"\#(Base64.encode(data))",
                 "signature":"\#(Base64.encode(signature))"}
                """#)
    }

    /// `testsignverify`'s steps for one algorithm: the public key does not sign; the private one
    /// does; the private key does not verify; `incompatible` does not verify; the public key
    /// verifies; a signature or data whose first byte is flipped does not verify.
    static func signVerify(_ f: APIFixture, _ pair: Pair, _ algorithm: String, data: [UInt8], incompatible: String) throws {
        try sign(f, pair.publicRef, algorithm, data).expectError(400, errSecParam)
        let signed = try sign(f, pair.privateRef, algorithm, data)
        #expect(signed.status == 200, "\(algorithm): \(signed.text)")
        let signature = try #require(signed.json["signature"]?.stringValue.flatMap { Base64.decode($0) })
        try verify(f, pair.privateRef, algorithm, data, signature).expectError(400, errSecParam)
        try verify(f, pair.publicRef, incompatible, data, signature).expectError(400, errSecParam, naming: "algorithm")
        #expect(try verify(f, pair.publicRef, algorithm, data, signature).json["verified"] == true, "\(algorithm)")
        var badSignature = signature
        badSignature[0] ^= 0xFF
        #expect(try verify(f, pair.publicRef, algorithm, data, badSignature).json["verified"] == false, "\(algorithm)")
        var badData = data
        badData[0] ^= 0xFF
        #expect(try verify(f, pair.publicRef, algorithm, badData, signature).json["verified"] == false, "\(algorithm)")
    }

    /// si-41-sececkey.c `testsignverify`: for each ECDSA algorithm, `signVerify` on "test" (a
    /// SHA-256 digest of it for the digest algorithms), `ecdsaSignatureDigestRFC4754` as the
    /// incompatible one. Run on P-256 (Apple: P-192). Left out: `ecdsaSignatureRFC4754`,
    /// `ecdsaSignatureDigestRFC4754` and `ecdsaSignatureDigestX962` (no hash named), which
    /// keychaind refuses as errSecParam naming `algorithm`; added: the named-hash digest algorithms.
    @Test func si41SignVerify() throws {
        let f = try APIFixture()
        let pair = try Self.generate(f, type: "ec", bits: 256)
        let test = Array("test".utf8)
        for hash in ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"] {
            try Self.signVerify(
                f, pair, "ecdsaSignatureMessageX962\(hash)", data: test, incompatible: "ecdsaSignatureDigestRFC4754")
            try Self.signVerify(
                f, pair, "ecdsaSignatureDigestX962\(hash)", data: try Self.digest(hash.lowercased(), test),
                incompatible: "ecdsaSignatureDigestRFC4754")
        }
        for unimplemented in ["ecdsaSignatureRFC4754", "ecdsaSignatureDigestRFC4754", "ecdsaSignatureDigestX962"] {
            try Self.sign(f, pair.privateRef, unimplemented, try Self.digest("sha256", test))
                .expectError(400, errSecParam, naming: "algorithm")
        }
    }

    /// si-40-seckey.c `testsignverify`: for each RSA PKCS#1 v1.5 algorithm, `signVerify` on
    /// "test" (its digest, by the named hash, for the digest algorithms), `rsaSignatureRaw` as
    /// the incompatible one. Run on RSA-2048 (Apple: 768). Left out: `rsaSignatureRaw` itself,
    /// errSecParam naming `algorithm` here.
    @Test func si40SignVerify() throws {
        let f = try APIFixture()
        let pair = try Self.generate(f, type: "rsa", bits: 2048)
        let test = Array("test".utf8)
        for hash in ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"] {
            try Self.signVerify(f, pair, "rsaSignatureMessagePKCS1v15\(hash)", data: test, incompatible: "rsaSignatureRaw")
            try Self.signVerify(
                f, pair, "rsaSignatureDigestPKCS1v15\(hash)", data: try Self.digest(hash.lowercased(), test),
                incompatible: "rsaSignatureRaw")
        }
        try Self.sign(f, pair.privateRef, "rsaSignatureRaw", test).expectError(400, errSecParam, naming: "algorithm")
    }

    /// si-41-sececkey.c `testkeyexchange`: two EC pairs; for each of the twelve ECDH algorithms,
    /// each private key with the other's public key, `requestedSize` 273 and `sharedInfo`
    /// "sharedInput": both results are equal, and the X9.63 ones are 273 bytes. Run on P-256,
    /// P-384 and P-521 (Apple: also P-192 and P-224).
    @Test func si41KeyExchange() throws {
        let f = try APIFixture()
        for bits in [256, 384, 521] {
            let first = try Self.generate(f, type: "ec", bits: bits)
            let second = try Self.generate(f, type: "ec", bits: bits)
            func publicKey(_ pair: Pair) throws -> String {
                let copied = try f.call("POST", "/v1/keys/public", json: #"{"persistentRef":"\#(pair.publicRef)"}"#)
                return try #require(copied.json["publicKey"]?.stringValue, "\(copied.text)")
            }
            let (firstPublic, secondPublic) = (try publicKey(first), try publicKey(second))
            let sharedInfo = Base64.encode(Array("sharedInput".utf8))
            for variant in ["Standard", "Cofactor"] {
                for suffix in ["", "X963SHA1", "X963SHA224", "X963SHA256", "X963SHA384", "X963SHA512"] {
                    let algorithm = "ecdhKeyExchange\(variant)\(suffix)"
                    func exchange(_ pair: Pair, with peer: String) throws -> [UInt8]? {
                        let answer = try f.call(
                            "POST", "/v1/keys/exchange",
                            json: #"""
                                {"persistentRef":"\#(pair.privateRef)","algorithm":"\#(algorithm)","peerPublicKey":"\#(peer)",
                                 "requestedSize":273,"sharedInfo":"\#(sharedInfo)"}
                                """#)
                        #expect(answer.status == 200, "\(algorithm) P-\(bits): \(answer.text)")
                        return answer.json["sharedSecret"]?.stringValue.flatMap { Base64.decode($0) }
                    }
                    let secret1 = try #require(try exchange(first, with: secondPublic))
                    let secret2 = try #require(try exchange(second, with: firstPublic))
                    #expect(secret1 == secret2, "results of key exchange are equal: \(algorithm) P-\(bits)")
                    if !suffix.isEmpty { #expect(secret1.count == 273, "generated response has expected length") }
                }
            }
        }
    }

    /// si-41-sececkey.c `testsupportedalgos`: the private key signs with each ECDSA algorithm
    /// and the public key does not; the public key verifies and the private key does not; the
    /// private key exchanges with each ECDH algorithm and the public key does not. Over HTTP,
    /// "supported" is the operation answered, "not supported" errSecParam. Run on P-256 (Apple:
    /// P-192), without the RFC 4754 and hashless X9.62 algorithms (see `si41SignVerify`).
    @Test func si41SupportedAlgorithms() throws {
        let f = try APIFixture()
        let pair = try Self.generate(f, type: "ec", bits: 256)
        let digest = try Self.digest("sha512", Array("data".utf8))
        for hash in ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"] {
            for kind in ["Digest", "Message"] {
                let algorithm = "ecdsaSignature\(kind)X962\(hash)"
                let data =
                    kind == "Digest"
                    ? Array(digest.prefix(["SHA1": 20, "SHA224": 28, "SHA256": 32, "SHA384": 48, "SHA512": 64][hash]!)) : digest
                let signed = try Self.sign(f, pair.privateRef, algorithm, data)
                #expect(signed.status == 200, "privKey supports sign algorithm \(algorithm): \(signed.text)")
                let signature = try #require(signed.json["signature"]?.stringValue.flatMap { Base64.decode($0) })
                #expect(
                    try Self.verify(f, pair.publicRef, algorithm, data, signature).status == 200,
                    "pubKey supports verify algorithm \(algorithm)")
                try Self.verify(f, pair.privateRef, algorithm, data, signature).expectError(400, errSecParam)
                try Self.sign(f, pair.publicRef, algorithm, data).expectError(400, errSecParam, naming: "canSign")
            }
        }
        let peer = try #require(
            try f.call("POST", "/v1/keys/public", json: #"{"persistentRef":"\#(pair.publicRef)"}"#).json["publicKey"]?.stringValue
        )
        for variant in ["Standard", "Cofactor"] {
            for suffix in ["", "X963SHA1", "X963SHA224", "X963SHA256", "X963SHA384", "X963SHA512"] {
                let algorithm = "ecdhKeyExchange\(variant)\(suffix)"
                let body = { (ref: String) in
                    #"{"persistentRef":"\#(ref)","algorithm":"\#(algorithm)","peerPublicKey":"\#(peer)"}"#
                }
                #expect(
                    try f.call("POST", "/v1/keys/exchange", json: body(pair.privateRef)).status == 200,
                    "privKey supports keyexchange algorithm \(algorithm)")
                try f.call("POST", "/v1/keys/exchange", json: body(pair.publicRef)).expectError(400, errSecParam)
            }
        }
    }
}

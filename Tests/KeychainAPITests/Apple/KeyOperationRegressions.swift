import ExtrasBase64
import Foundation
import KeychainJSON
import TestSupport
import Testing

/// Apple's SecKey regressions, the steps that use keys in place: `SecKeyGeneratePair`,
/// `SecKeyCreateSignature`, `SecKeyVerifySignature`, `SecKeyCreateEncryptedData`,
/// `SecKeyCreateDecryptedData`, `SecKeyCopyKeyExchangeResult`, `SecKeyCopyPublicKey` and
/// `SecKeyIsAlgorithmSupported`, over `POST /v1/keys` and
/// `/v1/keys/{sign|verify|encrypt|decrypt|exchange|public}`: si-40's, si-41's, their file-keychain
/// twins kc-40's and kc-41's, and si-61's signature with a PKCS#12's key.
/// Apple's calls return a signature or NULL, true or false; here a refused call is an error
/// answer (its OSStatus errSecParam), a signature that does not verify `{"verified": false}`.
/// A key used over HTTP is a key item, so Apple's pairs that are not permanent are permanent here.
/// Intended differences, for every test here: keys are generated from 256 bits up (EC on P-256,
/// P-384 and P-521, RSA from 2048 bits), where Apple runs these at P-192, RSA-768 and RSA-1024;
/// and the algorithms keychaind does not implement (raw RSA, RFC 4754 and hashless X9.62 ECDSA,
/// OAEP with AES-GCM) are errSecParam naming `algorithm`, which is what Apple's tests use some of
/// them for: an incompatible algorithm, whose verification must fail. Apple's legacy
/// `SecKeyRawSign` paddings are algorithms (SecKey.m `SecKeyGetSignatureAlgorithmForPadding_macOS`,
/// which SecKeyPriv.h makes `SecKeyRawSign` on macOS): on an RSA key `kSecPaddingPKCS1` is
/// `rsaSignatureDigestPKCS1v15Raw` and `kSecPaddingPKCS1SHA1` `rsaSignatureMessagePKCS1v15SHA1`
/// (the input hashed, as CSSM did); on an EC key `kSecPaddingSigRaw` is
/// `ecdsaSignatureDigestRFC4754`, `kSecPaddingPKCS1` of a hash's length X9.62 with that hash, and
/// any other `ecdsaSignatureDigestX962`.
@Suite struct KeyOperationRegressions {
    struct Pair {
        let privateRef: String
        let publicRef: String
    }

    /// A permanent pair of `type` and `bits`, under a fresh application tag.
    static func generate(_ f: APIFixture, type: String, bits: Int) throws -> Pair {
        try pair(
            try make(
                f, type: type, bits: bits,
                [
                    "applicationTag": base64(Array(UUID().uuidString.utf8)), "privateKeyAttrs": .object(["isPermanent": true]),
                    "publicKeyAttrs": .object(["isPermanent": true]),
                ]))
    }

    /// `POST /v1/keys` (SecKeyGeneratePair, SecKeyCreateRandomKey): `body` with the key's type and size.
    static func make(_ f: APIFixture, type: String, bits: Int, _ body: JSONObject = [:]) throws -> RawResponse {
        var body = body
        body["keyType"] = .string(type)
        body["keySizeInBits"] = .int(Int64(bits))
        return try f.call("POST", "/v1/keys", json: String(decoding: JSON.object(body).serialized(), as: UTF8.self))
    }

    /// The stored keys' persistent references in a `POST /v1/keys` answer, which is 201.
    static func pair(_ made: RawResponse) throws -> Pair {
        #expect(made.status == 201, "\(made.text)")
        return Pair(
            privateRef: try #require(made.json["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue, "\(made.text)"),
            publicRef: try #require(made.json["publicKeyItem"]?.objectValue?["persistentRef"]?.stringValue, "\(made.text)"))
    }

    /// `POST /v1/keys/{action}` with `body`.
    static func use(_ f: APIFixture, _ action: String, _ body: JSONObject) throws -> RawResponse {
        try f.call("POST", "/v1/keys/\(action)", json: String(decoding: JSON.object(body).serialized(), as: UTF8.self))
    }

    /// The bytes an answer's base64 member `key` holds.
    static func bytes(_ response: RawResponse, _ key: String) -> [UInt8]? {
        response.json[key]?.stringValue.flatMap { Base64.decode($0) }
    }

    /// SecKeyCopyPublicKey of the key `ref` names: `/v1/keys/public`.
    static func copyPublicKey(_ f: APIFixture, _ ref: String) throws -> RawResponse {
        try use(f, "public", ["persistentRef": .string(ref)])
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
    /// verifies; a signature or data whose first byte is flipped does not verify. Answers the signature.
    @discardableResult
    static func signVerify(_ f: APIFixture, _ pair: Pair, _ algorithm: String, data: [UInt8], incompatible: String) throws
        -> [UInt8]
    {
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
        return signature
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
            try Self.exchange(f, first, second, sharedInfo: Array("sharedInput".utf8), curve: "P-\(bits)")
        }
    }

    /// The public key of the key `ref` names, base64, as a peer sends it.
    static func publicKey(_ f: APIFixture, _ ref: String) throws -> String {
        let copied = try copyPublicKey(f, ref)
        return try #require(copied.json["publicKey"]?.stringValue, "\(copied.text)")
    }

    /// `testkeyexchange`'s exchanges: for each of the twelve ECDH algorithms, each private key
    /// with the other's public key, `requestedSize` 273 and `sharedInfo`: both results are
    /// equal, and the X9.63 ones are 273 bytes.
    static func exchange(_ f: APIFixture, _ first: Pair, _ second: Pair, sharedInfo: [UInt8], curve: String) throws {
        let (firstPublic, secondPublic) = (try publicKey(f, first.publicRef), try publicKey(f, second.publicRef))
        for variant in ["Standard", "Cofactor"] {
            for suffix in ["", "X963SHA1", "X963SHA224", "X963SHA256", "X963SHA384", "X963SHA512"] {
                let algorithm = "ecdhKeyExchange\(variant)\(suffix)"
                func exchange(_ pair: Pair, with peer: String) throws -> [UInt8]? {
                    let answer = try use(
                        f, "exchange",
                        [
                            "persistentRef": .string(pair.privateRef), "algorithm": .string(algorithm),
                            "peerPublicKey": .string(peer), "requestedSize": 273, "sharedInfo": base64(sharedInfo),
                        ])
                    #expect(answer.status == 200, "\(algorithm) \(curve): \(answer.text)")
                    return bytes(answer, "sharedSecret")
                }
                let secret1 = try #require(try exchange(first, with: secondPublic))
                let secret2 = try #require(try exchange(second, with: firstPublic))
                #expect(secret1 == secret2, "results of key exchange are equal: \(algorithm) \(curve)")
                if !suffix.isEmpty { #expect(secret1.count == 273, "generated response has expected length") }
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
        let peer = try Self.publicKey(f, pair.publicRef)
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

    /// si-41-sececkey.c `testcopypublickey`: SecKeyCopyPublicKey of the private key, and of the
    /// public key, is the generated public key (`eq_cf`). `/v1/keys/public` answers the key's
    /// type, its public key in Apple's external representation and the persistent reference of
    /// the key it read. Run on P-256 (Apple: P-192).
    @Test func si41CopyPublicKey() throws {
        let f = try APIFixture()
        let made = try Self.make(f, type: "ec", bits: 256, ["isPermanent": true])
        let pair = try Self.pair(made)
        let publicKey = try #require(Self.bytes(made, "publicKey"))
        for (ref, name) in [(pair.privateRef, "priv"), (pair.publicRef, "pub")] {
            let copied = try Self.copyPublicKey(f, ref)
            #expect(copied.status == 200, "\(name) key SecKeyCopyPublicKey failed: \(copied.text)")
            #expect(
                Self.bytes(copied, "publicKey") == publicKey, "pub key from \(name) key SecKeyCopyPublicKey and pub key differ")
            #expect(copied.json["keyType"] == "ec")
            #expect(copied.json["persistentRef"]?.stringValue == ref, "the answer names the key it read")
        }
    }

    /// Apple's fixed digest of `testsignformat`, "012345678912345678901234": 24 bytes.
    static let sigDigest = Array("012345678912345678901234".utf8)

    /// The r and s of an X9.62 ECDSA-Sig-Value (`SEQUENCE { INTEGER r, INTEGER s }`), each
    /// left-padded to `size` bytes: Apple's raw form r‖s. Nil unless the bytes are exactly one
    /// such value in DER: lengths in their shortest form, positive integers without a
    /// superfluous leading zero, no more than `size` bytes of value each, nothing after.
    static func rawSignature(_ der: [UInt8], size: Int) -> [UInt8]? {
        func element(_ tag: UInt8, _ cursor: inout ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
            guard cursor.popFirst() == tag, var length = cursor.popFirst().map(Int.init) else { return nil }
            if length == 0x81 {
                guard let long = cursor.popFirst(), long >= 0x80 else { return nil }
                length = Int(long)
            } else if length > 0x80 {
                return nil
            }
            guard cursor.count >= length else { return nil }
            defer { cursor = cursor.dropFirst(length) }
            return cursor.prefix(length)
        }
        func integer(_ cursor: inout ArraySlice<UInt8>) -> [UInt8]? {
            guard var value = element(0x02, &cursor), let first = value.first, first < 0x80 else { return nil }
            if first == 0 {
                guard value.count > 1, value[value.startIndex + 1] >= 0x80 else { return nil }
                value = value.dropFirst()
            }
            guard value.count <= size else { return nil }
            return [UInt8](repeating: 0, count: size - value.count) + value
        }
        var outer = der[...]
        guard var sequence = element(0x30, &outer), outer.isEmpty, let r = integer(&sequence), let s = integer(&sequence),
            sequence.isEmpty
        else { return nil }
        return r + s
    }

    /// `testsignformat`'s signature steps on P-256 keys (Apple's `EC_P256_KeyDER`): the fixed DER
    /// signature of the 24-byte digest verifies, and so does the fixed raw one (r‖s) as raw; each
    /// does not verify as the other format; the private key signs the digest in each format and
    /// the public key verifies both.
    /// Intended differences: keychaind's X9.62 algorithms name their hash and take a digest of its
    /// length, and ECDSA reads a digest as an integer, so Apple's 24 bytes are sent zero-padded to
    /// SHA-256's 32 (the same integer, the same signature) under `ecdsaSignatureDigestX962SHA256`;
    /// Apple's hashless `ecdsaSignatureDigestX962` and the raw format
    /// (`ecdsaSignatureDigestRFC4754`) are errSecParam naming `algorithm`, so the raw signature is
    /// neither made nor verified, and the DER signature's structure is checked instead: one
    /// SEQUENCE of two INTEGERs in DER, within Apple's 72-byte buffer, whose r and s are 32 bytes
    /// at most (Apple's 64-byte raw buffer), as the fixed DER signature's are the fixed raw one.
    static func signFormat(_ f: APIFixture, _ pair: Pair) throws {
        let der = AppleTestData.si41ECP256SigDER
        let raw = AppleTestData.si41ECP256SigRaw
        let digest = [UInt8](repeating: 0, count: 8) + sigDigest
        let algorithm = "ecdsaSignatureDigestX962SHA256"
        for unimplemented in ["ecdsaSignatureDigestX962", "ecdsaSignatureDigestRFC4754"] {
            try verify(f, pair.publicRef, unimplemented, sigDigest, der).expectError(400, errSecParam, naming: "algorithm")
            try verify(f, pair.publicRef, unimplemented, sigDigest, raw).expectError(400, errSecParam, naming: "algorithm")
            try sign(f, pair.privateRef, unimplemented, sigDigest).expectError(400, errSecParam, naming: "algorithm")
        }
        #expect(try verify(f, pair.publicRef, algorithm, digest, der).json["verified"] == true, "verify DER sig on something")
        #expect(rawSignature(der, size: 32) == raw, "the RAW sig is the DER sig's r and s")
        #expect(
            try verify(f, pair.publicRef, algorithm, digest, raw).json["verified"] == false, "verify RAW sig with DER something")
        let signed = try sign(f, pair.privateRef, algorithm, digest)
        #expect(signed.status == 200, "sign DER sig on something: \(signed.text)")
        let signature = try #require(bytes(signed, "signature"))
        #expect(signature.count <= 72, "the DER sig fits Apple's buffer: \(signature.count) bytes")
        #expect(rawSignature(signature, size: 32)?.count == 64, "the DER sig is an X9.62 SEQUENCE of r and s")
        #expect(
            try verify(f, pair.publicRef, algorithm, digest, signature).json["verified"] == true, "verify DER sig on something")
    }

    /// si-41-sececkey.c `testsignformat`: the private key `EC_P256_KeyDER` is imported
    /// (SecKeyCreateECPrivateKey), its public key copied (SecKeyCopyPublicBytes) and made a key
    /// (SecKeyCreateECPublicKey); then `signFormat`'s steps. keychaind takes a key in Apple's
    /// external representation, so the DER's point and scalar are sent as `04‖X‖Y‖K`, a key
    /// item; the public key copied is its point, and is added as the public key's item.
    @Test func si41SignFormat() throws {
        let f = try APIFixture()
        let kc = AppleCalls(f)
        let der = AppleTestData.si41ECP256KeyDER
        #expect(der[5...6] == [0x04, 0x20] && der[39...43] == [0xa1, 0x44, 0x03, 0x42, 0x00], "SEC1: scalar, then point")
        let (scalar, point) = (Array(der[7..<39]), Array(der[44..<109]))
        let imported = try kc.add(AppleRef.addKey(point + scalar, type: "ec", keyClass: "private"))
        #expect(imported.status == errSecSuccess, "import privkey: \(imported)")
        let privateRef = try #require(imported.persistentRef)
        let copied = try Self.copyPublicKey(f, privateRef)
        #expect(copied.status == 200, "pub key from priv key: \(copied.text)")
        #expect(Self.bytes(copied, "publicKey") == point)
        let recreated = try kc.add(AppleRef.addKey(try #require(Self.bytes(copied, "publicKey")), type: "ec", keyClass: "public"))
        #expect(recreated.status == errSecSuccess, "recreate seckey: \(recreated)")
        try Self.signFormat(f, Pair(privateRef: privateRef, publicRef: try #require(recreated.persistentRef)))
    }

    /// Text of a PEM block.
    static func pem(_ label: String, _ der: [UInt8]) -> String {
        let text = Base64.encode(der)
        let lines = stride(from: 0, to: text.count, by: 64).map { String(text.dropFirst($0).prefix(64)) }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }

    /// kc-41-sececkey.m `testsignformat` (macOS): the public key `EC_P256_KeyDER_pub` and the
    /// private key `EC_P256_KeyDER_priv` are each imported (SecItemImport, kSecFormatOpenSSL):
    /// one key each; then si-41's steps (`signFormat`), and a DER signature whose r is 72 bytes
    /// longer than it should be does not verify. keychaind imports the same DER as PEM
    /// `PUBLIC KEY` and `EC PRIVATE KEY` (`POST /v1/items/import`). Intended differences:
    /// `signFormat`'s.
    @Test func kc41SignFormat() throws {
        let f = try APIFixture()
        let kc = AppleCalls(f)
        var refs: [String] = []
        for (label, der) in [
            ("PUBLIC KEY", AppleTestData.kc41ECP256KeyDERPublic), ("EC PRIVATE KEY", AppleTestData.kc41ECP256KeyDERPrivate),
        ] {
            let imported = try kc.importPEM(Self.pem(label, der))
            #expect(imported.status == errSecSuccess, "Import DER key: \(imported)")
            #expect(imported.items.count == 1, "One key imported")
            refs.append(try #require(imported.persistentRef))
        }
        let pair = Pair(privateRef: refs[1], publicRef: refs[0])
        try Self.signFormat(f, pair)
        let largeInteger = AppleTestData.kc41ECP256SigDERLargeInt
        #expect(Self.rawSignature(largeInteger, size: 32) == nil, "r is no 32-byte integer")
        #expect(
            try Self.verify(
                f, pair.publicRef, "ecdsaSignatureDigestX962SHA256", [UInt8](repeating: 0, count: 8) + Self.sigDigest,
                largeInteger
            )
            .json["verified"] == false, "verify DER sig with large integer")
    }

    /// Apple's `something`: `count` bytes, 80 BE EF BA D0 and zeros.
    static func something(_ count: Int) -> [UInt8] {
        [0x80, 0xbe, 0xef, 0xba, 0xd0] + [UInt8](repeating: 0, count: count - 5)
    }

    /// A pair generated with `privateKeyAttrs` and `publicKeyAttrs` labelled, permanent (`testkeygen2`):
    /// the private key found by its label and `canSign` signs `data` with `algorithm`, and the
    /// public key found by its label verifies the signature.
    static func keygen2(_ f: APIFixture, type: String, bits: Int, suffix: String, algorithm: String, data: [UInt8]) throws {
        let uuid = UUID().uuidString
        let (publicName, privateName) = ("\(uuid)-Public-\(suffix)", "\(uuid)-Private-\(suffix)")
        let made = try make(
            f, type: type, bits: bits,
            [
                "isPermanent": true, "publicKeyAttrs": .object(["label": .string(publicName)]),
                "privateKeyAttrs": .object(["label": .string(privateName)]),
            ])
        #expect(made.status == 201, "Generate \(bits) bit persistent keypair: \(made.text)")
        let privateKey: JSON = .object(["class": "key", "label": .string(privateName), "canSign": true])
        let publicKey: JSON = .object(["class": "key", "label": .string(publicName)])
        let signed = try use(f, "sign", ["query": privateKey, "algorithm": .string(algorithm), "data": base64(data)])
        #expect(signed.status == 200, "sign something (\(bits) bits): \(signed.text)")
        let signature = try #require(bytes(signed, "signature"))
        let verified = try use(
            f, "verify",
            ["query": publicKey, "algorithm": .string(algorithm), "data": base64(data), "signature": base64(signature)])
        #expect(verified.json["verified"] == true, "verify sig on something (\(bits) bits): \(verified.text)")
    }

    /// kc-41-sececkey.m `testkeygen`, `testkeygen2` and `testkeygen3` (192, 256, 384 and 521 bits;
    /// `testkeygen3` from 256), their SecKey steps. `testkeygen`: a pair; SecKeyCopyPublicKey of
    /// the private key is the public key, not empty; the private key signs 20 bytes
    /// (`kSecPaddingNone`) and the public key verifies. `testkeygen2`: a permanent pair labelled
    /// `<uuid>-Public-41` and `<uuid>-Private-41`; the keys found by label (and `canSign`) sign
    /// and verify 20 bytes (`kSecPaddingPKCS1`). `testkeygen3`: SecKeyCreateRandomKey, not
    /// permanent, and SecKeyCopyPublicKey of it, which sign and verify 20 bytes
    /// (`kSecPaddingNone`): here the answer holds both keys, the private key's external
    /// representation beginning with the public key's, and a key is used in place as an item, so
    /// both are added (SecItemAdd of the keys) to sign and verify.
    /// `kSecPaddingPKCS1` on 20 bytes is `ecdsaSignatureDigestX962SHA1`. Intended differences:
    /// P-192 is errSecParam naming `keySizeInBits` (EC on P-256, P-384 and P-521); `kSecPaddingNone`
    /// is the hashless `ecdsaSignatureDigestX962`, ECDSA over the 20 bytes as a digest, which
    /// keychaind does not implement: `ecdsaSignatureDigestX962SHA1` signs the same 20-byte digest.
    /// Left out: retain counts.
    /// The keychain steps are KeychainFileCertificateRegressions.kc41SecECKey's.
    @Test func kc41KeyGen() throws {
        let f = try APIFixture()
        try Self.make(f, type: "ec", bits: 192, ["isPermanent": true]).expectError(400, errSecParam, naming: "keySizeInBits")
        let something = Self.something(20)
        let algorithm = "ecdsaSignatureDigestX962SHA1"
        for bits in [256, 384, 521] {
            let made = try Self.make(f, type: "ec", bits: bits, ["isPermanent": true])
            let pair = try Self.pair(made)
            let publicKey = try #require(Self.bytes(made, "publicKey"))
            #expect(!publicKey.isEmpty)
            #expect(Self.bytes(try Self.copyPublicKey(f, pair.privateRef), "publicKey") == publicKey, "SecKeyCopyPublicKey")
            let signed = try Self.sign(f, pair.privateRef, algorithm, something)
            #expect(signed.status == 200, "sign something: \(signed.text)")
            let signature = try #require(Self.bytes(signed, "signature"))
            #expect(
                try Self.verify(f, pair.publicRef, algorithm, something, signature).json["verified"] == true,
                "verify sig on something")

            try Self.keygen2(f, type: "ec", bits: bits, suffix: "41", algorithm: algorithm, data: something)

            let random = try Self.make(f, type: "ec", bits: bits, ["isPermanent": false])
            #expect(random.status == 201, "SecKeyCreateRandomKey: \(random.text)")
            #expect(random.json["privateKeyItem"] == nil && random.json["publicKeyItem"] == nil, "not permanent: no item")
            let randomPublic = try #require(Self.bytes(random, "publicKey"))
            let randomPrivate = try #require(Self.bytes(random, "privateKey"))
            #expect(
                randomPublic.count == 1 + 2 * ((bits + 7) / 8) && randomPrivate.starts(with: randomPublic), "SecKeyCopyPublicKey")
            var added: [String] = []
            for (bytes, keyClass) in [(randomPrivate, "private"), (randomPublic, "public")] {
                let answer = try AppleCalls(f).add(AppleRef.addKey(bytes, type: "ec", keyClass: keyClass))
                #expect(answer.status == errSecSuccess, "SecItemAdd of the \(keyClass) key: \(answer)")
                added.append(try #require(answer.persistentRef))
            }
            let randomSigned = try Self.sign(f, added[0], algorithm, something)
            #expect(randomSigned.status == 200, "sign something: \(randomSigned.text)")
            #expect(
                try Self.verify(f, added[1], algorithm, something, try #require(Self.bytes(randomSigned, "signature")))
                    .json["verified"] == true, "verify sig on something")
        }
    }

    /// kc-41-sececkey.m `testkeyexchange` (256, 384 and 521 bits): two pairs; SecKeyCopyPublicKey
    /// of the first private key is its public key, not empty; `exchange`'s steps with
    /// `requestedSize` 273 and `sharedInfo` "share" (Apple's `dataWithBytes:"shared" length:5`);
    /// then, with `ecdhKeyExchangeStandardX963SHA1`, no parameters, a `requestedSize` that is a
    /// string, and a `sharedInfo` that is a string, each refused. Here bytes are base64 in a
    /// string, so the string `sharedInfo`, Apple's "sharedInfo", is text that is not base64:
    /// errSecParam naming `sharedInfo`; the string `requestedSize` is errSecParam naming it.
    /// Intended difference: without parameters the exchange answers, `requestedSize` defaulting
    /// to 32 bytes (docs/certificates-keys-identities.md, Keys used in place), where Apple
    /// requires it.
    @Test func kc41KeyExchange() throws {
        let f = try APIFixture()
        for bits in [256, 384, 521] {
            let first = try Self.generate(f, type: "ec", bits: bits)
            let second = try Self.generate(f, type: "ec", bits: bits)
            let firstPublic = try Self.publicKey(f, first.publicRef)
            let firstPublicBis = try Self.publicKey(f, first.privateRef)
            #expect(!firstPublic.isEmpty && firstPublicBis == firstPublic, "SecKeyCopyPublicKey")
            try Self.exchange(f, first, second, sharedInfo: Array("share".utf8), curve: "P-\(bits)")

            let peer = try Self.publicKey(f, second.publicRef)
            func exchange(_ parameters: JSONObject) throws -> RawResponse {
                var body: JSONObject = [
                    "persistentRef": .string(first.privateRef), "algorithm": "ecdhKeyExchangeStandardX963SHA1",
                    "peerPublicKey": .string(peer),
                ]
                for (key, value) in parameters { body[key] = value }
                return try Self.use(f, "exchange", body)
            }
            let missing = try exchange([:])
            #expect(missing.status == 200, "intended difference: keyExchange with missing required attributes: \(missing.text)")
            #expect(Self.bytes(missing, "sharedSecret")?.count == 32)
            try exchange(["requestedSize": "16"]).expectError(400, errSecParam, naming: "requestedSize")
            try exchange(["requestedSize": 16, "sharedInfo": "sharedInfo"]).expectError(400, errSecParam, naming: "sharedInfo")
        }
    }

    /// kc-40's `digest`: 64 bytes, the first with its high bit set (a torture of the ASN.1
    /// encoder), of which `testkeygen` signs the first 20.
    static let tortureDigest: [UInt8] = [0x80] + (1..<32).map { UInt8($0) } + (0..<32).map { UInt8($0) }

    /// kc-40-seckey.m `testkeygen` (1024 and 2056 bits) and `testkeygen2` (1024), their SecKey
    /// steps on macOS (the encryption, MD2, MD5 and signature-inspection steps are iOS's).
    /// `testkeygen`: a pair, each key of the size asked; the private key signs random bytes with
    /// `kSecPaddingPKCS1` and the public key verifies; it signs 20 bytes whose first byte has its
    /// high bit set with `kSecPaddingPKCS1SHA1` (`rsaSignatureMessagePKCS1v15SHA1` on macOS) and
    /// the public key verifies. `testkeygen2`: a permanent pair labelled `<uuid>-Public-40` and
    /// `<uuid>-Private-40`; the keys found by label (and `canSign`) sign and verify 50 bytes with
    /// `kSecPaddingPKCS1`.
    /// Intended differences: RSA-1024 is errSecParam naming `keySizeInBits` (RSA from 2048 bits),
    /// so 2048 stands for it; `kSecPaddingPKCS1`'s `rsaSignatureDigestPKCS1v15Raw` is errSecParam
    /// naming `algorithm`, so `testkeygen2`'s keys sign and verify with
    /// `rsaSignatureMessagePKCS1v15SHA1` (PKCS#1 v1.5 over the 50 bytes' SHA-1) instead.
    /// The keychain steps are KeychainFileCertificateRegressions.kc40SecKey's.
    @Test func kc40KeyGen() throws {
        let f = try APIFixture()
        try Self.make(f, type: "rsa", bits: 1024, ["isPermanent": true]).expectError(400, errSecParam, naming: "keySizeInBits")
        for bits in [2048, 2056] {
            let made = try Self.make(f, type: "rsa", bits: bits, ["isPermanent": true])
            let pair = try Self.pair(made)
            for item in ["privateKeyItem", "publicKeyItem"] {
                #expect(
                    made.json[item]?.objectValue?["attributes"]?.objectValue?["keySizeInBits"] == .int(Int64(bits)),
                    "\(item): key size is ok")
            }
            let random = (0..<(bits / 8 - 11)).map { _ in UInt8.random(in: 0...255) }
            try Self.sign(f, pair.privateRef, "rsaSignatureDigestPKCS1v15Raw", random)
                .expectError(400, errSecParam, naming: "algorithm")
            let digest = Array(Self.tortureDigest.prefix(20))
            let signed = try Self.sign(f, pair.privateRef, "rsaSignatureMessagePKCS1v15SHA1", digest)
            #expect(signed.status == 200, "sign sha1 digest: \(signed.text)")
            let signature = try #require(Self.bytes(signed, "signature"))
            #expect(
                try Self.verify(f, pair.publicRef, "rsaSignatureMessagePKCS1v15SHA1", digest, signature).json["verified"] == true,
                "verify sig on sha1 digest")
        }
        try Self.keygen2(
            f, type: "rsa", bits: 2048, suffix: "40", algorithm: "rsaSignatureMessagePKCS1v15SHA1", data: Self.something(50))
    }

    /// kc-40-seckey.m `testsupportedalgos` (1024 bits): for each RSA signature algorithm the
    /// private key signs and the public key does not, the public key verifies and so does the
    /// private key; neither key does ECDSA; for each encryption algorithm the private key
    /// decrypts and the public key encrypts, the private key does not encrypt, and the public key
    /// decrypts (but not with OAEP over AES-GCM); with a 1024-bit key, the private key does not
    /// decrypt with OAEP-SHA512 (nor OAEP-SHA512 over AES-GCM). "Supported" is the operation
    /// answered, "not supported" errSecParam; a decryption is of the public key's ciphertext and
    /// gives the plaintext back. The key size decides OAEP-SHA512, so the pair is Apple's size,
    /// made by openssl and added as key items (keychaind generates RSA from 2048 bits).
    /// Intended differences: a private key never verifies (errSecParam naming `canVerify`) and a
    /// public key never decrypts (naming `canDecrypt`), as an EC key in si-41's `testsupportedalgos`,
    /// where Apple's RSA adapters let them do so through raw RSA; raw RSA
    /// (`rsaSignatureRaw`, `rsaSignatureDigestPKCS1v15Raw`, `rsaEncryptionRaw`) and OAEP over
    /// AES-GCM are errSecParam naming `algorithm`.
    @Test func kc40SupportedAlgorithms() throws {
        let f = try APIFixture()
        let kc = AppleCalls(f)
        let rsa = try TestKeys().rsa("supported", bits: 1024)
        func added(_ bytes: [UInt8], _ keyClass: String) throws -> String {
            let answer = try kc.add(AppleRef.addKey(bytes, type: "rsa", keyClass: keyClass))
            #expect(answer.status == errSecSuccess, "Generate 1024 bit RSA keypair: \(answer)")
            #expect(answer.attributes?["keySizeInBits"] == 1024, "\(keyClass) key size is ok")
            return try #require(answer.persistentRef)
        }
        let pair = Pair(privateRef: try added(rsa.privateKey, "private"), publicRef: try added(rsa.publicKey, "public"))
        let digest = try Self.digest("sha512", Array("data".utf8))
        for unimplemented in ["rsaSignatureRaw", "rsaSignatureDigestPKCS1v15Raw"] {
            try Self.sign(f, pair.privateRef, unimplemented, digest).expectError(400, errSecParam, naming: "algorithm")
            try Self.verify(f, pair.publicRef, unimplemented, digest, digest).expectError(400, errSecParam, naming: "algorithm")
        }
        for hash in ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"] {
            for kind in ["Digest", "Message"] {
                let algorithm = "rsaSignature\(kind)PKCS1v15\(hash)"
                let data =
                    kind == "Digest"
                    ? Array(digest.prefix(["SHA1": 20, "SHA224": 28, "SHA256": 32, "SHA384": 48, "SHA512": 64][hash]!)) : digest
                let signed = try Self.sign(f, pair.privateRef, algorithm, data)
                #expect(signed.status == 200, "privKey supports sign algorithm \(algorithm): \(signed.text)")
                let signature = try #require(Self.bytes(signed, "signature"))
                #expect(
                    try Self.verify(f, pair.publicRef, algorithm, data, signature).status == 200,
                    "pubKey supports verify algorithm \(algorithm)")
                try Self.verify(f, pair.privateRef, algorithm, data, signature).expectError(400, errSecParam, naming: "canVerify")
                try Self.sign(f, pair.publicRef, algorithm, data).expectError(400, errSecParam, naming: "canSign")
            }
        }
        for algorithm in ["ecdsaSignatureDigestX962", "ecdsaSignatureDigestX962SHA256"] {
            let data = Array(digest.prefix(32))
            try Self.sign(f, pair.privateRef, algorithm, data).expectError(400, errSecParam, naming: "algorithm")
            try Self.verify(f, pair.publicRef, algorithm, data, data).expectError(400, errSecParam, naming: "algorithm")
        }

        func crypt(_ action: String, _ ref: String, _ algorithm: String, _ input: [UInt8]) throws -> RawResponse {
            let name = action == "encrypt" ? "plaintext" : "ciphertext"
            return try Self.use(f, action, ["persistentRef": .string(ref), "algorithm": .string(algorithm), name: base64(input)])
        }
        let plaintext = Array("plaintext".utf8)
        for algorithm in ["rsaEncryptionPKCS1"] + ["SHA1", "SHA224", "SHA256", "SHA384"].map({ "rsaEncryptionOAEP\($0)" }) {
            let encrypted = try crypt("encrypt", pair.publicRef, algorithm, plaintext)
            #expect(encrypted.status == 200, "pubKey supports encrypt algorithm \(algorithm): \(encrypted.text)")
            let ciphertext = try #require(Self.bytes(encrypted, "ciphertext"))
            let decrypted = try crypt("decrypt", pair.privateRef, algorithm, ciphertext)
            #expect(decrypted.status == 200, "privKey supports decrypt algorithm \(algorithm): \(decrypted.text)")
            #expect(Self.bytes(decrypted, "plaintext") == plaintext)
            try crypt("encrypt", pair.privateRef, algorithm, plaintext).expectError(400, errSecParam, naming: "canEncrypt")
            try crypt("decrypt", pair.publicRef, algorithm, ciphertext).expectError(400, errSecParam, naming: "canDecrypt")
        }
        let block = [UInt8](repeating: 0, count: 128)
        let aesGCM = ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"].map { "rsaEncryptionOAEP\($0)AESGCM" }
        for unimplemented in ["rsaEncryptionRaw"] + aesGCM {
            try crypt("encrypt", pair.publicRef, unimplemented, plaintext).expectError(400, errSecParam, naming: "algorithm")
            try crypt("decrypt", pair.privateRef, unimplemented, block).expectError(400, errSecParam, naming: "algorithm")
        }
        try crypt("decrypt", pair.privateRef, "rsaEncryptionOAEPSHA512", block).expectError(400, errSecParam, naming: "algorithm")
    }

    /// The PKCS#1 public key of a PKCS#1 RSA private key, by `openssl rsa`.
    static func rsaPublicKey(of privateKey: [UInt8]) throws -> [UInt8] {
        let tool = TestCertificates()
        let (input, output) = ("\(tool.directory.path)/key.der", "\(tool.directory.path)/public.der")
        try Data(privateKey).write(to: URL(fileURLWithPath: input))
        try tool.openssl(["rsa", "-inform", "DER", "-in", input, "-RSAPublicKey_out", "-outform", "DER", "-out", output])
        return try TestCertificates.read(output)
    }

    /// kc-40-seckey.m `testcopypublickey` (1024 bits; extractable or not, permanent or not): a
    /// pair labelled `sectests:copypublickey`; SecKeyCopyPublicKey of the private key, and of the
    /// public key, is the public key (their external representations are equal). Permanent, both
    /// are `/v1/keys/public` of the stored keys; not permanent, the pair is answered, not kept,
    /// and the public key of the private key answered (openssl's) is the public key answered.
    /// Intended differences: RSA-2048 (see `kc40KeyGen`); a private key that is not permanent is
    /// answered, so it must be extractable: not extractable it is errSecParam naming
    /// `isExtractable` (docs/certificates-keys-identities.md, Keys used in place).
    @Test func kc40CopyPublicKey() throws {
        let f = try APIFixture()
        for extractable in [true, false] {
            let made = try Self.make(
                f, type: "rsa", bits: 2048,
                ["isPermanent": true, "isExtractable": .bool(extractable), "label": "sectests:copypublickey"])
            let pair = try Self.pair(made)
            let publicKey = try #require(Self.bytes(made, "publicKey"))
            for (ref, name) in [(pair.privateRef, "priv"), (pair.publicRef, "pub")] {
                let copied = try Self.copyPublicKey(f, ref)
                #expect(copied.status == 200, "\(name) key SecKeyCopyPublicKey failed: \(copied.text)")
                #expect(
                    Self.bytes(copied, "publicKey") == publicKey,
                    "pub key from \(name) key SecKeyCopyPublicKey and pub key differ (extractable: \(extractable))")
                #expect(copied.json["keyType"] == "rsa" && copied.json["persistentRef"]?.stringValue == ref)
            }
        }
        let made = try Self.make(
            f, type: "rsa", bits: 2048, ["isPermanent": false, "isExtractable": true, "label": "sectests:copypublickey"])
        #expect(made.status == 201, "Generate 2048 bit RSA keypair: \(made.text)")
        #expect(made.json["privateKeyItem"] == nil && made.json["publicKeyItem"] == nil, "not permanent: no item")
        let publicKey = try #require(Self.bytes(made, "publicKey"))
        #expect(
            try Self.rsaPublicKey(of: try #require(Self.bytes(made, "privateKey"))) == publicKey,
            "pub key from priv key SecKeyCopyPublicKey and pub key differ")
        try Self.make(
            f, type: "rsa", bits: 2048, ["isPermanent": false, "isExtractable": false, "label": "sectests:copypublickey"]
        )
        .expectError(400, errSecParam, naming: "isExtractable")
    }

    /// kc-40-seckey.m `testsignverify` (1024 bits): as si-40's (`si40SignVerify`), and with a
    /// second pair made of each key's external representation (SecKeyCopyExternalRepresentation,
    /// SecKeyCreateWithData: Apple's iOS implementation of the same keys): that private key signs
    /// too, and each public key verifies each private key's signature. Here the second pair is the
    /// keys' bytes (`returnData`) added again as key items under another application tag.
    /// Intended differences: RSA-2048, and `rsaSignatureRaw` is errSecParam naming `algorithm`.
    @Test func kc40SignVerify() throws {
        let f = try APIFixture()
        let kc = AppleCalls(f)
        let pair = try Self.generate(f, type: "rsa", bits: 2048)
        func recreated(_ ref: String, _ keyClass: String) throws -> String {
            let found = try kc.copyMatching(["class": "key", "valuePersistentRef": .string(ref), "returnData": true])
            let bytes = try #require(found.dataBytes, "SecKeyCopyExternalRepresentation: \(found)")
            let added = try kc.add(
                AppleRef.addKey(bytes, type: "rsa", keyClass: keyClass).merging(["applicationTag": data("ios")]))
            #expect(added.status == errSecSuccess, "create IOS version of the \(keyClass) key: \(added)")
            return try #require(added.persistentRef)
        }
        let ios = Pair(privateRef: try recreated(pair.privateRef, "private"), publicRef: try recreated(pair.publicRef, "public"))
        let test = Array("test".utf8)
        for hash in ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"] {
            for (algorithm, data) in [
                ("rsaSignatureDigestPKCS1v15\(hash)", try Self.digest(hash.lowercased(), test)),
                ("rsaSignatureMessagePKCS1v15\(hash)", test),
            ] {
                let signature = try Self.signVerify(f, pair, algorithm, data: data, incompatible: "rsaSignatureRaw")
                let iosSigned = try Self.sign(f, ios.privateRef, algorithm, data)
                #expect(iosSigned.status == 200, "SecKeyCopySignature(ios) failed for algorithm \(algorithm): \(iosSigned.text)")
                let iosSignature = try #require(Self.bytes(iosSigned, "signature"))
                for (ref, signed, name) in [
                    (ios.publicRef, signature, "(ios) failed for osx-signature"),
                    (pair.publicRef, iosSignature, "(osx) failed for ios-signature"),
                    (ios.publicRef, iosSignature, "(ios) failed for ios-signature"),
                ] {
                    #expect(
                        try Self.verify(f, ref, algorithm, data, signed).json["verified"] == true,
                        "SecKeyVerifySignature\(name) for algorithm \(algorithm)")
                }
            }
        }
        try Self.sign(f, pair.privateRef, "rsaSignatureRaw", test).expectError(400, errSecParam, naming: "algorithm")
    }

    /// The X9.63 public point of a P-256 private scalar, as SecKeyCreateECPrivateKey computes it:
    /// `openssl ec` of the scalar's SEC1 DER with the curve named.
    static func p256PublicPoint(ofScalar scalar: [UInt8]) throws -> [UInt8] {
        let tool = TestCertificates()
        let (input, output) = ("\(tool.directory.path)/key.der", "\(tool.directory.path)/public.der")
        let curve: [UInt8] = [0xa0, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]
        try Data([0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20] + scalar + curve).write(to: URL(fileURLWithPath: input))
        try tool.openssl(["ec", "-inform", "DER", "-in", input, "-pubout", "-outform", "DER", "-out", output])
        return Array(try TestCertificates.read(output).suffix(65))
    }

    /// si-61-pkcs12.c `tests`, the signature with `ECDSA_fails_import_p12` (password "test"): it
    /// imports one identity; its private key (SecIdentityCopyPrivateKey) gives its public key
    /// (SecKeyCopyPublicKey), signs 20 bytes with `ecdsaSignatureMessageX962SHA256`, and the
    /// public key verifies; the identity is deleted (`delete_identity`). Then the same key's
    /// scalar alone, `ECDSA_fails_import_priv_only`, is imported (SecKeyCreateECPrivateKey), its
    /// public key copied (SecKeyCopyPublicBytes) and made a key (SecKeyCreateECPublicKey), which
    /// verifies that signature. The import's answer names the identity by its certificate's
    /// persistent reference, with the key's `applicationLabel` among its attributes, so the
    /// private key is named by a query of its class and that label; a key verifies only as a
    /// public key item, so the public keys copied are added as such. keychaind takes a key in
    /// Apple's external representation (`04‖X‖Y‖K`), so openssl computes the scalar's point.
    /// The import's keychain steps are CertificateKeyRegressions.si61PKCS12's.
    @Test func si61PKCS12Signature() throws {
        let f = try APIFixture()
        let kc = AppleCalls(f)
        let imported = try kc.importPKCS12(AppleTestData.si61ECDSAFailsImportP12, password: "test")
        #expect(imported.status == errSecSuccess, "import ECDSA_fails_import_p12: \(imported)")
        let identities = imported.items.filter { $0["attributes"]?.objectValue?["class"] == "identity" }
        #expect(identities.count == 1, "one identity")
        let identityRef = try #require(identities.first?["persistentRef"]?.stringValue, "pull identity from imported data")
        let label = try #require(identities.first?["attributes"]?.objectValue?["applicationLabel"], "get private key")
        let privateKey: JSON = .object(["class": "key", "keyClass": "private", "applicationLabel": label])

        let copied = try Self.use(f, "public", ["query": privateKey])
        #expect(copied.status == 200, "get public key from private key: \(copied.text)")
        #expect(copied.json["keyType"] == "ec")
        let publicKey = try #require(Self.bytes(copied, "publicKey"))
        let publicItem = try kc.add(AppleRef.addKey(publicKey, type: "ec", keyClass: "public"))
        #expect(publicItem.status == errSecSuccess, "\(publicItem)")
        let something = Self.something(20)
        let algorithm = "ecdsaSignatureMessageX962SHA256"
        let signed = try Self.use(f, "sign", ["query": privateKey, "algorithm": .string(algorithm), "data": base64(something)])
        #expect(signed.status == 200, "sign something: \(signed.text)")
        let signature = try #require(Self.bytes(signed, "signature"))
        #expect(
            try Self.verify(f, try #require(publicItem.persistentRef), algorithm, something, signature).json["verified"] == true,
            "verify sig on something")

        let identity = try kc.copyMatching(["class": "identity", "valuePersistentRef": .string(identityRef), "returnRef": true])
        try CertificateKeyRegressions.deleteIdentity(kc, identity, synchronizable: false)
        #expect(try kc.delete(try AppleRef.key(publicKey, type: "ec", keyClass: "public")).status == errSecSuccess)

        let der = AppleTestData.si61ECDSAFailsImportPrivOnly
        #expect(der.count == 39 && der[5...6] == [0x04, 0x20], "SEC1: the scalar alone")
        let scalar = Array(der[7...])
        let point = try Self.p256PublicPoint(ofScalar: scalar)
        let bare = try kc.add(AppleRef.addKey(point + scalar, type: "ec", keyClass: "private"))
        #expect(bare.status == errSecSuccess, "import privkey without pub: \(bare)")
        let bareCopied = try Self.copyPublicKey(f, try #require(bare.persistentRef))
        #expect(bareCopied.status == 200, "pub key from priv key: \(bareCopied.text)")
        let barePublic = try #require(Self.bytes(bareCopied, "publicKey"))
        #expect(barePublic == point)
        let recreated = try kc.add(AppleRef.addKey(barePublic, type: "ec", keyClass: "public"))
        #expect(recreated.status == errSecSuccess, "recreate seckey: \(recreated)")
        #expect(
            try Self.verify(f, try #require(recreated.persistentRef), algorithm, something, signature).json["verified"] == true,
            "verify sig on something")
    }
}

import ExtrasBase64
import Foundation
import KeychainJSON
import TestSupport
import Testing

/// Keys made and used in place over HTTP (SecKeyCreateRandomKey, SecKeyCreateSignature,
/// SecKeyVerifySignature, SecKeyCopyPublicKey): what a client sees, and signatures that openssl,
/// an implementation of its own, verifies.
@Suite struct KeyUseRouteTests {
    /// SubjectPublicKeyInfo DER before the key's bytes, for openssl.
    static let p256Prefix = TestCertificates.hexBytes("3059301306072a8648ce3d020106082a8648ce3d030107034200")!
    static let ed25519Prefix = TestCertificates.hexBytes("302a300506032b6570032100")!

    /// A P-256 pair: the private key kept and not extractable, the public key kept too.
    static func generateP256(_ f: APIFixture, tag: String = "signing") throws -> RawResponse {
        try f.call(
            "POST", "/v1/keys",
            json: #"""
                {"keyType":"ec","keySizeInBits":256,"applicationTag":"\#(Base64.encode(Array(tag.utf8)))",
                 "privateKeyAttrs":{"isPermanent":true,"isExtractable":false,"label":"\#(tag)"},
                 "publicKeyAttrs":{"isPermanent":true}}
                """#)
    }

    /// SHA-1, by openssl: SecKeyCopyPublicKeyHash, which a generated key's `applicationLabel` is.
    static func sha1(_ bytes: [UInt8]) throws -> [UInt8] {
        let tool = TestCertificates()
        let path = "\(tool.directory.path)/hashin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return TestCertificates.hexBytes(String(try tool.openssl(["dgst", "-sha1", "-r", path]).prefix(40)))!
    }

    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    static func bytes(_ response: RawResponse, _ key: String) throws -> [UInt8] {
        try #require(response.json[key]?.stringValue.flatMap { Base64.decode($0) }, "\(response.text)")
    }

    /// Whether openssl verifies `signature` of `data` with the public key `spki` (DER).
    static func opensslVerifies(_ data: [UInt8], _ signature: [UInt8], spki: [UInt8], ed25519: Bool) throws -> Bool {
        let tool = TestCertificates()
        let directory = tool.directory.path
        try Data(spki).write(to: URL(fileURLWithPath: "\(directory)/key.der"))
        try Data(data).write(to: URL(fileURLWithPath: "\(directory)/data"))
        try Data(signature).write(to: URL(fileURLWithPath: "\(directory)/sig"))
        try tool.openssl(["pkey", "-pubin", "-inform", "DER", "-in", "\(directory)/key.der", "-out", "\(directory)/key.pem"])
        var arguments = [
            "pkeyutl", "-verify", "-pubin", "-inkey", "\(directory)/key.pem", "-in", "\(directory)/data",
            "-sigfile", "\(directory)/sig",
        ]
        arguments += ed25519 ? ["-rawin"] : ["-rawin", "-digest", "sha256"]
        return (try? tool.openssl(arguments))?.contains("Signature Verified Successfully") ?? false
    }

    @Test func aGeneratedP256KeySignsInPlaceAndOpensslVerifies() throws {
        let f = try APIFixture()
        let made = try Self.generateP256(f)
        #expect(made.status == 201, "\(made.text)")
        let publicKey = try Self.bytes(made, "publicKey")
        #expect(publicKey.count == 65 && publicKey[0] == 4)
        let item = try #require(made.json["privateKeyItem"]?.objectValue, "\(made.text)")
        let attributes = try #require(item["attributes"]?.objectValue)
        #expect(attributes["keyClass"] == "private")
        #expect(attributes["keyType"] == "ec")
        #expect(attributes["keySizeInBits"] == 256)
        #expect(attributes["isExtractable"] == false)
        #expect(attributes["applicationLabel"] == .string(Base64.encode(try Self.sha1(publicKey))))
        #expect(made.json["privateKey"] == nil)
        #expect(made.json["publicKeyItem"]?.objectValue?["attributes"]?.objectValue?["keyClass"] == "public")
        let ref = try #require(item["persistentRef"]?.stringValue)

        let data = Array("the message".utf8)
        let signed = try f.call(
            "POST", "/v1/keys/sign",
            json: #"{"persistentRef":"\#(ref)","algorithm":"ecdsaSignatureMessageX962SHA256","data":"\#(Base64.encode(data))"}"#)
        #expect(signed.status == 200, "\(signed.text)")
        let signature = try Self.bytes(signed, "signature")
        #expect(signature.first == 0x30, "an X9.62 DER ECDSA-Sig-Value")
        #expect(try Self.opensslVerifies(data, signature, spki: Self.p256Prefix + publicKey, ed25519: false))

        // Verified by the stored public key, found by query; a changed message does not verify.
        for (message, expected) in [(data, true), (Array("another message".utf8), false)] {
            let verified = try f.call(
                "POST", "/v1/keys/verify",
                json: #"""
                    {"query":{"keyClass":"public","applicationLabel":"\#(Base64.encode(try Self.sha1(publicKey)))"},
                     "algorithm":"ecdsaSignatureMessageX962SHA256","data":"\#(Base64.encode(message))",
                     "signature":"\#(Base64.encode(signature))"}
                    """#)
            #expect(verified.status == 200, "\(verified.text)")
            #expect(verified.json["verified"] == .bool(expected))
        }
        // The public key of the private key, as SecKeyCopyPublicKey gives it.
        let copied = try f.call("POST", "/v1/keys/public", json: #"{"persistentRef":"\#(ref)"}"#)
        #expect(copied.status == 200, "\(copied.text)")
        #expect(try Self.bytes(copied, "publicKey") == publicKey)
        // And the private key's bytes are in no answer: it is not extractable.
        let search = try f.call(
            "POST", "/v1/items/search", json: #"{"class":"key","keyClass":"private","returnData":true,"returnAttributes":true}"#)
        #expect(search.status == 200)
        #expect(search.items.first?["valueData"] == nil)
    }

    @Test func anEd25519KeySignsAsRFC8032SaysAndOpensslVerifies() throws {
        let f = try APIFixture()
        let made = try f.call(
            "POST", "/v1/keys", json: #"{"keyType":"ed25519","privateKeyAttrs":{"isPermanent":true,"label":"ed"}}"#)
        #expect(made.status == 201, "\(made.text)")
        let publicKey = try Self.bytes(made, "publicKey")
        #expect(publicKey.count == 32)
        #expect(made.json["publicKeyItem"] == nil, "the public key is not permanent")
        let data = Array("message for ed25519".utf8)
        let signed = try f.call(
            "POST", "/v1/keys/sign",
            json:
                #"{"query":{"label":"ed"},"algorithm":"edDSASignatureMessageCurve25519SHA512","data":"\#(Base64.encode(data))"}"#)
        #expect(signed.status == 200, "\(signed.text)")
        let signature = try Self.bytes(signed, "signature")
        #expect(signature.count == 64)
        #expect(try Self.opensslVerifies(data, signature, spki: Self.ed25519Prefix + publicKey, ed25519: true))
        // Again, with the public key the first signature derived and kept: Ed25519 is deterministic.
        let again = try f.call(
            "POST", "/v1/keys/sign",
            json:
                #"{"query":{"label":"ed"},"algorithm":"edDSASignatureMessageCurve25519SHA512","data":"\#(Base64.encode(data))"}"#)
        #expect(try Self.bytes(again, "signature") == signature)
    }

    /// A private key that is not permanent is answered once: it is kept nowhere.
    @Test func aKeyThatIsNotPermanentIsAnsweredAndNotKept() throws {
        let f = try APIFixture()
        let made = try f.call("POST", "/v1/keys", json: #"{"keyType":"x25519"}"#)
        #expect(made.status == 201, "\(made.text)")
        #expect(try Self.bytes(made, "privateKey").count == 32)
        #expect(made.json["privateKeyItem"] == nil)
        try f.call("POST", "/v1/items/search", json: #"{"class":"key"}"#).expectError(404, -25300)
        try f.call("POST", "/v1/keys", json: #"{"keyType":"x25519","privateKeyAttrs":{"isExtractable":false}}"#)
            .expectError(400, -50, naming: "isExtractable")
    }

    @Test func aPairWhosePublicKeyIsThereAlreadyIs409NamingItAndKeepsNeither() throws {
        let f = try APIFixture()
        let body = #"""
            {"keyType":"ec","privateKeyAttrs":{"isPermanent":true},
             "publicKeyAttrs":{"isPermanent":true,"applicationLabel":"c2hhcmVk"}}
            """#
        let first = try f.call("POST", "/v1/keys", json: body)
        let kept = try #require(first.json["publicKeyItem"]?.objectValue?["persistentRef"]?.stringValue, "\(first.text)")
        let second = try f.call("POST", "/v1/keys", json: body)
        second.expectError(409, -25299)
        #expect(second.json["persistentRef"] == .string(kept), "\(second.text)")
        let all = try f.call("POST", "/v1/items/search", json: #"{"class":"key","matchLimit":"all"}"#)
        #expect(all.items.count == 2, "the first pair alone: \(all.text)")
    }

    @Test func badRequestsAre400NamingTheKeyAtFault() throws {
        let f = try APIFixture()
        try f.call("POST", "/v1/keys", json: #"{"keyType":"dsa"}"#).expectError(400, -50, naming: "keyType")
        try f.call("POST", "/v1/keys", json: #"{"keyType":"ec","keySizeInBits":224}"#).expectError(
            400, -50, naming: "keySizeInBits")
        try f.call("POST", "/v1/keys", json: #"{"keyType":"rsa","keySizeInBits":1024}"#)
            .expectError(400, -50, naming: "keySizeInBits")
        let made = try Self.generateP256(f)
        let ref = try #require(made.json["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue)
        let data = Base64.encode(Array("x".utf8))
        try f.call(
            "POST", "/v1/keys/sign",
            json: #"{"persistentRef":"\#(ref)","algorithm":"rsaSignatureMessagePSSSHA256","data":"\#(data)"}"#
        )
        .expectError(400, -50, naming: "algorithm")
        try f.call("POST", "/v1/keys/sign", json: #"{"persistentRef":"\#(ref)","algorithm":"sha256WithMagic","data":"\#(data)"}"#)
            .expectError(400, -50, naming: "algorithm")
        try f.call("POST", "/v1/keys/sign", json: #"{"persistentRef":"\#(ref)","algorithm":"ecdsaSignatureMessageX962SHA256"}"#)
            .expectError(400, -50, naming: "data")
        // A digest algorithm takes a digest of the hash's length.
        try f.call(
            "POST", "/v1/keys/sign",
            json: #"{"persistentRef":"\#(ref)","algorithm":"ecdsaSignatureDigestX962SHA256","data":"\#(data)"}"#
        ).expectError(400, -50, naming: "data")
        // A private key verifies nothing by default (canVerify false), as Apple's flags say.
        try f.call(
            "POST", "/v1/keys/verify",
            json:
                #"{"persistentRef":"\#(ref)","algorithm":"ecdsaSignatureMessageX962SHA256","data":"\#(data)","signature":"\#(data)"}"#
        ).expectError(400, -50, naming: "canVerify")
        try f.call("POST", "/v1/keys/sign", json: #"{"algorithm":"ecdsaSignatureMessageX962SHA256","data":"\#(data)"}"#)
            .expectError(400, -50, naming: "persistentRef")
    }

    @Test func aKeyWhoseCanSignIsFalseDoesNotSign() throws {
        let f = try APIFixture()
        let made = try f.call(
            "POST", "/v1/keys", json: #"{"keyType":"ec","privateKeyAttrs":{"isPermanent":true,"canSign":false}}"#)
        let ref = try #require(made.json["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue, "\(made.text)")
        try f.call(
            "POST", "/v1/keys/sign",
            json: #"{"persistentRef":"\#(ref)","algorithm":"ecdsaSignatureMessageX962SHA256","data":"eA=="}"#
        ).expectError(400, -50, naming: "canSign")
    }

    /// `use` signs without revealing; `read` reveals (an extractable key) without signing; a key
    /// outside the token's groups is missing, as it is to a search.
    @Test func useAndReadAreSeparateCapabilitiesAndGroupsHold() throws {
        let f = try APIFixture()
        let made = try f.call("POST", "/v1/keys", json: #"{"keyType":"ec","privateKeyAttrs":{"isPermanent":true}}"#)
        let ref = try #require(made.json["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue, "\(made.text)")
        let sign = #"{"persistentRef":"\#(ref)","algorithm":"ecdsaSignatureMessageX962SHA256","data":"eA=="}"#
        let user = try f.token(groups: ["default"], capabilities: ["use"])
        #expect(try f.call("POST", "/v1/keys/sign", json: sign, headers: Self.bearer(user)).status == 200)
        try f.call("GET", "/v1/items/\(ref)?returnData=true", headers: Self.bearer(user)).expectError(403, -34018)
        let reader = try f.token(groups: ["default"], capabilities: ["read"])
        try f.call("POST", "/v1/keys/sign", json: sign, headers: Self.bearer(reader)).expectError(403, -34018, naming: "token")
        #expect(try f.call("GET", "/v1/items/\(ref)?returnData=true", headers: Self.bearer(reader)).status == 200)
        let stranger = try f.token(groups: ["other"], capabilities: ["use"])
        let missing = try f.call("POST", "/v1/keys/sign", json: sign, headers: Self.bearer(stranger))
        let none = try f.call(
            "POST", "/v1/keys/sign",
            json:
                #"{"persistentRef":"\#(String(ref.dropLast(4)) + "AAAA")","algorithm":"ecdsaSignatureMessageX962SHA256","data":"eA=="}"#,
            headers: Self.bearer(stranger))
        missing.expectError(404, -25300)
        none.expectError(404, -25300)
        #expect(missing.json["message"] == none.json["message"])
    }

    @Test func aLockedKeychainUsesNoKey() throws {
        let f = try APIFixture()
        let made = try Self.generateP256(f)
        let ref = try #require(made.json["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue, "\(made.text)")
        #expect(try f.call("POST", "/v1/keychain/lock").status == 200)
        try f.call(
            "POST", "/v1/keys/sign",
            json: #"{"persistentRef":"\#(ref)","algorithm":"ecdsaSignatureMessageX962SHA256","data":"eA=="}"#
        ).expectError(423, -25308)
    }

    @Test func applesSpellingsMakeTheSameKeyPair() throws {
        let f = try APIFixture()
        let made = try f.call(
            "POST", "/v1/keys",
            json: #"{"type":"73","bsiz":384,"private":{"perm":true,"labl":"apple"},"kSecPublicKeyAttrs":{"isPermanent":true}}"#)
        #expect(made.status == 201, "\(made.text)")
        let attributes = try #require(made.json["privateKeyItem"]?.objectValue?["attributes"]?.objectValue, "\(made.text)")
        #expect(attributes["keyType"] == "ec")
        #expect(attributes["keySizeInBits"] == 384)
        #expect(attributes["label"] == "apple")
        #expect(made.json["publicKeyItem"]?.objectValue?["attributes"]?.objectValue?["keyClass"] == "public")
        #expect(try Self.bytes(made, "publicKey").count == 97)
        let rsa = try f.call("POST", "/v1/keys", json: #"{"kSecAttrKeyType":"kSecAttrKeyTypeRSA"}"#)
        #expect(rsa.json["keyType"] == "rsa", "\(rsa.text)")

        // Two spellings of one key, or a key the generation decides, in any spelling: refused, nothing kept.
        try f.call("POST", "/v1/keys", json: #"{"keyType":"ec","type":"73","private":{"perm":true}}"#)
            .expectError(400, -50, naming: "type")
        try f.call("POST", "/v1/keys", json: #"{"keyType":"ec","private":{"perm":true,"kcls":"1"}}"#)
            .expectError(400, -50, naming: "kcls")
        try f.call("POST", "/v1/keys", json: #"{"keyType":"ec","kSecClass":"keys","private":{"perm":true}}"#)
            .expectError(400, -50, naming: "kSecClass")
        let all = try f.call("POST", "/v1/items/search", json: #"{"class":"key","matchLimit":"all"}"#)
        #expect(all.items.count == 2, "the P-384 pair alone: \(all.text)")
    }

    @Test func aPublicKeyGivenInTheRequestVerifiesAndEncrypts() throws {
        let f = try APIFixture()
        let made = try Self.generateP256(f)
        let publicKey = Base64.encode(try Self.bytes(made, "publicKey"))
        let ref = try #require(made.json["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue, "\(made.text)")
        let data = Base64.encode(Array("given".utf8))
        let signed = try f.call(
            "POST", "/v1/keys/sign",
            json: #"{"persistentRef":"\#(ref)","algorithm":"ecdsaSignatureMessageX962SHA256","data":"\#(data)"}"#)
        let signature = Base64.encode(try Self.bytes(signed, "signature"))
        func verify(_ message: String, token: String? = nil) throws -> RawResponse {
            try f.call(
                "POST", "/v1/keys/verify",
                json: #"""
                    {"publicKey":"\#(publicKey)","keyType":"ec","algorithm":"ecdsaSignatureMessageX962SHA256",
                     "data":"\#(message)","signature":"\#(signature)"}
                    """#, headers: token.map(Self.bearer))
        }
        let verified = try verify(data)
        #expect(verified.json["verified"] == .bool(true), "\(verified.text)")
        #expect(try verify(Base64.encode(Array("other".utf8))).json["verified"] == .bool(false))

        // ECIES to the given key opens with the kept private key.
        let sealed = try f.call(
            "POST", "/v1/keys/encrypt",
            json: #"""
                {"publicKey":"\#(publicKey)","keyType":"73","algorithm":"eciesEncryptionCofactorVariableIVX963SHA256AESGCM",
                 "plaintext":"\#(data)"}
                """#)
        #expect(sealed.status == 200, "\(sealed.text)")
        let opened = try f.call(
            "POST", "/v1/keys/decrypt",
            json: #"""
                {"persistentRef":"\#(ref)","algorithm":"eciesEncryptionCofactorVariableIVX963SHA256AESGCM",
                 "ciphertext":"\#(Base64.encode(try Self.bytes(sealed, "ciphertext")))"}
                """#)
        #expect(opened.json["plaintext"] == .string(data), "\(opened.text)")

        // It takes `use`; it signs nothing, names no other key, and must be a key of its type.
        let reader = try f.token(groups: ["default"], capabilities: ["read"])
        try verify(data, token: reader).expectError(403, -34018, naming: "token")
        try f.call(
            "POST", "/v1/keys/sign",
            json: #"{"publicKey":"\#(publicKey)","keyType":"ec","algorithm":"ecdsaSignatureMessageX962SHA256","data":"\#(data)"}"#
        ).expectError(400, -50, naming: "publicKey")
        try f.call(
            "POST", "/v1/keys/verify",
            json: #"""
                {"persistentRef":"\#(ref)","publicKey":"\#(publicKey)","keyType":"ec",
                 "algorithm":"ecdsaSignatureMessageX962SHA256","data":"\#(data)","signature":"\#(signature)"}
                """#
        ).expectError(400, -50, naming: "publicKey")
        try f.call(
            "POST", "/v1/keys/verify",
            json: #"""
                {"publicKey":"\#(publicKey)","keyType":"ed25519","algorithm":"ecdsaSignatureMessageX962SHA256",
                 "data":"\#(data)","signature":"\#(signature)"}
                """#
        ).expectError(400, -50, naming: "publicKey")
        try f.call(
            "POST", "/v1/keys/verify",
            json: #"""
                {"publicKey":"\#(publicKey)","keyType":"ec","algorithm":"rsaSignatureMessagePSSSHA256",
                 "data":"\#(data)","signature":"\#(signature)"}
                """#
        ).expectError(400, -50, naming: "algorithm")
    }
}

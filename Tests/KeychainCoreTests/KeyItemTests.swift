import ExtrasBase64
import Foundation
import KeychainX509
import TestSupport
import Testing

@testable import KeychainCore

/// Keys made once with `openssl` for every test of this file.
enum Keys {
    struct Set: Sendable {
        let tool: TestKeys
        let rsa, p256, p384, ed25519, x25519, aes: TestKeys.Made
    }

    static let shared: Set = {
        let tool = TestKeys()
        do {
            return Set(
                tool: tool, rsa: try tool.rsa("rsa"), p256: try tool.ec("p256"), p384: try tool.ec("p384", curve: "P-384"),
                ed25519: try tool.raw25519("ed", algorithm: "ED25519"), x25519: try tool.raw25519("x", algorithm: "X25519"),
                aes: try tool.symmetric("aes"))
        } catch {
            fatalError("openssl could not make the test keys: \(error)")
        }
    }()
}

extension Fixture {
    @discardableResult
    func addKey(
        _ bytes: [UInt8], type: String, keyClass: String, group: String? = nil, extra: JSONObject = [:], token: AccessToken? = nil
    ) throws -> ItemResult {
        var query: JSONObject = [
            "class": "key", "keyType": .string(type), "keyClass": .string(keyClass), "valueData": .string(Base64.encode(bytes)),
        ]
        if let group { query["accessGroup"] = .string(group) }
        for (k, v) in extra { query[k] = v }
        return try keychain.add(query, token: token ?? admin)
    }
}

@Suite struct KeyItemTests {
    static func b64(_ bytes: [UInt8]) -> JSON { .string(Base64.encode(bytes)) }

    /// Each kind of key: added, found by its derived label, its sizes and label as openssl
    /// says, and its bytes back byte for byte.
    @Test(arguments: [
        ("rsa", "private", 2048), ("rsa", "public", 2048), ("ec", "private", 256), ("ec", "public", 256),
        ("p384", "private", 384), ("p384", "public", 384), ("ed25519", "private", 256), ("ed25519", "public", 256),
        ("x25519", "private", 256), ("x25519", "public", 256), ("aes", "symmetric", 256),
    ])
    func eachKeyIsAddedFoundAndReturnedByteForByte(kind: String, keyClass: String, bits: Int) throws {
        let f = try Fixture()
        let k = Keys.shared
        let (made, type): (TestKeys.Made, String) =
            switch kind {
            case "rsa": (k.rsa, "rsa")
            case "ec": (k.p256, "kSecAttrKeyTypeECSECPrimeRandom")
            case "p384": (k.p384, "73")
            case "ed25519": (k.ed25519, "ed25519")
            case "x25519": (k.x25519, "x25519")
            default: (k.aes, "aes")
            }
        let bytes = keyClass == "public" ? made.publicKey : made.privateKey
        let attributes = try #require(try f.addKey(bytes, type: type, keyClass: keyClass, extra: ["label": "k"]).attributesJSON)
        #expect(attributes["class"] == "key")
        #expect(attributes["keyClass"] == .string(keyClass))
        #expect(attributes["keySizeInBits"] == .int(Int64(bits)))
        #expect(attributes["effectiveKeySize"] == .int(Int64(bits)))
        #expect(attributes["isExtractable"] == true)
        #expect(attributes["startDate"] == nil, "server-set and never given: in the primary key at its default, not stored")
        // The answer's attributes sent back as a query find the item.
        #expect(try f.keychain.search(attributes, token: f.admin).count == 1)
        #expect(attributes["canSign"] == .bool(keyClass == "private"))
        #expect(attributes["canVerify"] == .bool(keyClass == "public"))
        if keyClass == "symmetric" {
            #expect(attributes["applicationLabel"] == Self.b64([]), "no public key, no label: the empty default")
        } else {
            #expect(attributes["applicationLabel"] == Self.b64(made.publicKeyHash), "SHA-1 of the public key, by openssl")
        }
        let found = try f.keychain.search(
            [
                "class": "key", "applicationLabel": attributes["applicationLabel"]!, "keyClass": .string(keyClass),
                "returnData": true,
            ],
            token: f.admin)
        #expect(found.count == 1)
        #expect(found[0].json["valueData"]?.stringValue.flatMap(Base64.decode) == bytes)
        #expect(try f.keychain.delete(["class": "key", "label": "k"], token: f.admin) == 1)
    }

    @Test func theLabelIsTheCertificatesPublicKeyHashForTheSameKey() throws {
        let f = try Fixture()
        let k = Keys.shared
        for (name, made, type) in [
            ("rsa", k.rsa, "rsa"), ("p256", k.p256, "ec"), ("p384", k.p384, "ec"), ("ed", k.ed25519, "ed25519"),
        ] {
            let certificate = try Certificate(der: try k.tool.certificate("cert-\(name)", of: made))
            for keyClass in ["private", "public"] {
                let bytes = keyClass == "public" ? made.publicKey : made.privateKey
                let label = try f.addKey(bytes, type: type, keyClass: keyClass).attributesJSON?["applicationLabel"]
                #expect(label == Self.b64(certificate.publicKeyHash), "\(name) \(keyClass)")
            }
        }
    }

    @Test func aTypeClassOrSizeTheBytesAreNotIsErrSecParamNamingIt() throws {
        let f = try Fixture()
        let k = Keys.shared
        expectError(.anyParam, naming: "keyClass") { try f.addKey(k.rsa.privateKey, type: "rsa", keyClass: "public") }
        expectError(.anyParam, naming: "keyClass") { try f.addKey(k.p256.publicKey, type: "ec", keyClass: "private") }
        expectError(.anyParam, naming: "keyType") { try f.addKey(k.p256.publicKey, type: "rsa", keyClass: "public") }
        expectError(.anyParam, naming: "keyType") { try f.addKey(k.rsa.publicKey, type: "ed25519", keyClass: "public") }
        expectError(.anyParam, naming: "keyType") { try f.addKey(k.aes.privateKey, type: "ed25519", keyClass: "symmetric") }
        expectError(.anyParam, naming: "keyType") { try f.addKey(k.aes.privateKey, type: "aes", keyClass: "private") }
        expectError(.anyParam, naming: "keySizeInBits") {
            try f.addKey(k.rsa.publicKey, type: "rsa", keyClass: "public", extra: ["keySizeInBits": 3072])
        }
        expectError(.anyParam, naming: "effectiveKeySize") {
            try f.addKey(k.p384.publicKey, type: "ec", keyClass: "public", extra: ["effectiveKeySize": 256])
        }
        expectError(.anyParam, naming: "keyType") {
            _ = try f.keychain.add(
                ["class": "key", "keyClass": "public", "valueData": Self.b64(k.rsa.publicKey)], token: f.admin)
        }
        expectError(.anyParam, naming: "keyClass") {
            _ = try f.keychain.add(["class": "key", "keyType": "rsa", "valueData": Self.b64(k.rsa.publicKey)], token: f.admin)
        }
        expectError(.anyParam, naming: "valueData") {
            _ = try f.keychain.add(["class": "key", "keyType": "rsa", "keyClass": "public"], token: f.admin)
        }
        // Equal sizes are accepted.
        try f.addKey(k.rsa.publicKey, type: "rsa", keyClass: "public", extra: ["keySizeInBits": 2048, "effectiveKeySize": 2048])
        expectError(.itemNotFound) { _ = try f.keychain.search(["class": "key", "keyClass": "private"], token: f.admin) }
    }

    @Test func bytesThatAreNoKeyOfTheTypeAreUnknownFormatNamingValueData() throws {
        let f = try Fixture()
        let k = Keys.shared
        let garbage = Array("-----BEGIN RSA PRIVATE KEY-----".utf8)
        for (type, keyClass) in [
            ("rsa", "private"), ("rsa", "public"), ("ec", "public"), ("ec", "private"), ("ed25519", "public"),
            ("aes", "symmetric"),
        ] {
            expectError(.unknownFormat(""), naming: "valueData") { try f.addKey(garbage, type: type, keyClass: keyClass) }
        }
        expectError(.unknownFormat(""), naming: "valueData") {
            try f.addKey(Array(k.rsa.privateKey.dropLast()), type: "rsa", keyClass: "private")
        }
        // A point off the curve, and a private scalar that is not the point's.
        var offCurve = k.p256.publicKey
        offCurve[64] ^= 1
        expectError(.unknownFormat(""), naming: "valueData") { try f.addKey(offCurve, type: "ec", keyClass: "public") }
        var wrongScalar = k.p256.privateKey
        wrongScalar[90] ^= 1
        expectError(.unknownFormat(""), naming: "valueData") { try f.addKey(wrongScalar, type: "ec", keyClass: "private") }
        expectError(.unknownFormat(""), naming: "valueData") { try f.addKey([1, 2, 3], type: "aes", keyClass: "symmetric") }
        // The message never quotes the bytes.
        let error = expectError(.unknownFormat("")) { try f.addKey(garbage, type: "rsa", keyClass: "private") }
        #expect(error?.message.contains("BEGIN") == false)
        expectError(.itemNotFound) { _ = try f.keychain.search(["class": "key"], token: f.admin) }
    }

    @Test func theSameKeyTwiceIsADuplicateAndAnotherTagIsNot() throws {
        let f = try Fixture()
        let k = Keys.shared
        let first = try f.addKey(k.p256.privateKey, type: "ec", keyClass: "private")
        let error = expectError(.anyDuplicate) {
            try f.addKey(k.p256.privateKey, type: "ec", keyClass: "private", extra: ["label": "again"])
        }
        #expect(error?.persistentRef == first.persistentRef)
        try f.addKey(k.p256.privateKey, type: "ec", keyClass: "private", extra: ["applicationTag": Self.b64(Array("t".utf8))])
        try f.addKey(k.p256.publicKey, type: "ec", keyClass: "public")
        expectError(.anyDuplicate) { try f.addKey(k.p256.publicKey, type: "ec", keyClass: "public") }
        #expect(try f.keychain.search(["class": "key", "matchLimit": "all"], token: f.admin).count == 3)
    }

    /// Non-extractable keys: their bytes leave in no answer (add, search, update), the rest of
    /// the answer is as usual, and they never become extractable.
    @Test func aKeyThatIsNotExtractableNeverReturnsItsBytes() throws {
        let f = try Fixture()
        let k = Keys.shared
        let added = try f.addKey(
            k.rsa.privateKey, type: "rsa", keyClass: "private",
            extra: ["isExtractable": false, "returnData": true, "returnAttributes": true])
        #expect(added.json["valueData"] == nil)
        #expect(added.attributesJSON?["isExtractable"] == false)
        for query: JSONObject in [
            ["class": "key", "returnData": true],
            ["class": "key", "returnData": true, "returnAttributes": true, "matchLimit": "all"],
            ["class": "key", "returnData": true, "returnPersistentRef": true],
        ] {
            let found = try f.keychain.search(query, token: f.admin)
            #expect(found.count == 1)
            #expect(found[0].json["valueData"] == nil, "\(query)")
        }
        expectError(.anyParam, naming: "isExtractable") {
            try f.keychain.update(query: ["class": "key"], attributesToUpdate: ["isExtractable": true], token: f.admin)
        }
        let updated = try f.keychain.update(query: ["class": "key"], attributesToUpdate: ["label": "still"], token: f.admin)
        #expect(updated.first?.json["valueData"] == nil)
        // An extractable key beside it still answers its bytes.
        try f.addKey(k.rsa.publicKey, type: "rsa", keyClass: "public")
        let both = try f.keychain.search(["class": "key", "returnData": true, "matchLimit": "all"], token: f.admin)
        #expect(both.compactMap { $0.json["valueData"]?.stringValue.flatMap(Base64.decode) } == [k.rsa.publicKey])
    }

    @Test func updatingTheBytesChecksThemAndDerivesTheLabelAgain() throws {
        let f = try Fixture()
        let k = Keys.shared
        let ref = try f.addKey(k.p256.publicKey, type: "ec", keyClass: "public").persistentRef
        let query: JSONObject = ["valuePersistentRef": .string(ref)]
        expectError(.unknownFormat(""), naming: "valueData") {
            try f.keychain.update(query: query, attributesToUpdate: ["valueData": Self.b64([4, 1, 2])], token: f.admin)
        }
        expectError(.anyParam, naming: "keyClass") {
            try f.keychain.update(query: query, attributesToUpdate: ["keyClass": "private"], token: f.admin)
        }
        expectError(.anyParam, naming: "keySizeInBits") {
            try f.keychain.update(query: query, attributesToUpdate: ["keySizeInBits": 384], token: f.admin)
        }
        let updated = try f.keychain.update(
            query: query, attributesToUpdate: ["valueData": Self.b64(k.p384.publicKey)], token: f.admin)
        let attributes = try #require(updated.first?.attributesJSON)
        #expect(attributes["keySizeInBits"] == 384)
        #expect(attributes["applicationLabel"] == Self.b64(k.p384.publicKeyHash))
    }

    @Test func anotherGroupsKeyIsIndistinguishableFromAMissingOne() throws {
        let f = try Fixture()
        let k = Keys.shared
        let b = try f.token(["b"])
        let label = try #require(
            try f.addKey(k.rsa.privateKey, type: "rsa", keyClass: "private", group: "a").attributesJSON?["applicationLabel"])
        let hidden = expectError(.itemNotFound) {
            _ = try f.keychain.search(["class": "key", "applicationLabel": label], token: b)
        }
        let missing = expectError(.itemNotFound) {
            _ = try f.keychain.search(["class": "key", "applicationLabel": Self.b64([7])], token: b)
        }
        #expect(hidden?.message == missing?.message)
        expectError(.itemNotFound) { _ = try f.keychain.delete(["class": "key", "applicationLabel": label], token: b) }
        expectError(.itemNotFound) {
            try f.keychain.update(
                query: ["class": "key", "applicationLabel": label], attributesToUpdate: ["label": "x"], token: b)
        }
        // The same key in b's own group is no duplicate: the primary key includes the group.
        #expect(try f.addKey(k.rsa.privateKey, type: "rsa", keyClass: "private", token: b).attributesJSON?["accessGroup"] == "b")
    }

    @Test func lockedKeysFollowTheirProtectionClass() throws {
        let f = try Fixture()
        let k = Keys.shared
        try f.addKey(k.p256.privateKey, type: "ec", keyClass: "private")
        try f.addKey(k.p256.publicKey, type: "ec", keyClass: "public", extra: ["accessible": "always"])
        try f.keychain.lock()
        #expect(try f.keychain.search(["class": "key", "matchLimit": "all"], token: f.admin).count == 2)
        let pub = try f.keychain.search(["class": "key", "keyClass": "public", "returnData": true], token: f.admin)
        #expect(pub.first?.json["valueData"]?.stringValue.flatMap(Base64.decode) == k.p256.publicKey)
        expectError(.anyLocked, naming: "returnData") {
            _ = try f.keychain.search(["class": "key", "keyClass": "private", "returnData": true], token: f.admin)
        }
        expectError(.anyLocked, naming: "valueData") { try f.addKey(k.rsa.privateKey, type: "rsa", keyClass: "private") }
        try f.addKey(k.rsa.publicKey, type: "rsa", keyClass: "public", extra: ["accessible": "always"])
        try f.unlock()
        #expect(try f.keychain.search(["class": "key", "matchLimit": "all"], token: f.admin).count == 3)
    }

    @Test func theDataFilesHoldNoPrivateKeyByte() throws {
        let f = try Fixture()
        let k = Keys.shared
        let secrets = [k.rsa.privateKey, k.p256.privateKey, k.ed25519.privateKey, k.aes.privateKey]
        for (bytes, type, keyClass) in [
            (k.rsa.privateKey, "rsa", "private"), (k.p256.privateKey, "ec", "private"),
            (k.ed25519.privateKey, "ed25519", "private"),
            (k.aes.privateKey, "aes", "symmetric"),
        ] {
            try f.addKey(bytes, type: type, keyClass: keyClass)
        }
        f.keychain.close()
        for name in try FileManager.default.contentsOfDirectory(atPath: f.directory.path) {
            // The closing store's last connection may still be removing its -wal file: a file
            // gone between the listing and the read holds nothing any more.
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: f.directory.path + "/" + name)) else { continue }
            let file = [UInt8](data)
            for secret in secrets {
                // Any 16 bytes of the key (the EC private key's scalar is its last bytes).
                for needle in [Array(secret.suffix(16)), Array(secret.prefix(32).suffix(16))] {
                    #expect(!Self.contains(file, needle), "\(name) holds key bytes")
                }
                #expect(!Self.contains(file, Array(Base64.encode(secret.suffix(24)).utf8)), "\(name) holds key bytes as base64")
                let hex = secret.suffix(16).map { String(format: "%02x", $0) }.joined()
                #expect(!Self.contains(file, Array(hex.utf8)), "\(name) holds key bytes as hex")
            }
        }
        try f.restart()
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { i in haystack[i..<(i + needle.count)].elementsEqual(needle) }
    }
}

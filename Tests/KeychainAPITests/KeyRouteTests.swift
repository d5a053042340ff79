import ExtrasBase64
import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// Keys over HTTP: the statuses and bodies a client sees.
@Suite struct KeyRouteTests {
    static let keys: (tool: TestKeys, rsa: TestKeys.Made, ec: TestKeys.Made) = {
        let tool = TestKeys()
        do {
            return (tool, try tool.rsa("route-rsa"), try tool.ec("route-ec"))
        } catch {
            fatalError("openssl could not make the test keys: \(error)")
        }
    }()

    static func body(_ bytes: [UInt8], type: String, keyClass: String, extra: String = "") -> String {
        #"{"class":"kSecClassKey","kSecAttrKeyType":"\#(type)","kcls":"\#(keyClass)","valueData":"\#(Base64.encode(bytes))"\#(extra)}"#
    }

    @Test func addSearchAndDeleteAKey() throws {
        let f = try APIFixture()
        let added = try f.call("POST", "/v1/items", json: Self.body(Self.keys.rsa.privateKey, type: "42", keyClass: "1"))
        #expect(added.status == 201, "\(added.text)")
        let attributes = try #require(added.items.first?["attributes"]?.objectValue)
        #expect(attributes["class"] == "key")
        #expect(attributes["keyType"] == "rsa")
        #expect(attributes["keyClass"] == "private")
        #expect(attributes["keySizeInBits"] == 2048)
        #expect(attributes["applicationLabel"] == .string(Base64.encode(Self.keys.rsa.publicKeyHash)))
        #expect(added.items.first?["valueData"] == nil)
        let found = try f.call("POST", "/v1/items/search", json: #"{"class":"keys","keyClass":"private","returnData":true}"#)
        #expect(found.status == 200, "\(found.text)")
        #expect(found.items.first?["valueData"]?.stringValue.flatMap(Base64.decode) == Self.keys.rsa.privateKey)
        let deleted = try f.call("DELETE", "/v1/items", json: #"{"class":"key","keyType":"rsa"}"#)
        #expect(deleted.status == 200, "\(deleted.text)")
        try f.call("POST", "/v1/items/search", json: #"{"class":"key"}"#).expectError(404, -25300)
        try f.call("POST", "/v1/items/search", json: #"{"class":"identity"}"#).expectError(404, -25300)
    }

    @Test func aDuplicateKeyIs409() throws {
        let f = try APIFixture()
        let body = Self.body(Self.keys.ec.publicKey, type: "ec", keyClass: "public")
        #expect(try f.call("POST", "/v1/items", json: body).status == 201)
        try f.call("POST", "/v1/items", json: body).expectError(409, -25299)
    }

    @Test func mismatchesAre400NamingTheAttributeAndGarbageNamesValueData() throws {
        let f = try APIFixture()
        try f.call("POST", "/v1/items", json: Self.body(Self.keys.ec.privateKey, type: "ec", keyClass: "public"))
            .expectError(400, -50, naming: "keyClass")
        try f.call("POST", "/v1/items", json: Self.body(Self.keys.ec.publicKey, type: "rsa", keyClass: "public"))
            .expectError(400, -50, naming: "keyType")
        try f.call(
            "POST", "/v1/items", json: Self.body(Self.keys.ec.publicKey, type: "ec", keyClass: "public", extra: #","bsiz":384"#)
        )
        .expectError(400, -50, naming: "keySizeInBits")
        try f.call("POST", "/v1/items", json: Self.body(Array("hello".utf8), type: "rsa", keyClass: "private"))
            .expectError(400, -25257, naming: "valueData")
    }

    /// A non-extractable key's bytes are in no answer, and the private key's bytes reach no log
    /// line, as hex or base64, whatever the request did.
    @Test func nonExtractableKeysAnswerNoBytesAndNoKeyReachesTheLog() throws {
        let f = try APIFixture()
        let secret = Self.keys.ec.privateKey
        let added = try f.call(
            "POST", "/v1/items",
            json: Self.body(secret, type: "ec", keyClass: "private", extra: #","isExtractable":false,"returnData":true"#))
        #expect(added.status == 201, "\(added.text)")
        #expect(added.items.first?["valueData"] == nil)
        let found = try f.call("POST", "/v1/items/search", json: #"{"class":"key","returnData":true,"returnAttributes":true}"#)
        #expect(found.status == 200, "\(found.text)")
        #expect(found.items.first?["valueData"] == nil)
        #expect(found.items.first?["attributes"]?.objectValue?["isExtractable"] == false)
        #expect(!found.text.contains(Base64.encode(secret)))
        try f.call("PATCH", "/v1/items", json: #"{"query":{"class":"key"},"attributesToUpdate":{"isExtractable":true}}"#)
            .expectError(400, -50, naming: "isExtractable")
        // Failed adds too: a mismatch and a duplicate.
        _ = try f.call("POST", "/v1/items", json: Self.body(secret, type: "ec", keyClass: "public"))
        _ = try f.call(
            "POST", "/v1/items", json: Self.body(secret, type: "ec", keyClass: "private", extra: #","isExtractable":false"#))
        let lines = f.logs.all
        #expect(!lines.isEmpty)
        let scalar = Array(secret.suffix(32))
        let needles = [
            Base64.encode(secret), Base64.encode(scalar), String(Base64.encode(secret).prefix(40)),
            scalar.map { String(format: "%02x", $0) }.joined(), scalar.map { String(format: "%02X", $0) }.joined(),
        ]
        for line in lines {
            for needle in needles { #expect(!line.contains(needle), "a log line holds the private key: \(line.prefix(80))") }
        }
    }
}

import TestSupport
import Testing

@testable import KeychainCore

@Suite struct SearchTests {
    @Test func searchDefaultMatchLimitIsOne() throws {
        let f = try Fixture()
        for n in 0..<3 { try f.addGeneric(service: "db", account: "u\(n)") }
        #expect(try f.keychain.search(["service": "db"], token: f.admin).count == 1)
    }

    @Test func searchMatchLimitAllAndAnInteger() throws {
        let f = try Fixture()
        for n in 0..<5 { try f.addGeneric(service: "db", account: "u\(n)") }
        #expect(try f.keychain.search(["service": "db", "matchLimit": "all"], token: f.admin).count == 5)
        #expect(try f.keychain.search(["service": "db", "matchLimit": 3], token: f.admin).count == 3)
        #expect(try f.keychain.search(["service": "db", "kSecMatchLimit": "kSecMatchLimitAll"], token: f.admin).count == 5)
        expectError(.anyParam, naming: "matchLimit") { _ = try f.keychain.search(["matchLimit": 0], token: f.admin) }
        expectError(.anyParam, naming: "matchLimit") { _ = try f.keychain.search(["matchLimit": "many"], token: f.admin) }
    }

    @Test func searchWithNoMatchIsItemNotFound() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u")
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "other"], token: f.admin) }
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "db", "account": "x"], token: f.admin) }
    }

    @Test func searchMatchesEveryGivenAttributeExactly() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "alice", extra: ["label": "prod"])
        try f.addGeneric(service: "db", account: "bob", extra: ["label": "prod"])
        try f.addGeneric(service: "db", account: "carol", extra: ["label": "dev"])
        let prod = try f.keychain.search(["service": "db", "label": "prod", "matchLimit": "all"], token: f.admin)
        #expect(Set(prod.compactMap { $0.attributesJSON?["account"]?.stringValue }) == ["alice", "bob"])
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "DB"], token: f.admin) }
    }

    @Test func searchMatchCaseInsensitiveFoldsUnicode() throws {
        let f = try Fixture()
        try f.addGeneric(service: "Straße", account: "Émile")
        try f.addGeneric(service: "ΟΔΥΣΣΕΥΣ", account: "x")
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "STRASSE"], token: f.admin) }
        let folded = try f.keychain.search(
            ["service": "STRASSE", "account": "éMILE", "matchCaseInsensitive": true], token: f.admin)
        #expect(folded[0].attributesJSON?["service"] == "Straße")
        // Final sigma and a decomposed é (e + U+0301) fold to the same key.
        #expect(try f.keychain.search(["service": "οδυσσευς", "matchCaseInsensitive": true], token: f.admin).count == 1)
        #expect(try f.keychain.search(["service": "οδυσσευσ", "matchCaseInsensitive": true], token: f.admin).count == 1)
        #expect(
            try f.keychain.search(["account": "e\u{301}mile", "matchCaseInsensitive": true], token: f.admin).count == 1)
    }

    @Test func searchReturnKeysShapeEachResult() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u", secret: "pw")
        let none = try f.keychain.search(["service": "db"], token: f.admin)[0]
        #expect(none.json.keys == ["attributes", "persistentRef"])
        let data = try f.keychain.search(["service": "db", "returnData": true], token: f.admin)[0]
        #expect(data.json.keys == ["valueData"])
        #expect(data.secretString == "pw")
        let all = try f.keychain.search(
            ["service": "db", "returnData": true, "returnAttributes": true, "returnPersistentRef": true], token: f.admin)[0]
        #expect(Set(all.json.keys) == ["attributes", "valueData", "persistentRef"])
        #expect(all.attributesJSON?["class"] == "genericPassword")
        let attrs = try f.keychain.search(["service": "db", "returnAttributes": true], token: f.admin)[0]
        #expect(attrs.json.keys == ["attributes"])
    }

    @Test func searchMatchesOnlyNonSynchronizableItemsUnlessAny() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "local")
        try f.addGeneric(service: "db", account: "synced", extra: ["synchronizable": true])
        let plain = try f.keychain.search(["service": "db", "matchLimit": "all"], token: f.admin)
        #expect(plain.map { $0.attributesJSON?["account"] } == ["local"])
        let synced = try f.keychain.search(["service": "db", "synchronizable": true, "matchLimit": "all"], token: f.admin)
        #expect(synced.map { $0.attributesJSON?["account"] } == ["synced"])
        let any = try f.keychain.search(["service": "db", "synchronizable": "any", "matchLimit": "all"], token: f.admin)
        #expect(any.count == 2)
    }

    @Test func searchByPersistentRefFindsExactlyThatItem() throws {
        let f = try Fixture()
        let ref = try f.addGeneric(service: "db", account: "u")
        try f.addGeneric(service: "db", account: "v")
        let found = try f.keychain.search(["valuePersistentRef": .string(ref), "matchLimit": "all"], token: f.admin)
        #expect(found.map(\.persistentRef) == [ref])
    }

    @Test func valuePersistentRefWithAnotherAttributeIsParam() throws {
        let f = try Fixture()
        let ref = try f.addGeneric(service: "db", account: "u")
        expectError(.anyParam, naming: "valuePersistentRef") {
            _ = try f.keychain.search(["valuePersistentRef": .string(ref), "service": "db"], token: f.admin)
        }
    }

    @Test func searchWithoutAClassSpansEveryClassHavingTheAttributes() throws {
        let f = try Fixture()
        try f.addGeneric(service: "s", account: "shared")
        _ = try f.keychain.add(["class": "internetPassword", "server": "h", "account": "shared"], token: f.admin)
        #expect(try f.keychain.search(["account": "shared", "matchLimit": "all"], token: f.admin).count == 2)
        let inet = try f.keychain.search(["server": "h", "matchLimit": "all"], token: f.admin)
        #expect(inet.map { $0.attributesJSON?["class"] } == ["internetPassword"])
    }

    @Test func searchWithoutReturnKeysNeverCarriesTheSecret() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u", secret: "hunter2")
        let result = try f.keychain.search(["service": "db"], token: f.admin)[0]
        #expect(!String(decoding: JSON.object(result.json).serialized(), as: UTF8.self).contains("aHVudGVyMg"))
    }
}

@Suite struct PersistentRefTests {
    @Test func aPersistentRefFindsASynchronizableItemWithoutSynchronizableAny() throws {
        let f = try Fixture()
        let ref = try f.addGeneric(service: "db", account: "u", extra: ["synchronizable": true])
        #expect(try f.keychain.search(["valuePersistentRef": .string(ref)], token: f.admin).map(\.persistentRef) == [ref])
    }
}

/// A search answer is written straight from its parts: the bytes must be those of `json`.
@Suite struct ItemResultWritingTests {
    @Test(
        arguments: [
            [:], ["returnData": true], ["returnAttributes": true], ["returnPersistentRef": true],
            ["returnData": true, "returnPersistentRef": true], ["returnData": true, "returnAttributes": true],
            ["returnAttributes": true, "returnPersistentRef": true],
            ["returnData": true, "returnAttributes": true, "returnPersistentRef": true],
        ] as [JSONObject])
    func writtenBytesAreThoseOfTheJSONObject(returnKeys: JSONObject) throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "quote\"and\\slash", secret: "pässword")
        var query: JSONObject = ["service": "db"]
        for (key, value) in returnKeys { query[key] = value }
        let result = try #require(try f.keychain.search(query, token: f.admin).first)
        var written: [UInt8] = []
        result.write(into: &written)
        #expect(written == JSON.object(result.json).serialized())
        #expect((result.json["valueData"] != nil) == (returnKeys["returnData"] == true))
        #expect(String(decoding: written, as: UTF8.self).hasPrefix("{") && written.last == UInt8(ascii: "}"))
    }
}

import TestSupport
import Testing

@testable import KeychainCore

@Suite struct AddTests {
    @Test func addRequiresAClass() throws {
        let f = try Fixture()
        expectError(.anyParam, naming: "class") { _ = try f.keychain.add(["service": "db"], token: f.admin) }
    }

    @Test func addDefaultsTheGroupToTheTokensFirstGroup() throws {
        let f = try Fixture()
        let token = try f.token(["team-a", "team-b"])
        try f.addGeneric(service: "db", account: "u", token: token)
        let found = try f.keychain.search(["service": "db"], token: f.admin)
        #expect(found[0].attributesJSON?["accessGroup"] == "team-a")
    }

    @Test func addWithAStarTokenDefaultsToTheDefaultGroup() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u")
        let found = try f.keychain.search(["service": "db"], token: f.admin)
        #expect(found[0].attributesJSON?["accessGroup"] == .string(Keychain.defaultGroup))
    }

    @Test func addDefaultsAccessibleToWhenUnlocked() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u")
        let found = try f.keychain.search(["service": "db"], token: f.admin)
        #expect(found[0].attributesJSON?["accessible"] == "whenUnlocked")
        #expect(found[0].attributesJSON?["synchronizable"] == false)
    }

    @Test func addSetsCreationAndModificationDates() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u")
        let attributes = try #require(try f.keychain.search(["service": "db"], token: f.admin)[0].attributesJSON)
        let expected = JSON.string(RFC3339.format(milliseconds: f.clock.now()))
        #expect(attributes["creationDate"] == expected)
        #expect(attributes["modificationDate"] == expected)
        expectError(.anyParam, naming: "creationDate") {
            _ = try f.keychain.add(["class": "genericPassword", "creationDate": "2020-01-01T00:00:00Z"], token: f.admin)
        }
    }

    @Test(arguments: ["matchLimit", "matchCaseInsensitive", "valuePersistentRef", "deleteAll"])
    func addRefusesMatchKeys(key: String) throws {
        let f = try Fixture()
        let value: JSON = key == "matchLimit" ? "all" : (key == "valuePersistentRef" ? "AAAAAAAAAAAAAAAAAAAAAA" : true)
        expectError(.anyParam, naming: key) {
            _ = try f.keychain.add(["class": "genericPassword", "service": "x", key: value], token: f.admin)
        }
        #expect(throws: KeychainError.itemNotFound) { try f.keychain.search(["service": "x"], token: f.admin) }
    }

    @Test func addReturnKeysShapeTheResponseLikeASearch() throws {
        let f = try Fixture()
        let bare = try f.keychain.add(["class": "genericPassword", "service": "a", "valueData": "c2VjcmV0"], token: f.admin)
        #expect(bare.json.keys == ["attributes", "persistentRef"])
        #expect(bare.json["valueData"] == nil)
        let data = try f.keychain.add(
            ["class": "genericPassword", "service": "b", "valueData": "c2VjcmV0", "returnData": true], token: f.admin)
        #expect(data.json.keys == ["valueData"])
        #expect(data.secretString == "secret")
        let ref = try f.keychain.add(["class": "genericPassword", "service": "c", "returnPersistentRef": true], token: f.admin)
        #expect(ref.json.keys == ["persistentRef"])
        #expect(ref.json["persistentRef"] == .string(ref.persistentRef))
    }

    @Test func addOfTheSamePrimaryKeyIsADuplicateAndChangesNothing() throws {
        let f = try Fixture()
        let first = try f.addGeneric(service: "db", account: "u", secret: "one")
        let error = expectError(.anyDuplicate) { try f.addGeneric(service: "db", account: "u", secret: "two") }
        #expect(error?.persistentRef == first)
        let found = try f.keychain.search(["service": "db", "matchLimit": "all", "returnData": true], token: f.admin)
        #expect(found.count == 1)
        #expect(found[0].secretString == "one")
    }

    @Test func twoAddsWithNoAccountAndTheSameServiceCollide() throws {
        let f = try Fixture()
        _ = try f.keychain.add(["class": "genericPassword", "service": "db"], token: f.admin)
        expectError(.anyDuplicate) { _ = try f.keychain.add(["class": "genericPassword", "service": "db"], token: f.admin) }
        // An explicit empty account is the same primary key as an absent one.
        expectError(.anyDuplicate) {
            _ = try f.keychain.add(["class": "genericPassword", "service": "db", "account": ""], token: f.admin)
        }
    }

    @Test func samePrimaryKeyInAnotherGroupOrSyncStateIsNoDuplicate() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u", group: "a")
        try f.addGeneric(service: "db", account: "u", group: "b")
        try f.addGeneric(service: "db", account: "u", group: "a", extra: ["synchronizable": true])
        let all = try f.keychain.search(["service": "db", "matchLimit": "all", "synchronizable": "any"], token: f.admin)
        #expect(all.count == 3)
    }

    @Test func internetPasswordPrimaryKeyIncludesServerProtocolAndPort() throws {
        let f = try Fixture()
        let base: JSONObject = [
            "class": "internetPassword", "account": "u", "server": "example.com", "protocol": "https", "port": 443,
        ]
        _ = try f.keychain.add(base, token: f.admin)
        var other = base
        other["port"] = 8443
        _ = try f.keychain.add(other, token: f.admin)
        expectError(.anyDuplicate) { _ = try f.keychain.add(base, token: f.admin) }
        let found = try f.keychain.search(["server": "example.com", "matchLimit": "all"], token: f.admin)
        #expect(found.count == 2)
        #expect(found[0].attributesJSON?["protocol"] == "https")
        #expect(found[0].attributesJSON?["authenticationType"] == "")
        #expect(found[0].attributesJSON?["path"] == "")
    }

    @Test func aSecretOverTheLimitIsDataTooLarge() throws {
        let f = try Fixture()
        let big = Base64.encode([UInt8](repeating: 0x41, count: 64 * 1024 + 1))
        expectError(.anyTooLarge, naming: "valueData") {
            _ = try f.keychain.add(["class": "genericPassword", "service": "big", "valueData": .string(big)], token: f.admin)
        }
        let fits = Base64.encode([UInt8](repeating: 0x41, count: 64 * 1024))
        _ = try f.keychain.add(["class": "genericPassword", "service": "fits", "valueData": .string(fits)], token: f.admin)
    }

    @Test func synchronizableItemsCannotBeThisDeviceOnly() throws {
        let f = try Fixture()
        expectError(.anyParam, naming: "accessible") {
            try f.addGeneric(
                service: "s", account: "a", accessible: "whenUnlockedThisDeviceOnly", extra: ["synchronizable": true])
        }
    }
}

import TestSupport
import Testing

@testable import KeychainCore

@Suite struct UpdateTests {
    @Test func updateChangesEveryMatch() throws {
        let f = try Fixture()
        for n in 0..<3 { try f.addGeneric(service: "db", account: "u\(n)") }
        try f.addGeneric(service: "other", account: "u")
        let updated = try f.keychain.update(query: ["service": "db"], attributesToUpdate: ["label": "rotated"], token: f.admin)
        #expect(updated.count == 3)
        #expect(try f.keychain.search(["label": "rotated", "matchLimit": "all"], token: f.admin).count == 3)
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "other", "label": "rotated"], token: f.admin) }
    }

    @Test func updateSetsModificationDateAndVersion() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u")
        f.clock.advance(seconds: 60)
        let updated = try f.keychain.update(query: ["service": "db"], attributesToUpdate: ["label": "x"], token: f.admin)
        #expect(updated[0].version == 2)
        let attributes = try #require(try f.keychain.search(["service": "db"], token: f.admin)[0].attributesJSON)
        #expect(attributes["modificationDate"] == .string(RFC3339.format(milliseconds: f.clock.now())))
        #expect(attributes["creationDate"] != attributes["modificationDate"])
    }

    @Test func updateOfTheSecretKeepsTheAttributes() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u", secret: "old", extra: ["label": "keep"])
        try f.keychain.update(query: ["service": "db"], attributesToUpdate: ["valueData": "bmV3"], token: f.admin)
        let found = try f.keychain.search(["service": "db", "returnData": true, "returnAttributes": true], token: f.admin)[0]
        #expect(found.secretString == "new")
        #expect(found.attributesJSON?["label"] == "keep")
    }

    @Test func updateWithNoMatchIsItemNotFound() throws {
        let f = try Fixture()
        expectError(.itemNotFound) {
            try f.keychain.update(query: ["service": "none"], attributesToUpdate: ["label": "x"], token: f.admin)
        }
    }

    @Test(arguments: ["matchLimit", "matchCaseInsensitive", "returnData", "returnAttributes", "returnPersistentRef"])
    func updateQueryWithMatchOrReturnKeysIsParam(key: String) throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u")
        // matchLimit "all" is what an update does anyway, and taken (AppleBehaviourTests).
        let value: JSON = key == "matchLimit" ? "one" : true
        expectError(.anyParam, naming: key) {
            try f.keychain.update(query: ["service": "db", key: value], attributesToUpdate: ["label": "x"], token: f.admin)
        }
    }

    @Test func attributesToUpdateTakeOnlyAttributesAndValueData() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u")
        expectError(.anyParam, naming: "class") {
            try f.keychain.update(query: ["service": "db"], attributesToUpdate: ["class": "internetPassword"], token: f.admin)
        }
        expectError(.anyParam, naming: "matchLimit") {
            try f.keychain.update(query: ["service": "db"], attributesToUpdate: ["matchLimit": "all"], token: f.admin)
        }
        expectError(.anyNoSuchAttr, naming: "server") {
            try f.keychain.update(query: ["service": "db"], attributesToUpdate: ["server": "h"], token: f.admin)
        }
        expectError(.anyParam, naming: "attributesToUpdate") {
            try f.keychain.update(query: ["service": "db"], attributesToUpdate: [:], token: f.admin)
        }
    }

    @Test func updateMovingToAGroupTheTokenLacksIsMissingEntitlement() throws {
        let f = try Fixture()
        let token = try f.token(["a"])
        try f.addGeneric(service: "db", account: "u", token: token)
        expectError(.anyMissingEntitlement, naming: "accessGroup") {
            try f.keychain.update(query: ["service": "db"], attributesToUpdate: ["accessGroup": "b"], token: token)
        }
    }

    @Test func updateMovingGroupsKeepsTheSecretReadable() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u", secret: "pw", group: "a")
        try f.keychain.update(query: ["service": "db"], attributesToUpdate: ["accessGroup": "b"], token: f.admin)
        let found = try f.keychain.search(["service": "db", "accessGroup": "b", "returnData": true], token: f.admin)
        #expect(found[0].secretString == "pw")
    }

    @Test func updateIntoAnExistingPrimaryKeyIsADuplicateAndChangesNothing() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "alice")
        try f.addGeneric(service: "db", account: "bob", extra: ["label": "b"])
        expectError(.anyDuplicate) {
            try f.keychain.update(
                query: ["account": "bob"], attributesToUpdate: ["account": "alice", "label": "changed"], token: f.admin)
        }
        let bob = try f.keychain.search(["account": "bob"], token: f.admin)
        #expect(bob[0].attributesJSON?["label"] == "b")
        #expect(bob[0].version == 1)
    }

    @Test func updateMakingTwoMatchesCollideChangesNothing() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "alice")
        try f.addGeneric(service: "db", account: "bob")
        expectError(.anyDuplicate) {
            try f.keychain.update(query: ["service": "db"], attributesToUpdate: ["account": "same"], token: f.admin)
        }
        let accounts = try f.keychain.search(["service": "db", "matchLimit": "all"], token: f.admin).compactMap {
            $0.attributesJSON?["account"]?.stringValue
        }
        #expect(Set(accounts) == ["alice", "bob"])
    }

    @Test func updateWithAnExpectedVersionChecksIt() throws {
        let f = try Fixture()
        let ref = try f.addGeneric(service: "db", account: "u")
        expectError(.anyPrecondition, naming: "expectedVersion") {
            try f.keychain.update(
                query: ["valuePersistentRef": .string(ref)], attributesToUpdate: ["label": "x"], token: f.admin,
                expectedVersion: 7)
        }
        let updated = try f.keychain.update(
            query: ["valuePersistentRef": .string(ref)], attributesToUpdate: ["label": "x"], token: f.admin, expectedVersion: 1)
        #expect(updated[0].version == 2)
    }
}

@Suite struct DeleteTests {
    @Test func deleteRemovesEveryMatch() throws {
        let f = try Fixture()
        for n in 0..<3 { try f.addGeneric(service: "db", account: "u\(n)") }
        try f.addGeneric(service: "keep", account: "u")
        #expect(try f.keychain.delete(["service": "db"], token: f.admin) == 3)
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "db"], token: f.admin) }
        #expect(try f.keychain.search(["service": "keep"], token: f.admin).count == 1)
    }

    @Test func deleteWithNoMatchIsItemNotFound() throws {
        let f = try Fixture()
        expectError(.itemNotFound) { _ = try f.keychain.delete(["service": "none"], token: f.admin) }
    }

    @Test func deleteNamingNoAttributeNeedsDeleteAll() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u")
        expectError(.anyParam, naming: "deleteAll") { _ = try f.keychain.delete([:], token: f.admin) }
        expectError(.anyParam, naming: "deleteAll") { _ = try f.keychain.delete(["class": "genericPassword"], token: f.admin) }
        #expect(try f.keychain.search(["service": "db"], token: f.admin).count == 1)
        #expect(try f.keychain.delete(["class": "genericPassword", "deleteAll": true], token: f.admin) == 1)
    }

    /// Return keys are ignored in a delete, and matchLimit "all" taken (AppleBehaviourTests).
    @Test(arguments: ["matchLimit", "matchCaseInsensitive", "valueData"])
    func deleteWithMatchOrValueKeysIsParam(key: String) throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u")
        let value: JSON = key == "matchLimit" ? 1 : (key == "valueData" ? "eA==" : true)
        expectError(.anyParam, naming: key) { _ = try f.keychain.delete(["service": "db", key: value], token: f.admin) }
        #expect(try f.keychain.search(["service": "db"], token: f.admin).count == 1)
    }

    @Test func deleteWithAnExpectedVersionChecksIt() throws {
        let f = try Fixture()
        let ref = try f.addGeneric(service: "db", account: "u")
        expectError(.anyPrecondition) {
            _ = try f.keychain.delete(["valuePersistentRef": .string(ref)], token: f.admin, expectedVersion: 2)
        }
        #expect(try f.keychain.delete(["valuePersistentRef": .string(ref)], token: f.admin, expectedVersion: 1) == 1)
    }
}

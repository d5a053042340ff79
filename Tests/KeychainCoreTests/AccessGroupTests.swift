import TestSupport
import Testing

@testable import KeychainCore

@Suite struct AccessGroupTests {
    @Test func anItemInAnotherGroupIsIndistinguishableFromAMissingOne() throws {
        let f = try Fixture()
        let a = try f.token(["a"])
        let ref = try f.addGeneric(service: "db", account: "u", group: "b")
        let hidden = expectError(.itemNotFound) { _ = try f.keychain.search(["service": "db"], token: a) }
        let missing = expectError(.itemNotFound) { _ = try f.keychain.search(["service": "nothing-here"], token: a) }
        #expect(hidden?.message == missing?.message)
        #expect(hidden?.persistentRef == missing?.persistentRef)
        expectError(.itemNotFound) { _ = try f.keychain.search(["valuePersistentRef": .string(ref)], token: a) }
        expectError(.itemNotFound) {
            try f.keychain.update(query: ["valuePersistentRef": .string(ref)], attributesToUpdate: ["label": "x"], token: a)
        }
        expectError(.itemNotFound) { _ = try f.keychain.delete(["service": "db"], token: a) }
        #expect(try f.keychain.search(["service": "db"], token: f.admin).count == 1)
    }

    @Test func searchesAndDeletesWithoutAGroupSpanOnlyTheTokensGroups() throws {
        let f = try Fixture()
        let ab = try f.token(["a", "b"])
        try f.addGeneric(service: "db", account: "1", group: "a")
        try f.addGeneric(service: "db", account: "2", group: "b")
        try f.addGeneric(service: "db", account: "3", group: "c")
        #expect(try f.keychain.search(["service": "db", "matchLimit": "all"], token: ab).count == 2)
        #expect(try f.keychain.countItems(token: ab) == 2)
        #expect(try f.keychain.delete(["service": "db"], token: ab) == 2)
        #expect(try f.keychain.search(["service": "db", "matchLimit": "all"], token: f.admin).count == 1)
    }

    @Test func namingAGroupTheTokenLacksIsMissingEntitlement() throws {
        let f = try Fixture()
        let a = try f.token(["a"])
        expectError(.anyMissingEntitlement, naming: "accessGroup") {
            try f.addGeneric(service: "s", account: "u", group: "b", token: a)
        }
        expectError(.anyMissingEntitlement, naming: "accessGroup") { _ = try f.keychain.search(["accessGroup": "b"], token: a) }
        expectError(.anyMissingEntitlement, naming: "accessGroup") { _ = try f.keychain.delete(["accessGroup": "b"], token: a) }
    }

    @Test func capabilitiesLimitOperations() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u", secret: "pw")
        let list = try f.token(["*"], [.list])
        #expect(try f.keychain.search(["service": "db"], token: list).count == 1)
        expectError(.anyMissingEntitlement, naming: "returnData") {
            _ = try f.keychain.search(["service": "db", "returnData": true], token: list)
        }
        expectError(.anyMissingEntitlement, naming: "write") { try f.addGeneric(service: "x", account: "y", token: list) }
        expectError(.anyMissingEntitlement, naming: "delete") { _ = try f.keychain.delete(["service": "db"], token: list) }
        let writer = try f.token(["*"], [.write])
        expectError(.anyMissingEntitlement, naming: "read") { _ = try f.keychain.search(["service": "db"], token: writer) }
        expectError(.anyMissingEntitlement, naming: "admin") {
            _ = try f.keychain.createToken(name: "n", accessGroups: ["a"], capabilities: [.read], expiresAt: nil, caller: writer)
        }
    }

    /// Pairs of group names that Swift's `String ==` calls equal (canonical equivalence) but whose
    /// bytes differ: each is a group of its own, as the store's digests of their bytes are.
    static let equivalentNames: [(String, String)] = [
        ("\u{212A}ube", "Kube"),  // KELVIN SIGN
        ("cafe\u{301}", "caf\u{E9}"),  // NFD against NFC
        ("\u{212B}", "\u{C5}"),  // ANGSTROM SIGN
    ]

    @Test(arguments: equivalentNames)
    func aGroupEquivalentToAnotherIsStillAnotherGroup(held: String, other: String) throws {
        #expect(held == other, "Swift calls the two names equal")
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u", secret: "theirs", group: other)
        let token = try f.token([held], [.read, .write, .delete])
        #expect(!token.grants(group: other))
        #expect(!token.covers(groups: [other]))
        expectError(.anyMissingEntitlement, naming: "accessGroup") {
            _ = try f.keychain.search(["accessGroup": .string(other), "returnData": true], token: token)
        }
        expectError(.anyMissingEntitlement, naming: "accessGroup") {
            try f.addGeneric(service: "new", account: "u", group: other, token: token)
        }
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "db", "returnData": true], token: token) }
        expectError(.itemNotFound) { _ = try f.keychain.delete(["service": "db"], token: token) }
        #expect(try f.keychain.search(["service": "db", "matchLimit": "all"], token: f.admin).count == 1)
    }
}

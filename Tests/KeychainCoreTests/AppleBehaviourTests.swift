import KeychainCrypto
import TestSupport
import Testing

@testable import KeychainCore

/// Behaviours Apple's own regression tests assert (docs/semantics.md §1 and §3): the keys that
/// update and delete accept the way securityd does, and an empty passphrase that is simply wrong.
@Suite struct AppleBehaviourTests {
    /// `si-43-persistent.c`: SecItemDelete of a query carrying kSecReturnAttributes deletes.
    @Test func aDeleteIgnoresReturnKeys() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u")
        let deleted = try f.keychain.delete(
            ["service": "db", "returnAttributes": true, "returnData": true, "returnPersistentRef": true], token: f.admin)
        #expect(deleted == 1)
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "db"], token: f.admin) }
    }

    /// `kc-18-find-combined.c`, `kc-20-item-add-stress.c`: matchLimit all in an update or a delete.
    @Test func updateAndDeleteTakeMatchLimitAllAndOnlyThat() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "a")
        try f.addGeneric(service: "db", account: "b")
        let updated = try f.keychain.update(
            query: ["service": "db", "matchLimit": "kSecMatchLimitAll"], attributesToUpdate: ["label": "L"], token: f.admin)
        #expect(updated.count == 2)
        for limit: JSON in ["one", 1] {
            expectError(.anyParam, naming: "matchLimit") {
                try f.keychain.update(
                    query: ["service": "db", "matchLimit": limit], attributesToUpdate: ["label": "M"], token: f.admin)
            }
            expectError(.anyParam, naming: "matchLimit") {
                _ = try f.keychain.delete(["service": "db", "matchLimit": limit], token: f.admin)
            }
        }
        expectError(.anyParam, naming: "matchLimit") {
            _ = try f.keychain.add(["class": "genericPassword", "service": "x", "matchLimit": "all"], token: f.admin)
        }
        #expect(try f.keychain.delete(["service": "db", "matchLimit": "all"], token: f.admin) == 2)
    }

    /// `SecItemTests.m` testMoveGenericPassword: valueData in an update's query is accepted and
    /// matches nothing; in a search or a delete it is still refused.
    @Test func valueDataInAnUpdatesQueryIsNotMatchedOn() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u", secret: "first")
        let other = Base64.encode(Array("not-the-secret".utf8))
        let updated = try f.keychain.update(
            query: ["class": "genericPassword", "service": "db", "valueData": .string(other)],
            attributesToUpdate: ["account": "moved"], token: f.admin)
        #expect(updated.count == 1)
        let moved = try f.keychain.search(["account": "moved", "returnData": true], token: f.admin)
        #expect(moved.first?.secretString == "first", "the query's valueData changed nothing")
        expectError(.anyParam, naming: "valueData") {
            _ = try f.keychain.search(["service": "db", "valueData": .string(other)], token: f.admin)
        }
        expectError(.anyParam, naming: "valueData") {
            _ = try f.keychain.delete(["service": "db", "valueData": .string(other)], token: f.admin)
        }
    }

    /// `kc-02-unlock-noui.c`, `kc-45-change-password.c`: an empty passphrase is a wrong one,
    /// errSecAuthFailed, and counts toward the throttle like any other.
    @Test func anEmptyPassphraseIsAWrongOneAndCounts() throws {
        let f = try Fixture()
        try f.keychain.lock()
        for _ in 0...UnlockThrottle.freeFailures { expectError(.anyAuthFailed, naming: "passphrase") { try f.unlock("") } }
        #expect(expectError(.anyAuthFailed) { try f.unlock() }?.retryAfter == 60)
        f.clock.advance(seconds: 60)
        try f.unlock()
        expectError(.anyAuthFailed, naming: "old") {
            try f.keychain.changePassphrase(old: SecureBytes(utf8: ""), new: SecureBytes(utf8: "next"))
        }
        expectError(.anyParam, naming: "new") {
            try f.keychain.changePassphrase(old: SecureBytes(utf8: testPassphrase), new: SecureBytes(utf8: ""))
        }
    }

    /// `si-10-find-internet.c`: a result's attributes, dates included, fed back as a query find
    /// the item; the dates match exactly and stay read-only in an add and in attributesToUpdate.
    @Test func aResultsAttributesFedBackAsAQueryFindTheItem() throws {
        let f = try Fixture()
        _ = try f.keychain.add(
            [
                "class": "internetPassword", "server": "members.spamcop.net", "account": "smith", "protocol": "http",
                "authenticationType": "default", "port": 80, "path": "/", "valueData": "c2VjcmV0",
            ], token: f.admin)
        f.clock.advance(seconds: 5)
        try f.addGeneric(service: "other", account: "x")
        let found = try #require(try f.keychain.search(["server": "members.spamcop.net"], token: f.admin).first?.attributesJSON)
        var again = found
        again["returnData"] = true
        let refound = try f.keychain.search(again, token: f.admin)
        #expect(refound.count == 1)
        #expect(refound.first?.secretString == "secret")
        for key in ["creationDate", "modificationDate"] {
            expectError(.itemNotFound) {
                _ = try f.keychain.search([.init(key): "2020-01-01T00:00:00.000Z", "class": "internetPassword"], token: f.admin)
            }
            let byDate = try f.keychain.search([.init(key): found[key]!, "matchLimit": "all"], token: f.admin)
            #expect(byDate.map(\.persistentRef) == refound.map(\.persistentRef), "\(key) matches exactly")
            expectError(.anyParam, naming: key) {
                try f.keychain.update(
                    query: ["server": "members.spamcop.net"], attributesToUpdate: [.init(key): found[key]!], token: f.admin)
            }
        }
    }

    /// `si-10-find-internet.c` writes `kSecAttrAuthenticationTypeDefault` as its raw value `dflt`:
    /// every enumerated value is taken as its name, its constant and its raw value.
    @Test func enumeratedValuesTakeApplesRawValues() throws {
        let f = try Fixture()
        let added = try f.keychain.add(
            [
                "class": "inet", "server": "h", "account": "a", "protocol": "htps", "authenticationType": "dflt",
                "accessible": "ck",
            ], token: f.admin)
        let attributes = try #require(added.attributesJSON)
        #expect(attributes["protocol"] == "https" && attributes["authenticationType"] == "default")
        #expect(attributes["accessible"] == "afterFirstUnlock")
        let spellings: [(JSON, JSON)] = [
            ("https", "default"), ("kSecAttrProtocolHTTPS", "kSecAttrAuthenticationTypeDefault"), ("htps", "dflt"),
        ]
        for (p, a) in spellings {
            #expect(try f.keychain.search(["server": "h", "protocol": p, "authenticationType": a], token: f.admin).count == 1)
        }
        expectError(.anyDuplicate) {
            _ = try f.keychain.add(
                ["class": "inet", "server": "h", "account": "a", "protocol": "https", "authenticationType": "default"],
                token: f.admin)
        }
        expectError(.anyParam, naming: "authenticationType") {
            _ = try f.keychain.search(["server": "h", "authenticationType": "neither"], token: f.admin)
        }
    }

    /// `si-12-item-stress.c` passes CFNumbers 0 and 4 as protocol and authenticationType: a
    /// FourCharCode as an integer. A known code reads back as its name, any other as the integer,
    /// and each spelling matches the others.
    @Test func protocolAndAuthenticationTypeTakeFourCharCodesAsNumbers() throws {
        let f = try Fixture()
        let numeric = try f.keychain.add(
            ["class": "inet", "server": "n", "account": "a", "protocol": 0, "authenticationType": 4], token: f.admin)
        #expect(numeric.attributesJSON?["protocol"] == .int(0) && numeric.attributesJSON?["authenticationType"] == .int(4))
        #expect(try f.keychain.search(["server": "n", "protocol": 0, "authenticationType": 4], token: f.admin).count == 1)
        let http = Int64(0x6874_7470)  // 'http'
        let known = try f.keychain.add(["class": "inet", "server": "k", "protocol": .int(http)], token: f.admin)
        #expect(known.attributesJSON?["protocol"] == "http")
        #expect(try f.keychain.search(["server": "k", "protocol": "http"], token: f.admin).count == 1)
        let abcd = Int64(0x6162_6364)  // 'abcd', no protocol's code
        _ = try f.keychain.add(["class": "inet", "server": "u", "protocol": .int(abcd)], token: f.admin)
        #expect(
            try f.keychain.search(["server": "u", "protocol": "abcd", "returnAttributes": true], token: f.admin)
                .first?.attributesJSON?["protocol"] == .int(abcd))
        expectError(.anyParam, naming: "protocol") { _ = try f.keychain.search(["protocol": -1], token: f.admin) }
    }

    /// `KeychainAPITests.m` testSecItemCopyMatchingHostorSubdomain: internet passwords whose
    /// server is the host or ends with "." + host; the key is refused for any other class.
    @Test func matchHostOrSubdomainOfHostFindsTheHostAndItsSubdomainsOnly() throws {
        let f = try Fixture()
        for server in ["example.com", "www.example.com", "mail.corp.example.com", "wwwexample.com", "example.com.evil.net"] {
            _ = try f.keychain.add(["class": "internetPassword", "server": .string(server), "account": "a"], token: f.admin)
        }
        try f.addGeneric(service: "example.com", account: "a")
        func servers(_ host: String, _ extra: JSONObject = [:]) throws -> [String] {
            var query: JSONObject = ["kSecMatchHostOrSubdomainOfHost": .string(host), "matchLimit": "all"]
            for (key, value) in extra { query[key] = value }
            return try f.keychain.search(query, token: f.admin).compactMap { $0.attributesJSON?["server"]?.stringValue }.sorted()
        }
        #expect(try servers("example.com") == ["example.com", "mail.corp.example.com", "www.example.com"])
        #expect(try servers("corp.example.com", ["class": "inet"]) == ["mail.corp.example.com"])
        #expect(try servers("com") == ["example.com", "mail.corp.example.com", "www.example.com", "wwwexample.com"])
        expectError(.itemNotFound) { _ = try servers("ample.com") }
        expectError(.anyParam, naming: "matchHostOrSubdomainOfHost") {
            _ = try f.keychain.search(["class": "genericPassword", "matchHostOrSubdomainOfHost": "example.com"], token: f.admin)
        }
        expectError(.anyParam, naming: "matchHostOrSubdomainOfHost") {
            _ = try f.keychain.delete(["server": "example.com", "matchHostOrSubdomainOfHost": "example.com"], token: f.admin)
        }
        // A moved server moves its digests.
        try f.keychain.update(
            query: ["server": "www.example.com"], attributesToUpdate: ["server": "www.example.org"], token: f.admin)
        #expect(try servers("example.org") == ["www.example.org"])
        #expect(try servers("example.com") == ["example.com", "mail.corp.example.com"])
    }
}

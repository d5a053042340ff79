import KeychainBarrier
import KeychainStorage
import TestSupport
import Testing

@testable import KeychainCore

/// A query that pins a whole primary key (its class, every primary-key attribute, its
/// synchronizable state, and a token with named groups) is answered through the unique
/// primary-key index, one digest per group, instead of through lookup digests. Its answers must
/// be exactly those of the lookup path.
@Suite struct PrimaryKeySearchTests {
    private func selection(_ f: Fixture, _ object: JSONObject, _ token: AccessToken) throws -> ItemSelection {
        try f.keychain.filter(for: QueryParser.parse(object, lenient: true), token: token, barrier: f.keychain.barrier())
    }

    private func filter(_ f: Fixture, _ object: JSONObject, _ token: AccessToken) throws -> ItemFilter {
        try selection(f, object, token).filter
    }

    @Test func aPinnedPrimaryKeyGoesThroughTheKeyIndexAndOtherwiseThroughLookups() throws {
        let f = try Fixture()
        let ab = try f.token(["a", "b"])
        let keyed = try filter(f, ["service": "db", "account": "u"], ab)
        #expect(keyed.primaryKeys?.count == 2)
        #expect(keyed.lookups.isEmpty)
        #expect(keyed.groups == nil)
        #expect(try selection(f, ["service": "db", "account": "u"], ab).exact.isEmpty, "the key's digest is exact")
        // A non-key attribute still needs its lookup beside the key, and its exact value.
        let labelled = try selection(f, ["service": "db", "account": "u", "label": "L"], ab)
        #expect(labelled.filter.lookups.count == 1)
        #expect(labelled.exact.values.map { "\($0.key.name)=\($0.value)" } == ["label=L"])
        // Not pinned: a missing key attribute, case-insensitive matching, "any" synchronizable,
        // or a token of every group.
        #expect(try filter(f, ["service": "db"], ab).primaryKeys == nil)
        #expect(try filter(f, ["service": "db", "account": "u", "matchCaseInsensitive": true], ab).primaryKeys == nil)
        #expect(try filter(f, ["service": "db", "account": "u", "synchronizable": "any"], ab).primaryKeys == nil)
        #expect(try filter(f, ["service": "db", "account": "u"], f.admin).primaryKeys == nil)
    }

    @Test func findsTheItemInEachOfTheTokensGroupsAndNoOther() throws {
        let f = try Fixture()
        let ab = try f.token(["a", "b"])
        let inB = try f.addGeneric(service: "db", account: "u", secret: "b-secret", group: "b")
        try f.addGeneric(service: "db", account: "u", secret: "c-secret", group: "c")
        let first = try f.keychain.search(["service": "db", "account": "u", "returnData": true], token: ab)
        #expect(first.map(\.persistentRef) == [inB])
        #expect(first.first?.json["valueData"] == .string(Base64.encode(Array("b-secret".utf8))))
        let inA = try f.addGeneric(service: "db", account: "u", group: "a")
        let all = try f.keychain.search(["service": "db", "account": "u", "matchLimit": "all"], token: ab)
        #expect(all.map(\.persistentRef) == [inB, inA], "insertion order")
        let c = try f.token(["c"])
        #expect(
            try f.keychain.search(["service": "db", "account": "u", "accessGroup": "a"], token: ab).map(\.persistentRef) == [inA])
        #expect(try f.keychain.search(["service": "db", "account": "u"], token: c).count == 1)
    }

    @Test func matchesExactlyAndHonoursTheOtherConditions() throws {
        let f = try Fixture()
        let a = try f.token(["a"])
        try f.addGeneric(service: "db", account: "u", group: "a", extra: ["label": "L"])
        try f.addGeneric(service: "db", account: "", group: "a")
        try f.addGeneric(service: "sync", account: "u", group: "a", extra: ["synchronizable": true])
        #expect(try f.keychain.search(["service": "db", "account": "u", "label": "L"], token: a).count == 1)
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "db", "account": "u", "label": "M"], token: a) }
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "DB", "account": "u"], token: a) }
        #expect(try f.keychain.search(["service": "DB", "account": "U", "matchCaseInsensitive": true], token: a).count == 1)
        // The empty default of a missing key attribute is part of the key.
        #expect(try f.keychain.search(["service": "db", "account": ""], token: a).count == 1)
        expectError(.itemNotFound) {
            _ = try f.keychain.search(["service": "db", "account": "u", "accessible": "whenUnlockedThisDeviceOnly"], token: a)
        }
        #expect(try f.keychain.search(["service": "db", "account": "u", "accessible": "whenUnlocked"], token: a).count == 1)
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "sync", "account": "u"], token: a) }
        #expect(try f.keychain.search(["service": "sync", "account": "u", "synchronizable": true], token: a).count == 1)
    }

    @Test func internetPasswordsNeedEveryKeyAttributeGivenInAnyAcceptedForm() throws {
        let f = try Fixture()
        let a = try f.token(["a"])
        _ = try f.keychain.add(
            [
                "class": "internetPassword", "server": "example.com", "account": "u", "port": 443, "protocol": "https",
                "authenticationType": "default", "accessGroup": "a",
            ], token: f.admin)
        let pinned: JSONObject = [
            "class": "inet", "server": "example.com", "account": "u", "port": "443", "protocol": "kSecAttrProtocolHTTPS",
            "securityDomain": "", "authenticationType": "default", "path": "",
        ]
        #expect(try filter(f, pinned, a).primaryKeys?.count == 1)
        #expect(try f.keychain.search(pinned, token: a, lenient: true).count == 1)
        #expect(try f.keychain.search(pinned, token: f.admin, lenient: true).count == 1, "the lookup path agrees")
        var otherPort = pinned
        otherPort["port"] = "8443"
        expectError(.itemNotFound) { _ = try f.keychain.search(otherPort, token: a, lenient: true) }
    }

    @Test func updatesAndDeletesThroughTheKeyStayInTheTokensGroups() throws {
        let f = try Fixture()
        let a = try f.token(["a"])
        try f.addGeneric(service: "db", account: "u", group: "a")
        try f.addGeneric(service: "db", account: "u", group: "b")
        try f.keychain.update(query: ["service": "db", "account": "u"], attributesToUpdate: ["label": "new"], token: a)
        #expect(try f.keychain.search(["label": "new", "matchLimit": "all"], token: f.admin).count == 1)
        #expect(try f.keychain.delete(["service": "db", "account": "u"], token: a) == 1)
        #expect(try f.keychain.search(["service": "db", "account": "u", "accessGroup": "b"], token: f.admin).count == 1)
    }
}

import Foundation
import KeychainCrypto
import TestSupport
import Testing

@testable import KeychainCore

/// Token administration is scoped as its holder: an admin of some groups administers only the
/// tokens within them and grants nothing it lacks.
@Suite struct TokenScopeTests {
    /// An admin of `team` and the tokens around it: one in `team`, one in `other`, and the `*` admin.
    struct Scene {
        let f: APIFixture
        let scoped: [(String, String)]
        let teamID: String
        let otherID: String
        let starID: String

        init() throws {
            f = try APIFixture()
            let admin = try f.call(
                "POST", "/v1/tokens",
                json: #"{"name":"team-admin","accessGroups":["team"],"capabilities":["admin","read","write"]}"#)
            scoped = [("Authorization", "Bearer \(try #require(admin.json["token"]?.stringValue))")]
            teamID = try #require(
                f.call("POST", "/v1/tokens", json: #"{"name":"team-app","accessGroups":["team"],"capabilities":["read"]}"#).json[
                    "id"]?.stringValue)
            otherID = try #require(
                f.call(
                    "POST", "/v1/tokens", json: #"{"name":"other-app","accessGroups":["other","team"],"capabilities":["read"]}"#
                ).json["id"]?.stringValue)
            starID = try #require(f.call("GET", "/v1/tokens/self").json["id"]?.stringValue)
        }
    }

    @Test func aScopedAdminListsOnlyTokensWithinItsGroups() throws {
        let s = try Scene()
        let listed = try s.f.call("GET", "/v1/tokens", headers: s.scoped)
        #expect(listed.status == 200)
        let names = Set(listed.json["tokens"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } ?? [])
        #expect(names == ["team-admin", "team-app"])
        #expect(!listed.text.contains("other"), "no other group's name reaches it")
        let everything = try s.f.call("GET", "/v1/tokens")
        #expect(everything.json["tokens"]?.arrayValue?.count == 4)
    }

    /// A token outside its groups is missing to it: the same 404 as an unknown id, and nothing revoked.
    @Test func aScopedAdminRevokesOnlyTokensWithinItsGroups() throws {
        let s = try Scene()
        let unknown = try s.f.call("DELETE", "/v1/tokens/tok_0000000000000000", headers: s.scoped)
        unknown.expectError(404, -25300)
        for id in [s.starID, s.otherID] {
            let refused = try s.f.call("DELETE", "/v1/tokens/\(id)", headers: s.scoped)
            refused.expectError(404, -25300)
            #expect(refused.body == unknown.body)
        }
        #expect(try s.f.call("GET", "/v1/keychain").status == 200, "the * admin still works")
        #expect(try s.f.call("GET", "/v1/tokens").json["tokens"]?.arrayValue?.count == 4)
        #expect(try s.f.call("DELETE", "/v1/tokens/\(s.teamID)", headers: s.scoped).status == 204)
    }

    /// An admin of `\u{212A}ube` (KELVIN SIGN), which Swift's `String ==` equates with `Kube`,
    /// administers nothing of `Kube`: groups are compared by their bytes.
    @Test func aScopedAdminOfAnEquivalentGroupNameAdministersNothingOfTheOther() throws {
        let f = try APIFixture()
        let admin = try f.call(
            "POST", "/v1/tokens",
            json: #"{"name":"kelvin-admin","accessGroups":["\u212Aube"],"capabilities":["admin","read","write"]}"#)
        #expect(admin.status == 201)
        let scoped = [("Authorization", "Bearer \(try #require(admin.json["token"]?.stringValue))")]
        let kube = try #require(
            f.call("POST", "/v1/tokens", json: #"{"name":"kube-app","accessGroups":["Kube"],"capabilities":["read"]}"#).json[
                "id"]?.stringValue)
        let listed = try f.call("GET", "/v1/tokens", headers: scoped)
        #expect(listed.status == 200)
        #expect(listed.json["tokens"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } == ["kelvin-admin"])
        try f.call("POST", "/v1/tokens", json: #"{"name":"x","accessGroups":["Kube"],"capabilities":["read"]}"#, headers: scoped)
            .expectError(403, -34018, naming: "Kube")
        try f.call("DELETE", "/v1/tokens/\(kube)", headers: scoped).expectError(404, -25300)
        #expect(try f.call("GET", "/v1/tokens").json["tokens"]?.arrayValue?.count == 3, "nothing revoked")
        #expect(
            try f.call(
                "POST", "/v1/items",
                json: #"{"class":"genericPassword","service":"s","accessGroup":"Kube","valueData":"c2VjcmV0"}"#
            ).status == 201)
        try f.call("GET", "/v1/items?accessGroup=Kube&returnData=true", headers: scoped).expectError(
            403, -34018, naming: "accessGroup")
        try f.call(
            "POST", "/v1/items", json: #"{"class":"genericPassword","service":"t","accessGroup":"Kube","valueData":"c2VjcmV0"}"#,
            headers: scoped
        )
        .expectError(403, -34018, naming: "accessGroup")
    }

    @Test func aScopedAdminGrantsNothingItLacks() throws {
        let s = try Scene()
        let call = { (body: String) in try s.f.call("POST", "/v1/tokens", json: body, headers: s.scoped) }
        try call(#"{"name":"x","accessGroups":["team"],"capabilities":["read","delete"]}"#).expectError(
            403, -34018, naming: "capabilities")
        try call(#"{"name":"x","accessGroups":["team"],"capabilities":["lock"]}"#).expectError(403, -34018, naming: "lock")
        try call(#"{"name":"x","accessGroups":["*"],"capabilities":["read"]}"#).expectError(403, -34018, naming: "accessGroups")
        try call(#"{"name":"x","accessGroups":["team","other"],"capabilities":["read"]}"#).expectError(
            403, -34018, naming: "other")
        #expect(try call(#"{"name":"x","accessGroups":["team"],"capabilities":["read","admin"]}"#).status == 201)
        #expect(try s.f.call("GET", "/v1/tokens").json["tokens"]?.arrayValue?.count == 5, "only the allowed one was created")
    }

    @Test func aTokenMadeByAnExpiringAdminExpiresNoLater() throws {
        let f = try APIFixture()
        let made = try f.call(
            "POST", "/v1/tokens",
            json: #"{"name":"temp","accessGroups":["*"],"capabilities":["admin"],"expiresAt":"2999-01-01T00:00:00Z"}"#)
        let temp = [("Authorization", "Bearer \(try #require(made.json["token"]?.stringValue))")]
        try f.call("POST", "/v1/tokens", json: #"{"name":"x","accessGroups":["a"],"capabilities":["admin"]}"#, headers: temp)
            .expectError(403, -34018, naming: "expiresAt")
        try f.call(
            "POST", "/v1/tokens",
            json: #"{"name":"x","accessGroups":["a"],"capabilities":["admin"],"expiresAt":"2999-01-02T00:00:00Z"}"#, headers: temp
        )
        .expectError(403, -34018, naming: "expiresAt")
        #expect(
            try f.call(
                "POST", "/v1/tokens",
                json: #"{"name":"x","accessGroups":["a"],"capabilities":["admin"],"expiresAt":"2998-12-31T00:00:00Z"}"#,
                headers: temp
            ).status == 201)
    }

    /// The passphrase and the settings are the whole keychain's: not an admin of some groups'.
    @Test func keychainWideChangesNeedAnAdminOfEveryGroup() throws {
        let s = try Scene()
        try s.f.call("PUT", "/v1/keychain/settings", json: #"{"lockInterval":1}"#, headers: s.scoped).expectError(
            403, -34018, naming: "*")
        try s.f.call(
            "POST", "/v1/keychain/passphrase", json: #"{"old":"\#(testPassphrase)","new":"taken over"}"#, headers: s.scoped
        )
        .expectError(403, -34018, naming: "*")
        #expect(try s.f.call("GET", "/v1/keychain/settings").json["lockInterval"] == .int(300))
        #expect(
            try s.f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: []).status == 200)
    }

    @Test func aTokenHoldsAtMost256Groups() throws {
        let f = try APIFixture()
        let groups = (0...AccessToken.maxGroups).map { "g\($0)" }
        try f.call("POST", "/v1/tokens", json: #"{"name":"wide","accessGroups":\#(jsonArray(groups)),"capabilities":["read"]}"#)
            .expectError(400, -50, naming: "accessGroups")
        let most = try f.call(
            "POST", "/v1/tokens",
            json: #"{"name":"wide","accessGroups":\#(jsonArray(Array(groups.dropLast()))),"capabilities":["read","write"]}"#)
        #expect(most.status == 201)
        let secret = try #require(most.json["token"]?.stringValue)
        // Its groups are hashed once, when it is first authenticated, and kept with it.
        let token = try f.keychain.authenticate(bearer: secret)
        #expect(token.groupDigests?.count == AccessToken.maxGroups)
        #expect(try f.keychain.authenticate(bearer: secret) === token, "the cached token, digests and all")
        try f.add(service: "in-g200", group: "g200", token: secret)
        let found = try f.call("GET", "/v1/items?service=in-g200", headers: [("Authorization", "Bearer \(secret)")])
        #expect(found.items.count == 1)
    }

    /// A token that may write but not search learns nothing of what its update matched.
    @Test func aWriteOnlyUpdateAnswersACountNotAttributes() throws {
        let f = try APIFixture()
        let ref = try f.add(service: "payroll", account: "alice", group: "g")
        let writer = [("Authorization", "Bearer \(try f.token(groups: ["g"], capabilities: ["write"]))")]
        try f.call("GET", "/v1/items?service=payroll", headers: writer).expectError(403, -34018)
        let bulk = try f.call(
            "PATCH", "/v1/items", json: #"{"query":{"service":"payroll"},"attributesToUpdate":{"label":"L"}}"#, headers: writer)
        #expect(bulk.status == 200)
        #expect(bulk.json == ["updated": .int(1)])
        #expect(!bulk.text.contains("alice"))
        let one = try f.call("PATCH", "/v1/items/\(ref)", json: #"{"comment":"c"}"#, headers: writer)
        #expect(one.status == 200)
        #expect(one.json == ["updated": .int(1)])
        #expect(one.header("ETag") == "\"3\"")
        let reader = try f.call("PATCH", "/v1/items/\(ref)", json: #"{"comment":"d"}"#)
        #expect(
            reader.items.first?["attributes"]?.objectValue?["account"] == "alice", "a token that may search still gets the items")
    }
}

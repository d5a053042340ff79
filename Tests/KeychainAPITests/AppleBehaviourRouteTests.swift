import KeychainCore
import TestSupport
import Testing

/// The behaviours of Apple's regression tests that keychaind follows, as HTTP answers them.
@Suite struct AppleBehaviourRouteTests {
    @Test func anEmptyPassphraseIs401LikeAnyWrongOne() throws {
        let f = try APIFixture()
        _ = try f.call("POST", "/v1/keychain/lock")
        try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":""}"#, headers: []).expectError(
            401, -25293, naming: "passphrase")
        try f.call("POST", "/v1/keychain/passphrase", json: #"{"old":"","new":"next"}"#).expectError(401, -25293, naming: "old")
        try f.call("POST", "/v1/keychain/passphrase", json: #"{"old":"\#(testPassphrase)","new":""}"#)
            .expectError(400, -50, naming: "new")
    }

    @Test func deleteTakesReturnKeysAndMatchLimitAll() throws {
        let f = try APIFixture()
        try f.add(service: "db", account: "a")
        try f.add(service: "db", account: "b")
        let deleted = try f.call("DELETE", "/v1/items?service=db&returnAttributes=true&matchLimit=all")
        #expect(deleted.status == 200)
        #expect(deleted.json["deleted"] == .int(2))
        try f.call("DELETE", "/v1/items?service=db&matchLimit=1").expectError(400, -50, naming: "matchLimit")
    }

    @Test func anUpdatesQueryTakesValueDataAndMatchLimitAll() throws {
        let f = try APIFixture()
        try f.add(service: "db", account: "a")
        let body = #"{"query":{"service":"db","valueData":"b3RoZXI=","matchLimit":"all"},"attributesToUpdate":{"label":"L"}}"#
        let updated = try f.call("PATCH", "/v1/items", json: body)
        #expect(updated.status == 200, "\(updated.text)")
        #expect(updated.items.count == 1)
    }

    /// `si-10-find-internet.c` over HTTP: the attributes of a search answer, posted back as the
    /// query, find the same item.
    @Test func returnedAttributesPostedBackFindTheItem() throws {
        let f = try APIFixture()
        let ref = try f.add(service: "db", account: "a")
        let attributes = try #require(try f.call("GET", "/v1/items/\(ref)").items.first?["attributes"])
        let again = try f.call("POST", "/v1/items/search", json: String(decoding: attributes.serialized(), as: UTF8.self))
        #expect(again.status == 200, "\(again.text)")
        #expect(again.items.first?["persistentRef"] == .string(ref))
    }

    @Test func matchHostOrSubdomainOfHostAsAURLParameter() throws {
        let f = try APIFixture()
        for server in ["example.com", "www.example.com", "notexample.com"] {
            let body = #"{"class":"internetPassword","server":"\#(server)"}"#
            #expect(try f.call("POST", "/v1/items", json: body).status == 201)
        }
        let found = try f.call("GET", "/v1/items?matchHostOrSubdomainOfHost=example.com&matchLimit=all")
        #expect(found.status == 200, "\(found.text)")
        let servers = found.items.compactMap { $0["attributes"]?.objectValue?["server"]?.stringValue }.sorted()
        #expect(servers == ["example.com", "www.example.com"])
        try f.call("GET", "/v1/items?class=genericPassword&matchHostOrSubdomainOfHost=example.com")
            .expectError(400, -50, naming: "matchHostOrSubdomainOfHost")
    }
}

import TestSupport
import Testing

/// `secdxctests/KeychainEntitlementsTest.m` (Security-61901.0.87.0.1), the tests that apply, case
/// by case. Apple's `setEntitlements:validated:` sets the access groups the test process has; here
/// those groups are a token's (`fixture.token(groups:)`), the preferred group first, as
/// keychaind adds to a token's first group. An application whose entitlements grant no group
/// (none at all, or unvalidated ones) holds no token: keychaind has no token without a group
/// (openapi.yaml: `accessGroups` has `minItems: 1`), so its requests carry none.
/// `kSecUseDataProtectionKeychain` is left out (docs/api.md: accepted and ignored).
@Suite struct KeychainEntitlementsRegressions {
    private static let appID = "com.apple.test-app-identifier"
    private static let myGroup = "com.apple.test.myaccessgroup"
    private static let labelled: JSONObject = ["class": "genericPassword", "label": "label"]

    /// `testNoEntitlements`: an application with no keychain entitlement at all may not add or
    /// delete (errSecMissingEntitlement); its search is errSecMissingEntitlement when CryptoTokenKit
    /// tokens are disabled (keychaind has no token items, so this branch) and errSecItemNotFound
    /// on macOS with tokens (where com.apple.token is granted implicitly).
    /// Intended difference: such a client holds no bearer token, and a request without one is
    /// errSecAuthFailed (docs/semantics.md §4–5: every request carries a token; 401 when missing).
    @Test func testNoEntitlements() throws {
        let app = Unentitled(fixture: try APIFixture())
        #expect(try app.copyMatching(Self.labelled) == errSecAuthFailed, "intended difference for errSecMissingEntitlement")
        #expect(try app.add(Self.labelled) == errSecAuthFailed, "intended difference for errSecMissingEntitlement")
        #expect(try app.delete(Self.labelled) == errSecAuthFailed, "intended difference for errSecMissingEntitlement")
    }

    /// `testInvalidEntitlementsAppID` (macOS): an unvalidated application identifier grants
    /// nothing: search, add and delete are errSecMissingEntitlement (intended difference, as in
    /// `testNoEntitlements`: no token, errSecAuthFailed). Unvalidated keychain-access-groups do
    /// work: with [com.apple.test-app-identifier] the search finds nothing, the add and the delete
    /// succeed.
    @Test func testInvalidEntitlementsAppID() throws {
        let fixture = try APIFixture()
        let app = Unentitled(fixture: fixture)
        #expect(try app.copyMatching(Self.labelled) == errSecAuthFailed, "intended difference for errSecMissingEntitlement")
        #expect(try app.add(Self.labelled) == errSecAuthFailed, "intended difference for errSecMissingEntitlement")
        #expect(try app.delete(Self.labelled) == errSecAuthFailed, "intended difference for errSecMissingEntitlement")

        let kc = AppleCalls(fixture, token: try fixture.token(groups: [Self.appID]))
        #expect(try kc.copyMatching(Self.labelled).status == errSecItemNotFound)
        #expect(try kc.add(Self.labelled).status == errSecSuccess)
        #expect(try kc.delete(Self.labelled).status == errSecSuccess)
    }

    /// `testValidEntitlementsAppID`: a validated application identifier is an access group:
    /// naming it, the search finds nothing, the add and the delete succeed.
    @Test func testValidEntitlementsAppID() throws {
        let fixture = try APIFixture()
        let kc = AppleCalls(fixture, token: try fixture.token(groups: [Self.appID]))
        var params = Self.labelled
        params["accessGroup"] = .string(Self.appID)
        #expect(try kc.copyMatching(params).status == errSecItemNotFound)
        #expect(try kc.add(params).status == errSecSuccess)
        #expect(try kc.delete(params).status == errSecSuccess)
    }

    /// `testEntitlementsAssociatedAppID`: with an application identifier and an associated
    /// application identifier, an add without a group goes to the associated one (it is preferred:
    /// here, the token's first group); the item reads back with that `accessGroup` and is deleted.
    @Test func testEntitlementsAssociatedAppID() throws {
        let fixture = try APIFixture()
        let associated = "com.apple.test-associated-app-identifier"
        let kc = AppleCalls(fixture, token: try fixture.token(groups: [associated, Self.appID]))
        var params = Self.labelled
        #expect(try kc.copyMatching(params).status == errSecItemNotFound)
        #expect(try kc.add(params).status == errSecSuccess)
        params["returnAttributes"] = true
        let result = try kc.copyMatching(params)
        #expect(result.status == errSecSuccess, "\(result)")
        #expect(result.attributes?["accessGroup"] == .string(associated))
        #expect(try kc.delete(params).status == errSecSuccess)
    }

    /// `testInvalidAppGroups` (macOS), in part: unvalidated application groups grant nothing, so
    /// search, add and delete are errSecMissingEntitlement, and so they are when naming the
    /// unverified group com.apple.test-app-groups (intended difference, as in `testNoEntitlements`:
    /// no token, errSecAuthFailed). Left out: the searches of CryptoTokenKit's com.apple.token
    /// group, which keychaind does not have.
    @Test func testInvalidAppGroups() throws {
        let app = Unentitled(fixture: try APIFixture())
        var params = Self.labelled
        for group in [nil, "com.apple.test-app-groups"] {
            params["accessGroup"] = group.map(JSON.string)
            #expect(try app.copyMatching(params) == errSecAuthFailed, "intended difference for errSecMissingEntitlement")
            #expect(try app.add(params) == errSecAuthFailed, "intended difference for errSecMissingEntitlement")
            #expect(try app.delete(params) == errSecAuthFailed, "intended difference for errSecMissingEntitlement")
        }
    }

    /// `testEntitlementForExplicitAccessGroupLacking`: an application without the group
    /// com.apple.test.myaccessgroup that names it gets errSecMissingEntitlement from add, search,
    /// update and delete. Entitled to it, the add and the search succeed; without it again, the
    /// search naming it is errSecMissingEntitlement, and so is an update (naming no group) that
    /// would move items to com.apple.test.myotheraccessgroup, which it also lacks. Entitled again,
    /// the delete succeeds: the item is still there.
    @Test func testEntitlementForExplicitAccessGroupLacking() throws {
        let fixture = try APIFixture()
        let appOnly = AppleCalls(fixture, token: try fixture.token(groups: [Self.appID]))
        let entitled = appOnly.with(token: try fixture.token(groups: [Self.appID, Self.myGroup]))
        var query: JSONObject = [
            "class": "genericPassword", "account": "TestAccount", "label": "TestLabel", "accessGroup": .string(Self.myGroup),
            "valueData": data("passwd"),
        ]
        var update: JSONObject = ["label": "NewLabel"]

        #expect(try appOnly.add(query).status == errSecMissingEntitlement)
        query["valueData"] = nil
        #expect(try appOnly.copyMatching(query).status == errSecMissingEntitlement)
        #expect(try appOnly.update(query, update).status == errSecMissingEntitlement)
        #expect(try appOnly.delete(query).status == errSecMissingEntitlement)

        query["valueData"] = data("secret")
        #expect(try entitled.add(query).status == errSecSuccess)
        query["valueData"] = nil
        #expect(try entitled.copyMatching(query).status == errSecSuccess)
        #expect(try appOnly.copyMatching(query).status == errSecMissingEntitlement)

        query["accessGroup"] = nil
        update["accessGroup"] = "com.apple.test.myotheraccessgroup"
        #expect(try appOnly.update(query, update).status == errSecMissingEntitlement)

        query["accessGroup"] = .string(Self.myGroup)
        #expect(
            try entitled.delete(query).status == errSecSuccess, "keychain item not deleted after querying without entitlements")
    }

    /// `testEntitlementForImplicitAccessGroupLacking`: an item added to com.apple.test.myaccessgroup
    /// does not exist for an application without that group, when its query names no group:
    /// search, update and delete are errSecItemNotFound. Entitled to the group, the update
    /// succeeds, the item is found by its new label and deleted.
    @Test func testEntitlementForImplicitAccessGroupLacking() throws {
        let fixture = try APIFixture()
        let entitled = AppleCalls(fixture, token: try fixture.token(groups: [Self.appID, Self.myGroup]))
        let appOnly = entitled.with(token: try fixture.token(groups: [Self.appID]))
        var query: JSONObject = [
            "class": "genericPassword", "account": "TestAccount", "label": "TestLabel", "accessGroup": .string(Self.myGroup),
            "valueData": data("passwd"),
        ]
        let update: JSONObject = ["label": "NewLabel"]
        #expect(try entitled.add(query).status == errSecSuccess)

        query["valueData"] = nil
        query["accessGroup"] = nil
        #expect(try appOnly.copyMatching(query).status == errSecItemNotFound)
        #expect(try appOnly.update(query, update).status == errSecItemNotFound)
        #expect(try appOnly.delete(query).status == errSecItemNotFound)

        #expect(try entitled.update(query, update).status == errSecSuccess)
        query["label"] = "NewLabel"
        #expect(try entitled.copyMatching(query).status == errSecSuccess)
        #expect(
            try entitled.delete(query).status == errSecSuccess, "keychain item not deleted after querying without entitlements")
    }
}

/// An application with no keychain entitlement: it holds no token, so its requests carry no
/// `Authorization` header. Each call answers Apple's OSStatus.
private struct Unentitled {
    let fixture: APIFixture

    func copyMatching(_ query: JSONObject) throws -> Int64 { try call("POST", "/v1/items/search", query) }
    func add(_ attributes: JSONObject) throws -> Int64 { try call("POST", "/v1/items", attributes) }
    func delete(_ query: JSONObject) throws -> Int64 { try call("DELETE", "/v1/items", query) }

    private func call(_ method: String, _ target: String, _ body: JSONObject) throws -> Int64 {
        let json = String(decoding: JSON.object(body).serialized(), as: UTF8.self)
        let response = try fixture.call(method, target, json: json, headers: [])
        if (200..<300).contains(response.status) { return errSecSuccess }
        return try #require(response.json["status"]?.intValue, "\(response.text)")
    }
}

import Foundation
import Synchronization
import TestSupport
import Testing

/// `secdxctests/KeychainAPITests.m` (Security-61901.0.87.0.1), the tests that apply, case by case.
/// Apple's `KeychainXCTest` setUp gives each test a fresh, unlocked keychain; so does
/// `APIFixture`. Apple's calls run with the test process's entitlements: here, the admin token
/// (every group) unless a test names a `SecurityClient` with access groups, which becomes a token
/// of those groups. `kSecUseDataProtectionKeychain`, on every Apple dictionary, is left out:
/// keychaind has one keychain (docs/api.md: accepted and ignored).
@Suite struct KeychainAPIRegressions {
    /// `testReturnValuesInSecItemUpdate`: an add, then an update with a clean query, succeed; an
    /// update whose query also asks for attributes, data, a ref or a persistent ref is errSecParam.
    /// Intended difference: Apple asserts errSecParam on iOS and success on macOS (a no-op kept
    /// there for existing clients); keychaind follows iOS (docs/semantics.md §3 and §7:
    /// a return key in an update's query is errSecParam).
    @Test func testReturnValuesInSecItemUpdate() throws {
        let kc = AppleCalls(try APIFixture())
        let query: JSONObject = ["class": "genericPassword", "account": "TestAccount", "service": "TestService"]
        var addQuery = query
        addQuery["valueData"] = data("password")
        addQuery["returnAttributes"] = true
        let added = try kc.add(addQuery)
        #expect(added.status == errSecSuccess, "Should have succeeded in adding test item to keychain: \(added)")
        #expect(added.attributes != nil, "Should have received a dictionary back from SecItemAdd")

        let clean = try kc.update(query, ["valueData": data("otherpassword")])
        #expect(clean.status == errSecSuccess, "failed to update item with clean update query: \(clean)")

        for (key, description) in [
            ("returnAttributes", "return attributes"), ("returnData", "return data"), ("returnRef", "return ref"),
            ("returnPersistentRef", "return persistent ref"),
        ] {
            var withReturn = query
            withReturn[key] = true
            let answer = try kc.update(withReturn, ["valueData": data(description)])
            #expect(answer.status == errSecParam, "failed to generate error updating item with \(description) query: \(answer)")
        }
    }

    /// `testBadTypeInParams`: a generic password with only a label is added and deleted; with a
    /// `kSecAttrAccessControl` that is a string rather than a SecAccessControlRef, both the add and
    /// the delete are errSecParam (and nothing crashes). keychaind has no access-control objects: the
    /// key is unknown, errSecParam (docs/semantics.md §2).
    @Test func testBadTypeInParams() throws {
        let kc = AppleCalls(try APIFixture())
        var attrs: JSONObject = ["class": "genericPassword", "label": "testentry"]
        #expect(try kc.add(attrs).status == errSecSuccess)
        #expect(try kc.delete(attrs).status == errSecSuccess)

        attrs["kSecAttrAccessControl"] = "string, no SecAccessControlRef!"
        #expect(try kc.add(attrs).status == errSecParam)
        #expect(try kc.delete(attrs).status == errSecParam)
    }

    /// `testServerUsingDataType`: an internet password whose `server` was given as bytes
    /// (the UTF-8 of "string") is found by its label, and its `server` reads back equal to what was
    /// added. Intended difference: JSON has no CFData beside CFString and `server` is a string
    /// (docs/semantics.md §2), so the bytes travel as the string they spell.
    @Test func testServerUsingDataType() throws {
        let kc = AppleCalls(try APIFixture())
        let attrs: JSONObject = ["class": "internetPassword", "label": "testentry"]
        var addParams = attrs
        addParams["server"] = "string"
        #expect(try kc.add(addParams).status == errSecSuccess)

        var query = attrs
        query["returnAttributes"] = true
        let found = try kc.copyMatching(query)
        #expect(found.status == errSecSuccess, "\(found)")
        #expect(found.attributes?["server"] == addParams["server"], "Should have received the server as added")
    }

    /// `testNotAllowedToPassInternalAttributes` (with its helper
    /// `passInternalAttributeToKeychainAPIsWithKey:value:`): securityd's internal `clip` attribute
    /// (kSecAttrAppClipItem) in a query is errSecParam for SecItemAdd, SecItemCopyMatching,
    /// SecItemUpdate (in the query or in the attributes to update) and SecItemDelete.
    @Test func testNotAllowedToPassInternalAttributes() throws {
        let kc = AppleCalls(try APIFixture())
        let okquery: JSONObject = ["class": "genericPassword", "service": "AppClipTestService", "valueData": data("password")]
        var badquery = okquery
        badquery["clip"] = true
        let badupdate: JSONObject = ["clip": true]
        let okupdate: JSONObject = ["service": "DifferentService"]

        expectParam(try kc.add(badquery), naming: "clip", "SecItemAdd did not return errSecParam")
        expectParam(try kc.copyMatching(badquery), naming: "clip", "SecItemCopyMatching did not return errSecParam")
        expectParam(try kc.update(badquery, okupdate), naming: "clip", "SecItemUpdate with bad query did not return errSecParam")
        expectParam(try kc.update(okquery, badupdate), naming: "clip", "SecItemUpdate with bad update did not return errSecParam")
        expectParam(try kc.delete(badquery), naming: "clip", "SecItemDelete did not return errSecParam")
    }

    /// `testGenpReturnRef`: a generic password added and searched for with kSecReturnRef, then
    /// deleted by that query; adding a generic password by kSecValueRef is errSecParam.
    @Test func testGenpReturnRef() throws {
        try returnRef(["class": "genericPassword", "account": "TestAccount", "service": "TestService"])
    }

    /// `testInetReturnRef`: the same for an internet password (account, server www.example.com).
    @Test func testInetReturnRef() throws {
        try returnRef(["class": "internetPassword", "account": "TestAccount", "server": "www.example.com"])
    }

    /// The body of `testGenpReturnRef` and `testInetReturnRef`. Apple's add, search and delete with
    /// `kSecReturnRef` succeed (macOS returns a SecKeychainItemRef, iOS nothing); so do keychaind's,
    /// whose answer for a password carries no `valueRef` (a reference stands for a certificate, a
    /// key or an identity). The search finds the item and the delete removes it. The last add names
    /// the item by `kSecValueRef`, which Apple refuses (errSecParam: a password is not a
    /// certificate, key or identity) and keychaind does not know (errSecParam).
    private func returnRef(_ item: JSONObject) throws {
        let kc = AppleCalls(try APIFixture())
        var addQuery = item
        addQuery["valueData"] = data("password")
        addQuery["returnRef"] = true
        let added = try kc.add(addQuery)
        #expect(added.status == errSecSuccess, "Should have succeeded in adding item: \(added)")

        var query = item
        query["returnRef"] = true
        let found = try kc.copyMatching(query)
        #expect(found.status == errSecSuccess, "Should have succeeded in finding item")
        #expect(found.items.first?["valueRef"] == nil, "a password has no reference")
        #expect(try kc.delete(query).status == errSecSuccess, "Should have succeeded in deleting item")
        #expect(try kc.copyMatching(item).status == errSecItemNotFound, "the delete removed the item")

        let byRef: JSONObject = ["class": item["class"] ?? .null, "kSecValueRef": .string(added.persistentRef ?? "")]
        #expect(try kc.add(byRef).status == errSecParam, "Should have failed to add item by ref")
    }

    /// `testInetBinaryFields`, in part: an internet password (whenUnlocked, description, server,
    /// account, secret "asdf") is added returning attributes; searches for one and for all with
    /// attributes, and with attributes and data, find it (all: an array of one); a search for the
    /// data alone returns the original password. Left out: the `kSecDataInetExtra…` fields (notes,
    /// history, client-defined 0–3), private securityd SPI (SecItemPriv.h) that keychaind does not
    /// have, with Apple's checks that they come back as data and not as attributes, and the
    /// update of the history field.
    @Test func testInetBinaryFields() throws {
        let kc = AppleCalls(try APIFixture())
        let added = try kc.add([
            "class": "internetPassword", "accessible": "whenUnlocked", "description": "desc", "server": "server",
            "account": "test-account", "valueData": data("asdf"), "returnAttributes": true,
        ])
        #expect(added.status == errSecSuccess, "Should be able to add an item: \(added)")
        #expect(added.attributes != nil, "Should have some sort of result")

        let queryFind: JSONObject = ["class": "internetPassword", "account": "test-account"]
        for (returnData, limit) in [(false, "one"), (false, "all"), (true, "one"), (true, "all")] as [(Bool, JSON)] {
            var query = queryFind
            query["returnAttributes"] = true
            if returnData { query["returnData"] = true }
            if limit == "all" { query["matchLimit"] = limit }
            let found = try kc.copyMatching(query)
            #expect(found.status == errSecSuccess, "Should be able to find an item: \(found)")
            #expect(found.items.count == 1, "Array should have one element")
            #expect(found.attributes != nil, "Should have some sort of result")
        }

        var passwordQuery = queryFind
        passwordQuery["returnData"] = true
        let password = try kc.copyMatching(passwordQuery)
        #expect(password.status == errSecSuccess, "Should be able to find an item: \(password)")
        #expect(password.data == "asdf", "Should still be able to fetch the original password")
    }

    /// `testDurableWriteAPI`, in part: an add (returning attributes), an update of the secret with
    /// a clean query, and a delete all succeed. Left out:
    /// `SecItemPersistKeychainWritesAtHighPerformanceCost` and the entitlement it needs: keychaind
    /// has no such call because every acknowledged write is already durable (docs/threat-model.md, Security model: WAL with
    /// `synchronous=FULL`).
    @Test func testDurableWriteAPI() throws {
        let kc = AppleCalls(try APIFixture())
        let updateQuery: JSONObject = ["class": "genericPassword", "account": "TestAccount", "service": "TestService"]
        var addQuery = updateQuery
        addQuery["valueData"] = data("password")
        addQuery["returnAttributes"] = true
        let added = try kc.add(addQuery)
        #expect(added.status == errSecSuccess, "Should have succeeded in adding test item to keychain: \(added)")
        #expect(added.attributes != nil, "Should have received a dictionary back from SecItemAdd")
        let updated = try kc.update(updateQuery, ["valueData": data("otherpassword")])
        #expect(updated.status == errSecSuccess, "should be able to update item with clean update query: \(updated)")
        #expect(try kc.delete(updateQuery).status == errSecSuccess, "Should be able to delete item")
    }

    /// `testSecItemAddAndCopyMatchingWithUUIDPersistentRefs`, in part: after an add, a search with
    /// attributes and persistent ref returns a dictionary carrying the persistent ref and no
    /// internal `persistref` attribute; a search by that persistent ref (attributes, limit one)
    /// finds the item, again without `persistref`. Left out: parsing the ref into class, row id
    /// and UUID (`_SecItemParsePersistentRef`): keychaind's ref is opaque (docs/semantics.md §2).
    @Test func testSecItemAddAndCopyMatchingWithUUIDPersistentRefs() throws {
        let kc = AppleCalls(try APIFixture())
        var query: JSONObject = [
            "class": "genericPassword", "valueData": data("uuid"), "account": "TestUUIDPersistentRefAccount",
            "service": "TestUUIDPersistentRefService", "returnAttributes": true,
        ]
        let added = try kc.add(query)
        #expect(added.status == errSecSuccess, "Should have succeeded in adding test item to keychain: \(added)")
        #expect(added.attributes != nil, "result should be a dictionary")

        query["valueData"] = nil
        query["returnPersistentRef"] = true
        let result = try kc.copyMatching(query)
        #expect(result.status == errSecSuccess, "Should have found item in keychain: \(result)")
        #expect(result.attributes != nil, "result should be a dictionary")
        #expect(!hasInternalPersistentRef(result), "uuid should be nil")
        let persistentRef = try #require(result.persistentRef, "classAndUUIDPersistentRef should not be nil")

        let found = try kc.copyMatching([
            "valuePersistentRef": .string(persistentRef), "returnAttributes": true, "matchLimit": "one",
        ])
        #expect(found.status == errSecSuccess, "Should have found persistent reference in keychain: \(found)")
        #expect(found.attributes != nil, "foundRef should be a dictionary")
        #expect(!hasInternalPersistentRef(found), "uuid should be nil")
    }

    /// `testSecItemCopyMatchingHostorSubdomain`: a client of the group
    /// com.apple.password-manager.personal adds an internet password for origin.example.com;
    /// kSecMatchHostOrSubdomainOfHost finds it by example.com and by origin.example.com (the
    /// server reads back as added), and not by foobar.com (errSecItemNotFound).
    @Test func testSecItemCopyMatchingHostorSubdomain() throws {
        let fixture = try APIFixture()
        let kc = AppleCalls(fixture, token: try fixture.token(groups: ["com.apple.password-manager.personal"]))
        let baseUrl = "origin.example.com"
        let added = try kc.add([
            "class": "internetPassword", "valueData": data("password"), "account": "TestAccount", "server": .string(baseUrl),
        ])
        #expect(added.status == errSecSuccess, "Should insert item to find: \(added)")

        for host in ["example.com", baseUrl] {
            let found = try kc.copyMatching(findHostQuery(host))
            #expect(found.status == errSecSuccess, "Should have found item in keychain: \(found)")
            #expect(found.attributes?["server"] == .string(baseUrl), "server should our input server")
        }
        let none = try kc.copyMatching(findHostQuery("foobar.com"))
        #expect(none.status == errSecItemNotFound, "expecting no matching items found: \(none)")
    }

    private func findHostQuery(_ host: String) -> JSONObject {
        ["class": "internetPassword", "matchHostOrSubdomainOfHost": .string(host), "returnAttributes": true, "matchLimit": "one"]
    }

    /// `testSecItemCopyMatchingDoesNotReturnPersistRefs`: an add returning attributes and
    /// persistent ref gives the ref; a search by it (attributes, limit one) finds the item, and its
    /// attributes carry no internal `persistref`.
    @Test func testSecItemCopyMatchingDoesNotReturnPersistRefs() throws {
        let kc = AppleCalls(try APIFixture())
        let added = try kc.add([
            "class": "genericPassword", "valueData": data("uuid"), "account": "TestUUIDPersistentRefAccount",
            "service": "TestUUIDPersistentRefService", "returnAttributes": true, "returnPersistentRef": true,
        ])
        #expect(added.status == errSecSuccess, "Should have succeeded in adding test item to keychain: \(added)")
        #expect(added.attributes != nil, "result should be a dictionary")
        let persistRef = try #require(added.persistentRef, "persistRef should not be nil")

        let found = try kc.copyMatching([
            "valuePersistentRef": .string(persistRef), "returnAttributes": true, "matchLimit": "one",
        ])
        #expect(found.status == errSecSuccess, "Should have found item in keychain: \(found)")
        #expect(found.attributes != nil, "result should be a dictionary")
        #expect(!hasInternalPersistentRef(found), "uuid should be nil")
    }

    /// `testSecItemUpdateUpgradesPersistentReference`, in part: an item's persistent reference is
    /// not overwritten by updates. An add returns the ref; an update (its query carries the
    /// secret, which matches nothing) changes service and secret; the item found under its new
    /// service has the same ref; a second update changes them again and the ref is still the same.
    /// Left out: Apple's upgrade of a 12-byte row-id ref to a 20-byte UUID ref on update (its own
    /// database format; keychaind's ref is fixed at add). Intended difference: Apple's search
    /// after each update carries kSecValueData; keychaind refuses `valueData` in a search with
    /// errSecParam (docs/api.md, Names), so the search is made without it.
    @Test func testSecItemUpdateUpgradesPersistentReference() throws {
        let kc = AppleCalls(try APIFixture())
        var updateQuery: JSONObject = [
            "class": "genericPassword", "valueData": data("uuid"), "account": "testKeychainItemUpgradePhase3Account1",
            "service": "TestUUIDPersistentRefService",
        ]
        var addQuery = updateQuery
        addQuery["returnAttributes"] = true
        addQuery["returnPersistentRef"] = true
        let added = try kc.add(addQuery)
        #expect(added.status == errSecSuccess, "Should have succeeded in adding test item to keychain: \(added)")
        let addedRef = try #require(added.persistentRef, "oldStylePersistRef should not be nil")

        var attributesToUpdate = updateQuery
        attributesToUpdate["class"] = nil
        attributesToUpdate["service"] = "am_a_service"
        attributesToUpdate["valueData"] = data("updated uuid")
        let first = try kc.update(updateQuery, attributesToUpdate)
        #expect(first.status == errSecSuccess, "SecItemUpdate should have succeeded: \(first)")

        var findQuery = attributesToUpdate
        findQuery["class"] = "genericPassword"
        findQuery["returnAttributes"] = true
        findQuery["returnPersistentRef"] = true
        expectParam(try kc.copyMatching(findQuery), naming: "valueData", "intended difference: no valueData in a search")
        findQuery["valueData"] = nil
        let item = try kc.copyMatching(findQuery)
        #expect(item.status == errSecSuccess, "SecItemCopyMatching should have succeeded: \(item)")
        #expect(item.attributes != nil, "item should be a dictionary")
        let foundPref = try #require(item.persistentRef)
        #expect(foundPref == addedRef, "the update kept the item's persistent ref")

        updateQuery["service"] = findQuery["service"]
        attributesToUpdate["service"] = "service"
        attributesToUpdate["valueData"] = data("replaced uuid")
        let second = try kc.update(updateQuery, attributesToUpdate)
        #expect(second.status == errSecSuccess, "SecItemUpdate should have succeeded: \(second)")

        findQuery["service"] = attributesToUpdate["service"]
        let item2 = try kc.copyMatching(findQuery)
        #expect(item2.status == errSecSuccess, "SecItemCopyMatching should have succeeded: \(item2)")
        #expect(item2.attributes != nil, "item should be a dictionary")
        #expect(item2.persistentRef == foundPref, "these persistent refs should be equal")
    }

    /// `testCopyAccessGroupForPersistentRef`, in part: a synchronizable generic password in the
    /// group com.apple.security.ckks is added returning its persistent ref; a client of that group
    /// searching by the ref (attributes and ref) finds it, and the ref found equals the one added.
    /// Left out: the CKKS attributes kSecAttrSyncViewHint and kSecAttrPCSPlaintextPublicKey, which
    /// keychaind does not have, and the ref's 20-byte length (Apple's format; keychaind's is opaque).
    @Test func testCopyAccessGroupForPersistentRef() throws {
        let fixture = try APIFixture()
        let kc = AppleCalls(fixture)
        let added = try kc.add([
            "class": "genericPassword", "accessGroup": "com.apple.security.ckks", "accessible": "afterFirstUnlock",
            "account": "testaccount", "synchronizable": true, "valueData": data("asdf"), "returnPersistentRef": true,
        ])
        #expect(added.status == errSecSuccess, "\(added)")
        let pref1 = try #require(added.persistentRef, "persistent ref should not be nil")

        let client = kc.with(token: try fixture.token(groups: ["com.apple.security.ckks"]))
        let item = try client.copyMatching([
            "valuePersistentRef": .string(pref1), "returnAttributes": true, "returnPersistentRef": true,
        ])
        #expect(item.status == errSecSuccess, "\(item)")
        #expect(item.attributes != nil, "item should be a dictionary")
        #expect(item.persistentRef == pref1, "persistent refs should be equal")
    }

    /// Whether the first result's attributes carry securityd's internal persistent-ref column
    /// (`v10itempersistentref`, "persistref") under any name.
    private func hasInternalPersistentRef(_ answer: AppleAnswer) -> Bool {
        (answer.attributes?.keys ?? []).contains { $0.lowercased().contains("persist") }
    }

    /// `testSecIdentityRefWithNewUUIDPersistentRefs`: Apple's test identity (`CreateTestIdentity`:
    /// the certificate and RSA-2048 key of `certDataBase64`/`keyDataBase64`) is added by its ref to
    /// the group `com.apple.security.ckks`, labelled `item-delete-me`, afterFirstUnlock, with
    /// `returnPersistentRef`: a ref, which finds it. `CheckIdentityItem`: the identity of that label
    /// is in ckks, not in `com.apple.lakitu`; an update of the identity (class, group, label) to
    /// lakitu succeeds, after which it is in lakitu and not in ckks; its persistent ref is found
    /// again (`returnPersistentRef`) and finds it; the update of that persistent ref back to ckks
    /// is errSecInternal in Apple's keychain; after the deletes of every identity of either group,
    /// neither group has it.
    /// Intended differences: the certificate data ends with a zero byte, which keychaind refuses
    /// (docs/certificates-keys-identities.md, Certificates: no trailing bytes), so the certificate is sent without it
    /// (`kc43Certificate`, KeychainFileCertificateRegressions.swift); an identity's persistent ref is
    /// its certificate's, which alone names the certificate (docs/certificates-keys-identities.md, Identities), so the last
    /// update moves the certificate to ckks and succeeds; the identity, whose certificate and key
    /// the token sees in both groups, is then deleted by the ckks delete.
    @Test func testSecIdentityRefWithNewUUIDPersistentRefs() throws {
        let kc = AppleCalls(try APIFixture())
        func checkIdentityItem(_ group: String, _ expected: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let status = try kc.copyMatching(["class": "identity", "accessGroup": .string(group), "label": "item-delete-me"])
                .status
            #expect(
                status == expected, "result of SecItemCopyMatching should equal to expected status",
                sourceLocation: sourceLocation)
        }
        let added = try kc.add(
            AppleRef.addIdentity(certificate: kc43Certificate, key: AppleTestData.kc43Key).merging([
                "accessGroup": "com.apple.security.ckks", "label": "item-delete-me", "accessible": "afterFirstUnlock",
                "useDataProtectionKeychain": true, "returnPersistentRef": true,
            ]))
        #expect(added.status == errSecSuccess, "status should equal errSecSuccess: \(added)")
        let ref = try #require(added.persistentRef, "ref should not be nil")
        #expect(
            try kc.copyMatching(["valuePersistentRef": .string(ref)]).status == errSecSuccess, "status should equal errSecSuccess"
        )
        try checkIdentityItem("com.apple.security.ckks", errSecSuccess)
        try checkIdentityItem("com.apple.lakitu", errSecItemNotFound)

        let query: JSONObject = ["class": "identity", "accessGroup": "com.apple.security.ckks", "label": "item-delete-me"]
        #expect(
            try kc.update(query, ["accessGroup": "com.apple.lakitu"]).status == errSecSuccess, "status should equal errSecSuccess"
        )
        try checkIdentityItem("com.apple.security.ckks", errSecItemNotFound)
        try checkIdentityItem("com.apple.lakitu", errSecSuccess)

        let prefQuery: JSONObject = [
            "class": "identity", "accessGroup": "com.apple.lakitu", "label": "item-delete-me", "returnPersistentRef": true,
        ]
        let data = try kc.copyMatching(prefQuery)
        #expect(data.status == errSecSuccess, "status should equal errSecSuccess")
        let query2: JSONObject = ["valuePersistentRef": .string(data.persistentRef ?? "")]
        #expect(try kc.copyMatching(query2).status == errSecSuccess, "status should equal errSecSuccess")
        let moved = try kc.update(query2, ["accessGroup": "com.apple.security.ckks"])
        #expect(moved.status == errSecSuccess, "intended difference for errSecInternal: the certificate moves: \(moved)")

        _ = try kc.delete(["class": "identity", "accessGroup": "com.apple.security.ckks"])
        _ = try kc.delete(["class": "identity", "accessGroup": "com.apple.lakitu"])
        try checkIdentityItem("com.apple.security.ckks", errSecItemNotFound)
        try checkIdentityItem("com.apple.lakitu", errSecItemNotFound)
    }
}

/// `RegressionTests/secitemstresstest/secitemstresstest.m`, the whole program, scaled down. A
/// client entitled to keychain-test1 and keychain-test2 (its .entitlements file) runs item life
/// cycles (add, update the label, delete): four serially, then concurrently on distinct items,
/// then concurrently on one item. Every call must succeed, except that on the one shared item
/// errSecItemNotFound and errSecDuplicateItem are "pedestrian" (another thread got there first).
///
/// Scaled: Apple starts round after round for 20 seconds (CONCURRENT_RUNTIME), `width` at a time;
/// here each phase (width 2, then 10) runs exactly `width` rounds, all at once, and a round on
/// distinct items has 3 accounts per lane instead of 10 (a round on the one item keeps its 10):
/// 268 life cycles in all, where Apple runs for 80 seconds, so that the same races happen in
/// well under a second. Apple's `Cleanup` (delete all in each group) prints any status but
/// success; every life cycle deletes its item, so here it must find nothing (errSecItemNotFound).
@Suite struct SecItemStressRegression {
    private static let group1 = "keychain-test1"
    private static let group2 = "keychain-test2"

    @Test func secitemstresstest() throws {
        let fixture = try APIFixture()
        let kc = AppleCalls(fixture, token: try fixture.token(groups: [Self.group1, Self.group2]))
        let failures = Failures()

        // [BEGIN] testing serial items
        try cleanup(kc)
        for (account, group) in [
            ("account1", Self.group1), ("account2", Self.group1), ("account1", Self.group2), ("account2", Self.group2),
        ] {
            createDeleteItem(kc, account: account, group: group, ignorePedestrianFailures: false, failures)
        }

        // [BEGIN] testing concurrent items
        try cleanup(kc)
        for width in [2, 10] { createDeleteConcurrentItems(kc, width: width, failures) }

        // [BEGIN] testing concurrent same item
        try cleanup(kc)
        for width in [2, 10] { createDeleteConcurrentSameItem(kc, width: width, failures) }
        try cleanup(kc)

        let errors = failures.list.withLock { $0 }
        #expect(errors.count == 0, "non pedestrian errors, the first: \(errors.prefix(5))")
    }

    /// What went wrong, from every thread.
    final class Failures: Sendable {
        let list = Mutex<[String]>([])
    }

    /// Apple's `CreateDeleteItem`: add (label, account, group, afterFirstUnlock, secret), update
    /// the label to "kaka", delete; each status must be success, or with
    /// `ignorePedestrianFailures` also errSecItemNotFound or errSecDuplicateItem.
    private func createDeleteItem(
        _ kc: AppleCalls, account: String, group: String, ignorePedestrianFailures: Bool, _ failures: Failures
    ) {
        func isPedestrian(_ name: String, _ call: () throws -> AppleAnswer) {
            let status: Int64
            do { status = try call().status } catch { return failures.list.withLock { $0.append("\(name): \(error)") } }
            let pedestrian =
                ignorePedestrianFailures ? [errSecSuccess, errSecItemNotFound, errSecDuplicateItem] : [errSecSuccess]
            if !pedestrian.contains(status) { failures.list.withLock { $0.append("\(name) non pedestrian error: \(status)") } }
        }
        let query: JSONObject = ["class": "genericPassword", "account": .string(account), "accessGroup": .string(group)]
        var add = query
        add["label"] = "secitemstresstest-oneItem"
        add["accessible"] = "afterFirstUnlock"
        add["valueData"] = data("password")
        isPedestrian("SecItemAdd") { try kc.add(add) }
        isPedestrian("SecItemUpdate") { try kc.update(query, ["label": "kaka"]) }
        isPedestrian("SecItemDelete") { try kc.delete(query) }
    }

    /// Apple's `CreateDeleteConcurrentItems`: `width` rounds at once, each running four lanes at
    /// once (account1-/account2- in each group), each lane `perLane` distinct accounts at once.
    private func createDeleteConcurrentItems(_ kc: AppleCalls, width: Int, perLane: Int = 3, _ failures: Failures) {
        let lanes = [("account1", Self.group1), ("account2", Self.group1), ("account1", Self.group2), ("account2", Self.group2)]
        DispatchQueue.concurrentPerform(iterations: width) { me in
            DispatchQueue.concurrentPerform(iterations: lanes.count) { lane in
                DispatchQueue.concurrentPerform(iterations: perLane) { num in
                    let (prefix, group) = lanes[lane]
                    createDeleteItem(
                        kc, account: "\(prefix)-\(me)-\(num)", group: group, ignorePedestrianFailures: false, failures)
                }
            }
        }
    }

    /// Apple's `CreateDeleteConcurrentSameItem`: `width` rounds at once, each 10 life cycles at
    /// once, all on account1 in keychain-test1.
    private func createDeleteConcurrentSameItem(_ kc: AppleCalls, width: Int, _ failures: Failures) {
        DispatchQueue.concurrentPerform(iterations: width * 10) { _ in
            createDeleteItem(kc, account: "account1", group: Self.group1, ignorePedestrianFailures: true, failures)
        }
    }

    /// Apple's `Cleanup`: delete every generic password of each group; nothing is left to find.
    private func cleanup(_ kc: AppleCalls, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for group in [Self.group1, Self.group2] {
            let answer = try kc.delete(["class": "genericPassword", "accessGroup": .string(group)])
            #expect(answer.status == errSecItemNotFound, "cleanup \(group): \(answer)", sourceLocation: sourceLocation)
        }
    }
}

/// Expects errSecParam whose message names `key`, so the refusal is for the reason the test is about.
private func expectParam(
    _ answer: AppleAnswer, naming key: String, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(answer.status == errSecParam, "\(comment): \(answer)", sourceLocation: sourceLocation)
    let message = answer.response.json["message"]?.stringValue ?? ""
    #expect(message.contains(key), "\(comment): the message does not name \(key): \(answer)", sourceLocation: sourceLocation)
}

import TestSupport
import Testing

/// `OSX/sec/Security/Regressions/secitem/si-*.c` (Security-61901.0.87.0.1), case by case.
/// inventory-si.md lists every program of that directory, whether it applies and why not.
@Suite struct SecItemRegressions {
    /// si-00-find-nothing.c `tests`: SecItemCopyMatching of `{class: internetPassword}` in an empty
    /// keychain is errSecItemNotFound, and no result comes back.
    @Test func si00FindNothing() throws {
        let kc = AppleCalls(try APIFixture())
        let found = try kc.copyMatching(["class": "internetPassword"])
        #expect(found.status == errSecItemNotFound, "find nothing: \(found)")
        #expect(found.items.isEmpty, "results still NULL?")
    }

    /// si-10-find-internet.c `tests`: an internet password (server, account, port 80, protocol
    /// `http`, authentication type `dflt`) is added once and then is a duplicate; found by its
    /// attributes; found again, with its data, by the attributes a search returned (Apple drops
    /// the `sha1` attribute, which keychaind does not return); an update of its server succeeds
    /// once and then finds nothing; the original query no longer deletes anything; an update that
    /// would give a second item the changed item's key is errSecDuplicateItem; the changed item is
    /// deleted by its new server.
    @Test func si10FindInternet() throws {
        let kc = AppleCalls(try APIFixture())
        let item: JSONObject = [
            "class": "internetPassword", "server": "members.spamcop.net", "account": "smith", "port": 80,
            "protocol": "http", "authenticationType": "dflt", "valueData": data("test"),
        ]
        var query = item
        query["valueData"] = nil
        #expect(try kc.add(item).status == errSecSuccess, "add internet password")
        #expect(try kc.add(item).status == errSecDuplicateItem, "add internet password again")
        #expect(try kc.copyMatching(query).status == errSecSuccess, "find internet password")

        var query2 = query
        query2["returnAttributes"] = true
        query2["matchLimit"] = "one"
        let attributes = try kc.copyMatching(query2)
        #expect(attributes.status == errSecSuccess, "find internet password, return attributes")
        var fromResult = try #require(attributes.attributes)
        fromResult["class"] = "internetPassword"
        fromResult["returnData"] = true
        let found = try kc.copyMatching(fromResult)
        #expect(found.status == errSecSuccess, "find internet password using returned attributes: \(found)")
        #expect(found.data == "test", "retrieved data correctly")

        let changes: JSONObject = ["server": "www.spamcop.net"]
        #expect(try kc.update(query, changes).status == errSecSuccess, "update internet password")
        #expect(try kc.update(query, changes).status == errSecItemNotFound, "update non-exisiting internet password again")
        #expect(try kc.delete(query).status == errSecItemNotFound, "delete non existing internet password")
        #expect(try kc.add(item).status == errSecSuccess, "add unmodified password")
        #expect(try kc.delete(query).status == errSecSuccess, "delete internet password")

        #expect(try kc.add(item).status == errSecSuccess, "add unmodified password")
        #expect(try kc.update(query, changes).status == errSecDuplicateItem, "update internet password causing dupe")
        #expect(try kc.delete(query).status == errSecSuccess, "delete internet password")

        let changedItem: JSONObject = ["server": "www.spamcop.net", "class": "internetPassword"]
        #expect(try kc.delete(changedItem).status == errSecSuccess, "delete changed internet password")
    }

    /// si-11-update-data.c `tests`: a generic password is found by its attributes; an update of
    /// its data succeeds; an update setting the data to NULL, or to a string instead of bytes, is
    /// errSecParam; the item is then deleted.
    /// JSON carries bytes as base64 strings, so Apple's CFString `"bogus"` becomes the string
    /// `"bogus"`, which is not base64; its NULL becomes JSON `null`.
    @Test func si11UpdateData() throws {
        let kc = AppleCalls(try APIFixture())
        let item: JSONObject = ["class": "genericPassword", "account": "dankeen", "service": "iTools", "valueData": data("test")]
        var query = item
        query["valueData"] = nil
        #expect(try kc.add(item).status == errSecSuccess, "add generic password")
        #expect(try kc.copyMatching(query).status == errSecSuccess, "find generic password")

        let changed = try kc.update(query, ["valueData": data("different password data this time")])
        #expect(changed.status == errSecSuccess, "update generic password: \(changed)")
        #expect(try kc.update(query, ["valueData": .null]).status == errSecParam, "update NULL data")
        #expect(try kc.update(query, ["valueData": "bogus"]).status == errSecParam, "update string data")
        #expect(try kc.delete(query).status == errSecSuccess, "delete generic password")
    }

    /// si-12-item-stress.c `tests`, partly: for Apple's items 0…7, of classes internet password,
    /// generic password, key and certificate in turn, whose primary-key attributes are set from the
    /// item's number (strings `string-N`, numbers N, `synchronizable` N even; no access group), a
    /// synchronizable item is added, deleted, added again and deleted, then a local one likewise.
    /// Ported: the password items (0, 1, 4, 5) and every add and delete of them.
    /// The key and certificate items are CertificateKeyRegressions.si12ItemStressKeysAndCertificates.
    /// Left out: every step about tombstones (`kSecUseTombstones`, `kSecAttrTombstone`: records of deleted
    /// items that Apple keeps for iCloud Keychain sync, which keychaind does not have); the deletes
    /// that Apple makes with `kSecUseTombstones` are made without it.
    @Test func si12ItemStress() throws {
        let kc = AppleCalls(try APIFixture())
        for num in 0..<8 where num % 4 < 2 {
            let text = JSON.string("string-\(num)")
            var item: JSONObject
            if num % 4 == 0 {
                let number = JSON.int(Int64(num))
                item = [
                    "class": "internetPassword", "account": text, "securityDomain": text, "server": text,
                    "protocol": number, "authenticationType": number, "port": number, "path": text,
                ]
            } else {
                item = ["class": "genericPassword", "account": text, "service": text]
            }
            item["synchronizable"] = .bool(num % 2 == 0)  // Apple's primary-key value, replaced at once as Apple does

            item["synchronizable"] = true
            #expect(try kc.add(item).status == errSecSuccess, "add sync (item \(num))")
            #expect(try kc.delete(item).status == errSecSuccess, "delete sync (item \(num))")
            #expect(try kc.add(item).status == errSecSuccess, "add sync again (item \(num))")
            #expect(try kc.delete(item).status == errSecSuccess, "delete sync without leaving a tombstone behind (item \(num))")

            item["synchronizable"] = nil
            #expect(try kc.add(item).status == errSecSuccess, "add local (item \(num))")
            #expect(try kc.delete(item).status == errSecSuccess, "delete local (item \(num))")
            #expect(try kc.add(item).status == errSecSuccess, "add local again (item \(num))")
            #expect(try kc.delete(item).status == errSecSuccess, "delete local and leave a tombstone behind (item \(num))")
        }
    }

    /// si-15-delete-access-group.m `si_15_delete_access_group`: two generic passwords, labelled
    /// apart, in two access groups of one application; SecItemDeleteAllWithAccessGroups of the
    /// first group removes only its item, then of the second group the other.
    /// SecItemDeleteAllWithAccessGroups (SPI) is a delete naming only the group, of every class and
    /// both sync states, which is what `{accessGroup, synchronizable: "any"}` asks of keychaind.
    /// Apple's unasserted clean-up deletes before the adds are left out: each test has a new keychain.
    @Test func si15DeleteAccessGroup() throws {
        let fixture = try APIFixture()
        let agrp = "123456.test.group"
        let agrp2 = "123456.test.group2"
        let kc = AppleCalls(fixture, token: try fixture.token(groups: [agrp, agrp2]))
        let query: JSONObject = ["class": "genericPassword", "label": "keychain label"]
        let query2: JSONObject = ["class": "genericPassword", "label": "keychain label2"]
        func deleteAll(withAccessGroup group: String) throws -> AppleAnswer {
            try kc.delete(["accessGroup": .string(group), "synchronizable": "any"])
        }

        var item = query
        item["accessGroup"] = .string(agrp)
        #expect(try kc.add(item).status == errSecSuccess, "SecItemAdd2")
        #expect(try kc.copyMatching(query).status == errSecSuccess)
        var item2 = query2
        item2["accessGroup"] = .string(agrp2)
        #expect(try kc.add(item2).status == errSecSuccess, "SecItemAdd2")
        #expect(try kc.copyMatching(query).status == errSecSuccess)
        #expect(try kc.copyMatching(query2).status == errSecSuccess)

        #expect(try deleteAll(withAccessGroup: agrp).status == errSecSuccess, "SecItemDeleteAllWithAccessGroups")
        #expect(try kc.copyMatching(query).status == errSecItemNotFound)
        #expect(try kc.copyMatching(query2).status == errSecSuccess)

        #expect(try deleteAll(withAccessGroup: agrp2).status == errSecSuccess, "SecItemDeleteAllWithAccessGroups")
        #expect(try kc.copyMatching(query).status == errSecItemNotFound)
        #expect(try kc.copyMatching(query2).status == errSecItemNotFound)
    }

    /// si-43-persistent.c `tests`: an internet password added with `returnPersistentRef` gives a
    /// persistent ref; a search by that ref returns the same attributes as a search by attributes;
    /// after a delete neither search finds it. With two items, an update through one item's ref
    /// changes only that item (server `zuigt.nl` → `zuigt.com`); a delete through the ref removes
    /// only that item; the other is then deleted through its own ref.
    /// Apple asserts only that the searches after the delete fail; keychaind's failure is checked to
    /// be errSecItemNotFound.
    /// Intended difference: a persistent ref is an opaque string, not CFData (docs/semantics.md §2:
    /// a `persistentRef` is an opaque string), so "result is a CFData" checks for a non-empty string.
    @Test func si43Persistent() throws {
        let kc = AppleCalls(try APIFixture())
        var item: JSONObject = [
            "class": "internetPassword", "server": "zuigt.nl", "account": "frtnbf", "port": 80, "protocol": "http",
            "authenticationType": "dflt", "returnPersistentRef": true, "valueData": data("test"),
        ]
        let added = try kc.add(item)
        #expect(added.status == errSecSuccess, "add internet password")
        let persist = try #require(added.persistentRef, "got back persistent ref")

        var query = item
        query["returnPersistentRef"] = nil
        query["valueData"] = nil
        query["returnAttributes"] = true
        let results = try kc.copyMatching(query)
        #expect(results.status == errSecSuccess, "find internet password by attr")
        let query2: JSONObject = ["returnAttributes": true, "valuePersistentRef": .string(persist)]
        let results2 = try kc.copyMatching(query2)
        #expect(results2.status == errSecSuccess, "find internet password by persistent ref")
        #expect(results.items == results2.items && !results.items.isEmpty, "same item (attributes)")

        #expect(try kc.delete(query).status == errSecSuccess, "delete internet password")
        let gone = try kc.copyMatching(query)
        #expect(gone.status == errSecItemNotFound, "don't find internet password by attributes")
        #expect(gone.items.isEmpty, "no results")
        let goneByRef = try kc.copyMatching(query2)
        #expect(goneByRef.status == errSecItemNotFound, "don't find internet password by persistent ref anymore")
        #expect(goneByRef.items.isEmpty, "no results")

        let first = try kc.add(item)
        #expect(first.status == errSecSuccess, "add internet password")
        item["account"] = "johndoe"
        let second = try kc.add(item)
        #expect(second.status == errSecSuccess, "add second internet password")
        let persist1 = try #require(first.persistentRef)
        let persist2 = try #require(second.persistentRef)
        #expect(!persist1.isEmpty, "result is a CFData")
        var query3: JSONObject = ["valuePersistentRef": .string(persist1)]
        #expect(try kc.update(query3, ["server": "zuigt.com"]).status == errSecSuccess, "update via persitant ref")

        query3["returnAttributes"] = true
        let updated = try kc.copyMatching(query3)
        #expect(updated.status == errSecSuccess, "find updated internet password by persistent ref")
        #expect(updated.attributes?["server"] == "zuigt.com", "verify attribute was modified by update")
        query3["returnAttributes"] = nil

        let query4: JSONObject = ["valuePersistentRef": .string(persist2), "returnAttributes": true]
        let untouched = try kc.copyMatching(query4)
        #expect(untouched.status == errSecSuccess, "find non updated internet password by persistent ref")
        #expect(untouched.attributes?["server"] == "zuigt.nl", "verify second items attribute was not modified by update")

        #expect(try kc.delete(query3).status == errSecSuccess, "delete via persitant ref")
        let deleted = try kc.copyMatching(query3)
        #expect(deleted.status == errSecItemNotFound, "don't find deleted internet password by persistent ref")
        #expect(try kc.copyMatching(query4).status == errSecSuccess, "find non deleted internet password by persistent ref")
        #expect(try kc.delete(query4).status == errSecSuccess, "delete internet password by persistent ref")
    }

    /// si-72-syncableitems.c `tests`: a synchronizable generic password (label, comment, a unique
    /// account, 5 bytes of data "Test\0") is added; found with `synchronizable: true` and with
    /// `synchronizable: "any"` (kSecAttrSynchronizableAny); its comment updated through a
    /// `synchronizable: true` query; found by the new comment; deleted by that query.
    @Test func si72SyncableItems() throws {
        let kc = AppleCalls(try APIFixture())
        let account = JSON.string("Test Account \(UInt64.random(in: 0...UInt64.max))")
        let service: JSON = "Test Service"
        let add = try kc.add([
            "class": "genericPassword", "label": "Test Synchronizable Item", "comment": "Test Comment",
            "account": account, "service": service, "synchronizable": true, "valueData": data("Test\0"),
            "returnAttributes": true,
        ])
        #expect(add.status == errSecSuccess, "SecItemAdd sync=true: \(add)")

        var query: JSONObject = [
            "class": "genericPassword", "account": account, "service": service, "synchronizable": true,
            "returnAttributes": true,
        ]
        #expect(try kc.copyMatching(query).status == errSecSuccess, "SecItemCopyMatching sync=true")
        query["synchronizable"] = "any"
        #expect(try kc.copyMatching(query).status == errSecSuccess, "SecItemCopyMatching sync=any")

        query = ["class": "genericPassword", "account": account, "service": service, "synchronizable": true]
        #expect(try kc.update(query, ["comment": "Updated Comment"]).status == errSecSuccess, "SecItemUpdate sync=true")
        query["comment"] = "Updated Comment"
        #expect(try kc.copyMatching(query).status == errSecSuccess, "SecItemCopyMatching post-update")
        #expect(try kc.delete(query).status == errSecSuccess, "SecItemDelete sync=true")
    }

    /// si-78-query-attrs.c `tests` (rdar://16461008: results without `kSecReturnAttributes` came
    /// back as empty dictionaries): a generic password holding Safari's credit-card plist is
    /// searched with `matchLimit: all` and returnData + returnPersistentRef (one result carrying
    /// both, the data byte for byte), returnData alone (one result, the data), and
    /// returnPersistentRef alone (one result, the ref); then deleted.
    /// Intended difference: results always come as `{"items": [...]}` objects (docs/semantics.md §3
    /// and §7), so where Apple's row is a bare CFData
    /// the item is checked to carry exactly that one part and nothing else; a persistent ref is an
    /// opaque string, not CFData (docs/semantics.md §2).
    @Test func si78QueryAttrs() throws {
        let kc = AppleCalls(try APIFixture())
        let plist = bytes(si78CreditCardPlist)
        let service: JSON = "SafariCreditCardEntries-test"
        let item: JSONObject = [
            "class": "genericPassword", "account": "3B1ED3EC-A558-43F0-B337-6E891000466B-test", "service": service,
            "valueData": plist,
        ]
        #expect(try kc.add(item).status == errSecSuccess, "add generic password")

        var query: JSONObject = [
            "class": "genericPassword", "service": service, "matchLimit": "all", "returnData": true,
            "returnPersistentRef": true,
        ]
        var result = try kc.copyMatching(query)
        #expect(result.status == errSecSuccess, "query generic password")
        #expect(result.items.count == 1, "return 1-sized array of results")
        var row = try #require(result.items.first, "array row is dictionary")
        #expect(row["persistentRef"]?.stringValue?.isEmpty == false, "result contains valid persistentref")
        #expect(row["valueData"]?.stringValue != nil, "result contains data")
        #expect(row["valueData"] == plist, "returned data are correct")

        query["returnPersistentRef"] = nil
        result = try kc.copyMatching(query)
        #expect(result.status == errSecSuccess, "query generic password")
        #expect(result.items.count == 1, "return 1-sized array of results")
        row = try #require(result.items.first)
        #expect(row.keys == ["valueData"], "result contains data: \(result)")
        #expect(row["valueData"] == plist, "returned data are correct")

        query["returnData"] = nil
        query["returnPersistentRef"] = true
        result = try kc.copyMatching(query)
        #expect(result.status == errSecSuccess, "query generic password")
        #expect(result.items.count == 1, "return 1-sized array of results")
        row = try #require(result.items.first)
        #expect(row.keys == ["persistentRef"], "result contains data: \(result)")
        #expect(row["persistentRef"]?.stringValue?.isEmpty == false, "result contains data")

        #expect(try kc.delete(["class": "genericPassword", "service": service]).status == errSecSuccess, "delete testing item")
    }

    /// si-80-empty-data.c `tests` (rdar://16669564: asking for attributes and data of an item with
    /// no data crashed): a generic password added without data is found, with `matchLimit: all`,
    /// returnData and returnAttributes, as one result with no data and its service and account;
    /// then deleted.
    @Test func si80EmptyData() throws {
        let kc = AppleCalls(try APIFixture())
        let service: JSON = "empty-data-svce-test"
        let added = try kc.add(["class": "genericPassword", "account": "empty-data-account-test", "service": service])
        #expect(added.status == errSecSuccess, "add generic password")

        let result = try kc.copyMatching([
            "class": "genericPassword", "service": service, "matchLimit": "all", "returnData": true, "returnAttributes": true,
        ])
        #expect(result.status == errSecSuccess, "query generic password: \(result)")
        #expect(result.items.count == 1, "return 1-sized array of results")
        let row = try #require(result.items.first, "array row is dictionary")
        #expect(row["valueData"] == nil, "result contains no data: \(result)")
        #expect(result.attributes?["service"] == service, "svce attribute is returned")
        #expect(result.attributes?["account"] == "empty-data-account-test", "account attribute is returned")

        #expect(try kc.delete(["class": "genericPassword", "service": service]).status == errSecSuccess, "delete testing item")
    }

    /// si-82-token-ag.c `tests`: an application not entitled to the CryptoTokenKit access group
    /// `com.apple.token` (kSecAttrAccessGroupToken) may not add a generic password to it
    /// (errSecMissingEntitlement), nor search it: errSecMissingEntitlement where Apple's
    /// CryptoTokenKit `UseTokens` feature is off. keychaind has no smart-card tokens, so that is
    /// the branch it follows; Apple's other branch (errSecItemNotFound) is for a group that every
    /// application may read when CryptoTokenKit is on.
    @Test func si82TokenAccessGroup() throws {
        let fixture = try APIFixture()
        let kc = AppleCalls(fixture, token: try fixture.token(groups: ["123456.test.group"]))
        let dict: JSONObject = ["class": "genericPassword", "service": "test", "accessGroup": "com.apple.token"]
        #expect(try kc.add(dict).status == errSecMissingEntitlement)
        #expect(try kc.copyMatching(dict).status == errSecMissingEntitlement)
    }
}

/// Bytes as the API carries them, base64.
private func bytes(_ bytes: [UInt8]) -> JSON { .string(Base64.encode(bytes)) }

/// si-78-query-attrs.c `vdata`: the altered Safari credit-card entry, a binary plist.
private let si78CreditCardPlist: [UInt8] = [
    0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0x30, 0x30, 0xd3, 0x01, 0x02, 0x03,
    0x04, 0x05, 0x06, 0x5e, 0x43, 0x61, 0x72, 0x64, 0x68, 0x6f, 0x6c, 0x64,
    0x65, 0x72, 0x4e, 0x61, 0x6d, 0x65, 0x5f, 0x10, 0x10, 0x43, 0x61, 0x72,
    0x64, 0x4e, 0x61, 0x6d, 0x65, 0x55, 0x49, 0x53, 0x74, 0x72, 0x69, 0x6e,
    0x67, 0x5a, 0x43, 0x61, 0x72, 0x64, 0x4e, 0x75, 0x6d, 0x62, 0x65, 0x72,
    0x5b, 0x4d, 0x69, 0x74, 0x7a, 0x20, 0x50, 0x65, 0x74, 0x74, 0x65, 0x6c,
    0x50, 0x5f, 0x10, 0x10, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38,
    0x39, 0x38, 0x37, 0x36, 0x36, 0x35, 0x35, 0x35, 0x08, 0x0f, 0x1e, 0x31,
    0x3c, 0x48, 0x49, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5c,
]

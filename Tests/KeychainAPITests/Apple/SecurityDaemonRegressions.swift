import Dispatch
import KeychainBarrier
import KeychainStorage
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

/// `keychain/securityd/Regressions/secd-*` (Security-61901.0.87.0.1), case by case: the tests of
/// securityd itself that concern password items and the lock. Apple's test keybag (locked and
/// unlocked with `aks_lock_bag` / `aks_unlock_bag`) is the keychain's own lock here. Where Apple
/// corrupts a row with SQL on its database file, the port changes the row through the store the
/// keychain runs on (`keychain.store`): the same bytes changed under the server, without HTTP.
@Suite struct SecurityDaemonRegressions {
    /// `secd-01-items.m` `secd_01_items`: locked, adding an internet password (with its data)
    /// is errSecInteractionNotAllowed; unlocked, it succeeds; locked again, adding it again is
    /// errSecInteractionNotAllowed; unlocked, errSecDuplicateItem; the item (the same dictionary
    /// without its data, `returnData` kept) is found while unlocked, and its search is
    /// errSecInteractionNotAllowed while locked.
    @Test func secd01Items() throws {
        let kc = AppleCalls(try APIFixture())
        let item: JSONObject = [
            "class": "internetPassword", "server": "members.spamcop.net", "account": "smith", "port": 80,
            "protocol": "http", "authenticationType": "dflt", "returnData": true, "valueData": data("test"),
        ]
        var query = item
        query["valueData"] = nil
        #expect(try kc.lock().status == errSecSuccess, "lock keybag")
        #expect(try kc.add(item).status == errSecInteractionNotAllowed, "add internet password while locked")
        #expect(try kc.unlock(testPassphrase).status == errSecSuccess, "unlock keybag")
        #expect(try kc.add(item).status == errSecSuccess, "add internet password, while unlocked")
        #expect(try kc.lock().status == errSecSuccess, "lock keybag")
        #expect(try kc.add(item).status == errSecInteractionNotAllowed, "add internet password again, while locked")
        #expect(try kc.unlock(testPassphrase).status == errSecSuccess, "unlock keybag")
        #expect(try kc.add(item).status == errSecDuplicateItem, "add internet password again, while unlocked")
        #expect(try kc.copyMatching(query).status == errSecSuccess, "find internet password, while unlocked")
        #expect(try kc.lock().status == errSecSuccess, "lock keybag")
        #expect(try kc.copyMatching(query).status == errSecInteractionNotAllowed, "find internet password, while locked")
    }

    /// `secd-03-corrupted-items.m` `secd_03_corrupted_items`: an internet password's stored data
    /// is corrupted; a search for it (with its data) runs while 16 threads add items of their own,
    /// and every add succeeds.
    /// Intended difference: securityd deletes a row it cannot decrypt and answers
    /// errSecItemNotFound; keychaind keeps it and answers errSecDecode (500): a ciphertext that
    /// fails authentication is tampering, reported and logged, never silently dropped
    /// (docs/semantics.md §5, docs/threat-model.md, Security model).
    @Test func secd03CorruptedItems() throws {
        let fixture = try APIFixture()
        let kc = AppleCalls(fixture)
        #expect(try kc.add(Self.corruptible(port: 80)).status == errSecSuccess, "add internet password")
        try corruptSecrets(fixture)
        let statuses = Mutex<[Int64]>([])
        let query = Atomic<Int64>(0)
        DispatchQueue.concurrentPerform(iterations: 17) { n in
            if n == 16 {
                let found = try? kc.copyMatching([
                    "class": "internetPassword", "server": "corrupt.spamcop.net", "returnData": true,
                ])
                query.store(found?.status ?? -1, ordering: .relaxed)
            } else {
                let added = try? kc.add(["class": "genericPassword", "service": .string("thread \(n)"), "valueData": data("p")])
                statuses.withLock { $0.append(added?.status ?? -1) }
            }
        }
        #expect(query.load(ordering: .relaxed) == -26275, "query: intended difference for errSecItemNotFound (errSecDecode)")
        #expect(statuses.withLock { $0 } == Array(repeating: errSecSuccess, count: 16), "add thread")
    }

    /// `secd-04-corrupted-items.m` `secd_04_corrupted_items`: three internet passwords (ports 80,
    /// 81, 82); updating 81's port to 80 is errSecDuplicateItem; the first and third are
    /// corrupted; Apple's update then succeeds (securityd dropped the corrupted item 80) and the
    /// moved item is found under port 80.
    /// Intended difference: keychaind drops nothing it cannot open, so item 80 still holds its
    /// primary key: the update is still errSecDuplicateItem and changes nothing, and reading the
    /// corrupted item's attributes is errSecDecode.
    @Test func secd04CorruptedItems() throws {
        let fixture = try APIFixture()
        let kc = AppleCalls(fixture)
        for port: Int64 in [80, 81, 82] {
            #expect(try kc.add(Self.corruptible(port: port)).status == errSecSuccess, "add internet password port \(port)")
        }
        let query: JSONObject = ["class": "internetPassword", "server": "corrupt.spamcop.net", "port": 81]
        #expect(try kc.update(query, ["port": 80]).status == errSecDuplicateItem, "update internet password port 80 to 81")
        try corruptAttributes(fixture, ports: [80, 82])
        #expect(try kc.update(query, ["port": 80]).status == errSecDuplicateItem, "intended difference: still a duplicate")
        let item80 = try kc.copyMatching([
            "class": "internetPassword", "server": "corrupt.spamcop.net", "port": 80, "returnAttributes": true,
        ])
        #expect(item80.status == -26275, "intended difference: the corrupted item 80 is errSecDecode, not dropped")
        #expect(try kc.copyMatching(query).status == errSecSuccess, "item 81 is where it was")
    }

    /// `secd-05-corrupted-items.m` `secd_05_corrupted_items`: 20 internet passwords (ports 1 to
    /// 20) are all corrupted; while 16 threads each add items of their own, every corrupted item
    /// is looked up by its port, and every add succeeds.
    /// Intended difference: as secd-03, each lookup of a corrupted item (here with its data) is
    /// errSecDecode rather than errSecItemNotFound.
    @Test func secd05CorruptedItems() throws {
        let fixture = try APIFixture()
        let kc = AppleCalls(fixture)
        for port: Int64 in 1...20 {
            #expect(try kc.add(Self.corruptible(port: port)).status == errSecSuccess, "add internet password")
        }
        try corruptSecrets(fixture)
        let adds = Mutex<[Int64]>([])
        let lookups = Mutex<[Int64]>([])
        DispatchQueue.concurrentPerform(iterations: 36) { n in
            if n < 16 {
                for i in 0..<4 {
                    let item: JSONObject = [
                        "class": "genericPassword", "service": .string("thread \(n)"), "account": .string("\(i)"),
                        "valueData": data("p"),
                    ]
                    let added = try? kc.add(item)
                    adds.withLock { $0.append(added?.status ?? -1) }
                }
            } else {
                let port = Int64(n - 15)
                let found = try? kc.copyMatching([
                    "class": "internetPassword", "server": "corrupt.spamcop.net", "port": .int(port), "returnData": true,
                ])
                lookups.withLock { $0.append(found?.status ?? -1) }
            }
        }
        #expect(adds.withLock { $0 } == Array(repeating: errSecSuccess, count: 64), "add thread")
        #expect(
            lookups.withLock { $0 } == Array(repeating: -26275, count: 20), "Item not found: intended difference, errSecDecode")
    }

    /// `secd-82-persistent-ref.m` `secd_82_persistent_ref`: a generic password (accessible always,
    /// label, description, account, service, 3 bytes of data) is added; a search by account with
    /// `synchronizable: any`, attributes, persistent references and `matchLimit: all` finds one
    /// item, which carries a persistent reference.
    @Test func secd82PersistentRef() throws {
        let kc = AppleCalls(try APIFixture())
        let added = try kc.add([
            "class": "genericPassword", "accessible": "dk", "label": "TestLabel", "description": "TestDescription",
            "account": "TestAccount", "service": "TestService", "valueData": .string(Base64.encode([0, 1, 2])),
        ])
        #expect(added.status == errSecSuccess, "\(added)")
        let found = try kc.copyMatching([
            "class": "genericPassword", "synchronizable": "any", "account": "TestAccount", "returnAttributes": true,
            "returnPersistentRef": true, "matchLimit": "all",
        ])
        #expect(found.status == errSecSuccess)
        #expect(found.items.count == 1)
        #expect(found.persistentRef?.isEmpty == false, "the item carries its persistent reference")
    }

    /// `secd-83-item-match-valid-on-date.m` `secd_83_item_match_valid_on_date`: the six test
    /// certificates of `addTestCertificates` (two S/MIME, two SSL client, two SSL server, all valid
    /// from 2016-04-07 to 2017-04-07) are added by their refs; then, with each return key
    /// (attributes, data, ref, persistent ref) in turn, every certificate is 6, every one valid on
    /// 2016-04-07 16:00 GMT is 6, and none is valid on 2016-04-06 or 2017-04-08
    /// (errSecItemNotFound). Apple's count checks after those two read the array of the search
    /// before, which it did not release: left out.
    @Test func secd83ItemMatchValidOnDate() throws {
        let kc = AppleCalls(try APIFixture())
        try Self.addTestCertificates(kc)
        for returnKey in ["returnAttributes", "returnData", "returnRef", "returnPersistentRef"] {
            let all = try kc.copyMatching(["class": "certificate", "matchLimit": "all", returnKey: true])
            #expect(all.status == errSecSuccess && all.items.count == 6, "\(returnKey): every certificate")
            for (date, expected) in [
                ("2016-04-07T16:00:00Z", errSecSuccess), ("2016-04-06T16:00:00Z", errSecItemNotFound),
                ("2017-04-08T16:00:00Z", errSecItemNotFound),
            ] {
                let found = try kc.copyMatching([
                    "class": "certificate", "matchLimit": "all", "matchValidOnDate": .string(date), returnKey: true,
                ])
                #expect(found.status == expected, "\(returnKey), valid on \(date): \(found)")
                #expect(found.items.count == (expected == errSecSuccess ? 6 : 0), "\(returnKey), valid on \(date)")
            }
        }
    }

    /// `secd-83-item-match-policy.m` `secd_83_item_match_policy`, in part: the six test
    /// certificates are added, and every certificate is 6 with each return key. Left out: the
    /// `kSecMatchPolicy` searches (S/MIME and SSL policies, with e-mail or host names: trust policy
    /// evaluation, which keychaind does not do).
    @Test func secd83ItemMatchPolicy() throws {
        let kc = AppleCalls(try APIFixture())
        try Self.addTestCertificates(kc)
        for returnKey in ["returnAttributes", "returnData", "returnRef", "returnPersistentRef"] {
            let all = try kc.copyMatching(["class": "certificate", "matchLimit": "all", returnKey: true])
            #expect(all.status == errSecSuccess && all.items.count == 6, "\(returnKey): every certificate")
        }
    }

    /// `secd-83-item-match-trusted.m` `secd_83_item_match_trusted`, in part: the six test
    /// certificates are added, and every certificate is 6 with each return key. Left out: the
    /// `kSecMatchTrustedOnly` searches (errSecItemNotFound: none is trusted; trust evaluation,
    /// which keychaind does not do).
    @Test func secd83ItemMatchTrusted() throws {
        let kc = AppleCalls(try APIFixture())
        try Self.addTestCertificates(kc)
        for returnKey in ["returnAttributes", "returnData", "returnRef", "returnPersistentRef"] {
            let all = try kc.copyMatching(["class": "certificate", "matchLimit": "all", returnKey: true])
            #expect(all.status == errSecSuccess && all.items.count == 6, "\(returnKey): every certificate")
        }
    }

    /// secd-83-item-match-policy.m `addTestCertificates`: each of the six certificates added by
    /// its ref.
    private static func addTestCertificates(_ kc: AppleCalls) throws {
        for der in [
            AppleTestData.secd83SMIME1, AppleTestData.secd83SMIME2, AppleTestData.secd83SSLClient1,
            AppleTestData.secd83SSLClient2,
            AppleTestData.secd83SSLServer1, AppleTestData.secd83SSLServer2,
        ] {
            #expect(try kc.add(AppleRef.addCertificate(der)).status == errSecSuccess, "Add tet certificate")
        }
    }

    /// The internet password Apple's secd-03/04/05 corrupt: corrupt.spamcop.net, smith, HTTP,
    /// default authentication, data "test", on `port`.
    private static func corruptible(port: Int64) -> JSONObject {
        [
            "class": "internetPassword", "server": "corrupt.spamcop.net", "account": "smith", "port": .int(port),
            "protocol": "kSecAttrProtocolHTTP", "authenticationType": "kSecAttrAuthenticationTypeDefault",
            "valueData": data("test"),
        ]
    }
}

/// Apple's `UPDATE inet SET data=X'12345678'`: every stored internet password's secret becomes
/// those four bytes.
private func corruptSecrets(_ fixture: APIFixture) throws {
    try corrupt(fixture, ItemFilter(classes: [ItemClass.internetPassword.rawValue])) { $0.secret = [0x12, 0x34, 0x56, 0x78] }
}

/// The sealed attributes of the internet passwords on `ports` get one byte flipped: what
/// securityd's corrupted `data` column holds for the attributes.
private func corruptAttributes(_ fixture: APIFixture, ports: [Int64]) throws {
    for port in ports {
        let found = try AppleCalls(fixture).copyMatching([
            "class": "internetPassword", "port": .int(port), "returnPersistentRef": true,
        ])
        let ref = try #require(found.persistentRef.flatMap(PersistentRef.decode))
        try corrupt(fixture, ItemFilter(ref: ref)) { $0.attributes[$0.attributes.count - 1] ^= 0xFF }
    }
}

/// Rewrites the rows `filter` selects, changed by `change`, keeping their lookup digests (which
/// a store read does not return: they are made again from the attributes, as the keychain does).
private func corrupt(_ fixture: APIFixture, _ filter: ItemFilter, _ change: @escaping (inout ItemRecord) -> Void) throws {
    let barrier = try fixture.keychain.barrier()
    try fixture.keychain.store.write { writer in
        for record in try writer.items(matching: filter) {
            var item = try DecodedItem(record, barrier: barrier)
            try item.reseal(barrier: barrier)
            var corrupted = item.record
            change(&corrupted)
            try writer.replace(corrupted)
        }
    }
}

import Dispatch
import Synchronization
import TestSupport
import Testing

/// `OSX/libsecurity_keychain/regressions/kc-*` (Security-61901.0.87.0.1), case by case: the macOS
/// file-keychain tests. keychaind serves one keychain: Apple's `createNewKeychain("test", "test")`
/// and `getPopulatedTestKeychain()` are a fresh `APIFixture` (its passphrase `testPassphrase`),
/// populated with the password items of Apple's populated keychain that apply; the
/// `SecKeychainItem…` and `SecKeychainFind…` calls are the SecItem calls they wrap. The legacy
/// `SecKeychainAdd…Password` calls label an item with its service (or server): the ports say so
/// in the add. A password's item reference (`kSecReturnRef`, which gives a password nothing:
/// docs/api.md) is its persistent reference here. The certificate, key and identity tests are in
/// KeychainFileCertificateRegressions.swift.
@Suite struct KeychainFileRegressions {
    /// `kc-02-unlock-noui.c` `kc_02_unlock_noui`: with no UI, unlocking with a NULL password is
    /// errSecAuthFailed, after a lock and again after reopening the locked keychain (here: the
    /// same server, whose lock state is the keychain's).
    @Test func kc02UnlockNoUI() throws {
        let kc = AppleCalls(try APIFixture())
        #expect(try kc.lock().status == errSecSuccess, "SecKeychainLock")
        #expect(try kc.unlock("").status == errSecAuthFailed, "SecKeychainUnlock")
        #expect(try kc.lock().status == errSecSuccess, "SecKeychainLock")
        #expect(try kc.unlock("").status == errSecAuthFailed, "SecKeychainUnlock of the reopened, locked keychain")
    }

    /// `kc-01-keychain-creation.c` `kc_01_keychain_creation`: SecKeychainCreate of "test"
    /// succeeds, SecKeychainOpen of it succeeds and names the same keychain, and SecKeychainDelete
    /// deletes it. Left out: the handles' retain counts (a name stands for a handle over HTTP).
    /// Here too: the keychain deleted is gone (errSecNoSuchKeychain), and its name can be created again.
    @Test func kc01KeychainCreation() throws {
        let kc = AppleCalls(try APIFixture())
        let created = try kc.createKeychain("test", password: "test")
        #expect(created.status == errSecSuccess, "SecKeychainCreate")
        let opened = try kc.openKeychain("test")
        #expect(opened.status == errSecSuccess, "SecKeychainOpen")
        #expect(opened.response.json["name"] == created.response.json["name"], "the same keychain")
        #expect(try kc.deleteKeychain("test").status == errSecSuccess, "SecKeychainDelete")
        #expect(try kc.openKeychain("test").status == errSecNoSuchKeychain)
        #expect(try kc.createKeychain("test", password: "test").status == errSecSuccess)
    }

    /// `kc-03-keychain-list.c` `tests`: the search list gains the keychain made
    /// (`getPopulatedTestKeychain`) and set into it, and after SecKeychainDelete it is the initial
    /// list again. **Intended difference** (docs/keychains.md#tokens-and-search-lists): a token's
    /// search list is set when the token is made, so SecKeychainSetSearchList is a token made
    /// with the list; a `*` token's list, as the administrator's here, holds every keychain, the
    /// new one as soon as it is made.
    @Test func kc03KeychainList() throws {
        let fixture = try APIFixture()
        let kc = AppleCalls(fixture)
        let initial = try kc.searchList()
        #expect(initial == ["default"], "SecKeychainCopySearchList")
        #expect(try kc.createKeychain("test", password: "test").status == errSecSuccess)
        // getPopulatedTestKeychain: the password items it holds, in the new keychain.
        for itemClass in ["internetPassword", "genericPassword"] {
            var item = customItem(itemClass, label: "test_service", account: "test_account", service: "test_service")
            item["useKeychain"] = "test"
            #expect(try kc.add(item).status == errSecSuccess, "populating")
        }
        let set = initial + ["test"]
        let created = try fixture.call(
            "POST", "/v1/tokens",
            json: #"{"name":"kc-03","accessGroups":["*"],"keychains":\#(jsonArray(set)),"capabilities":["read"]}"#)
        #expect(created.status == 201, "SecKeychainSetSearchList")
        let listed = kc.with(token: try #require(created.json["token"]?.stringValue))
        #expect(try listed.searchList() == set, "retrieved search list equal to set search list")
        #expect(try kc.searchList() == set, "a * token's list holds the new keychain")
        #expect(try kc.deleteKeychain("test").status == errSecSuccess, "SecKeychainDelete")
        #expect(try kc.searchList() == initial, "final search list equal to initial search list")
        #expect(try listed.searchList() == initial)
    }

    /// `kc-03-status.c` `tests`, in part: a new keychain's status is unlocked, readable and
    /// writable; locked, readable and writable; then twice (Apple: on the created keychain, then
    /// on it reopened) a NULL-password unlock is errSecAuthFailed and leaves it locked, the right
    /// password unlocks it, and it locks again. Left out: the status of a keychain file or
    /// directory made read-only with chmod (a file keychain's permissions; keychaind's store is
    /// its own).
    @Test func kc03Status() throws {
        let kc = AppleCalls(try APIFixture())
        #expect(try kc.keychainStatus() == 7, "status unlocked readable writable")
        #expect(try kc.lock().status == errSecSuccess, "SecKeychainLock kc1")
        #expect(try kc.keychainStatus() == 6, "status (locked) readable writable")
        for _ in 0..<2 {
            #expect(try kc.unlock("").status == errSecAuthFailed, "SecKeychainUnlock with NULL password (incorrect)")
            #expect(try kc.keychainStatus().map { $0 & 1 } == 0, "Check it's not unlocked")
            #expect(try kc.unlock(testPassphrase).status == errSecSuccess, "SecKeychainUnlock with correct password")
            #expect(try kc.keychainStatus().map { $0 & 1 } == 1, "Check it's unlocked")
            #expect(try kc.lock().status == errSecSuccess, "SecKeychainLock")
        }
    }

    /// `kc-05-find-existing-items.c` `tests`, in part: in the populated keychain, the internet
    /// and the generic password of `test_service` are each found once and read `test_password`.
    /// Left out: the items under a restrictive ACL (keychaind has no per-item ACLs: access is the
    /// token's groups); the keys and certificates are
    /// KeychainFileCertificateRegressions.kc05FindExistingKeysAndCertificates.
    @Test func kc05FindExistingItems() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        for itemClass in ["internetPassword", "genericPassword"] {
            let refs = try checkN(kc, customQuery(itemClass, label: "test_service", service: "test_service"), 1)
            #expect(try readPassword(kc, refs.first) == "test_password", "readPasswordContents \(itemClass)")
        }
    }

    /// `kc-05-find-existing-items-locked.c` `tests`, in part: the internet password is found,
    /// the keychain locks, and the password items are still found (attributes stay searchable)
    /// but their passwords cannot be read.
    /// Intended difference: Apple answers errSecAuthFailed ("what securityd throws if UI access is
    /// not allowed"); keychaind answers errSecInteractionNotAllowed (423) for a `whenUnlocked`
    /// secret while locked, as the data-protection keychain does (docs/semantics.md §2).
    /// Left out: restrictive-ACL items; the keys and certificates are
    /// KeychainFileCertificateRegressions.kc05FindExistingKeysAndCertificatesLocked.
    @Test func kc05FindExistingItemsLocked() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        _ = try checkN(kc, customQuery("internetPassword", label: "test_service", service: "test_service"), 1)
        #expect(try kc.lock().status == errSecSuccess, "SecKeychainLock")
        for itemClass in ["internetPassword", "genericPassword"] {
            let refs = try checkN(kc, customQuery(itemClass, label: "test_service", service: "test_service"), 1)
            let read = try kc.copyMatching(["valuePersistentRef": .string(refs.first ?? ""), "returnData": true])
            #expect(read.status == errSecInteractionNotAllowed, "intended difference for errSecAuthFailed: \(read)")
        }
    }

    /// `kc-10-item-add-generic.c` `tests`: adding a generic password succeeds; adding it again
    /// is errSecDuplicateItem; its content is the 4 bytes "test".
    @Test func kc10ItemAddGeneric() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        let item: JSONObject = [
            "class": "genericPassword", "service": "service", "account": "account", "label": "service", "valueData": data("test"),
        ]
        #expect(try kc.add(item).status == errSecSuccess, "add generic password")
        #expect(try kc.add(item).status == errSecDuplicateItem, "add generic password again")
        let content = try kc.copyMatching([
            "class": "genericPassword", "service": "service", "account": "account", "returnData": true,
        ])
        #expect(content.status == errSecSuccess, "SecKeychainItemCopyContent")
        #expect(content.data == "test", "Item data is right")
    }

    /// `kc-10-item-add-internet.c` `tests`: an internet password for members.spamcop.net, port 80,
    /// HTTP, default authentication, account smith is added; again is errSecDuplicateItem; found
    /// by server, port, protocol and authentication type, its class is internet password, its
    /// account "smith", its security domain empty and its server "members.spamcop.net".
    @Test func kc10ItemAddInternet() throws {
        let kc = AppleCalls(try APIFixture())
        let item: JSONObject = [
            "class": "internetPassword", "server": "members.spamcop.net", "account": "smith", "port": 80,
            "protocol": "kSecAttrProtocolHTTP", "authenticationType": "kSecAttrAuthenticationTypeDefault",
            "label": "members.spamcop.net", "valueData": data("test"),
        ]
        #expect(try kc.add(item).status == errSecSuccess, "add internet password")
        #expect(try kc.add(item).status == errSecDuplicateItem, "add internet password again")
        let found = try kc.copyMatching([
            "class": "internetPassword", "server": "members.spamcop.net", "port": 80, "protocol": "http",
            "authenticationType": "dflt", "returnAttributes": true,
        ])
        #expect(found.status == errSecSuccess, "find internet password")
        let attributes = try #require(found.attributes, "\(found)")
        #expect(attributes["class"] == "internetPassword", "is internet password?")
        #expect(attributes["account"] == "smith", "account eq smith")
        #expect((attributes["securityDomain"]?.stringValue ?? "").isEmpty, "security domain len")
        #expect(attributes["server"] == "members.spamcop.net", "servername eq members.spamcop.net")
    }

    /// `kc-15-item-update-label-skimaad.m`: a generic password (SurfWriter, MyUserAcct) is found
    /// once under its label and service, not under "New Item Label" / "New Service", and reads its
    /// password; SecKeychainFindGenericPassword by service and account returns the password;
    /// SecKeychainItemModifyAttributesAndData changes label, account, service and password at
    /// once: the old query finds nothing, the new one finds the item, which reads the new password.
    @Test func kc15ItemUpdateLabel() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        let add: JSONObject = [
            "class": "genericPassword", "service": "SurfWriter", "account": "MyUserAcct", "label": "SurfWriter",
            "valueData": data("myP4sSw0rD"),
        ]
        #expect(try kc.add(add).status == errSecSuccess, "SecKeychainAddGenericPassword")
        let old = customQuery("genericPassword", label: "SurfWriter", service: "SurfWriter")
        let new = customQuery("genericPassword", label: "New Item Label", service: "New Service")
        let refs = try checkN(kc, old, 1)
        _ = try checkN(kc, new, 0)
        #expect(try readPassword(kc, refs.first) == "myP4sSw0rD")
        let found = try kc.copyMatching([
            "class": "genericPassword", "service": "SurfWriter", "account": "MyUserAcct", "returnData": true,
        ])
        #expect(found.status == errSecSuccess, "SecKeychainFindGenericPassword")
        #expect(found.data == "myP4sSw0rD", "Recieved password data")
        let changed = try kc.update(
            ["valuePersistentRef": .string(refs.first ?? "")],
            ["label": "New Item Label", "account": "New Account", "service": "New Service", "valueData": data("myNewP4sSw0rD")])
        #expect(changed.status == errSecSuccess, "SecKeychainItemModifyAttributesAndData: \(changed)")
        _ = try checkN(kc, old, 0)
        let moved = try checkN(kc, new, 1)
        #expect(try readPassword(kc, moved.first) == "myNewP4sSw0rD")
    }

    /// `kc-16-item-update-password.c` `tests`, in part: the internet and the generic password of
    /// `test_service` each read `test_password`, change to `new_password`, and read it back.
    /// Left out: the restrictive-ACL items (no per-item ACLs).
    @Test func kc16ItemUpdatePassword() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        for itemClass in ["internetPassword", "genericPassword"] {
            let refs = try checkN(kc, customQuery(itemClass, label: "test_service", service: "test_service"), 1)
            #expect(try readPassword(kc, refs.first) == "test_password", "readPasswordContents")
            let changed = try kc.update(["valuePersistentRef": .string(refs.first ?? "")], ["valueData": data("new_password")])
            #expect(changed.status == errSecSuccess, "changePasswordContents \(itemClass)")
            #expect(try readPassword(kc, refs.first) == "new_password", "reading a changed \(itemClass)")
        }
    }

    /// `kc-18-find-combined.c` `kc_18_find_combined`, the password parts: `TestAddItems` adds two
    /// generic passwords (Test Service 42 and 69, account nobody) and three internet passwords
    /// (test1.subdomain.apple.com HTTP 80, test2.subdomain.apple.com HTTPS 443, mail.apple.com
    /// IMAP 143); `TestGenericPasswordLookup` and `TestInternetPasswordLookup` find them by
    /// account and service or server with data, with attributes, and all of an account's items;
    /// `FindMailPassword` finds the IMAP password as data; `TestDeleteItems` deletes each by
    /// label (and account) with the query that found it, `matchLimit: all` included, after which
    /// the query finds nothing. The certificates, identities, keys and `TestUpdateItems` (a key
    /// pair) are KeychainFileCertificateRegressions.kc18FindCombinedCertificatesIdentitiesKeys.
    @Test func kc18FindCombined() throws {
        let kc = AppleCalls(try APIFixture())
        for service in ["Test Service 42", "Test Service 69"] {
            let item: JSONObject = [
                "class": "genericPassword", "service": .string(service), "account": "nobody", "label": .string(service),
                "valueData": data("weakpass"),
            ]
            #expect(try kc.add(item).status == errSecSuccess, "add \(service) generic password")
        }
        let internet: [(server: String, account: String, port: Int64, scheme: String, password: String)] = [
            ("test1.subdomain.apple.com", "nobody", 80, "http", "weakpass"),
            ("test2.subdomain.apple.com", "nobody", 443, "htps", "weakpass"),
            ("mail.apple.com", "testacct", 143, "imap", "testpass"),
        ]
        for entry in internet {
            let item: JSONObject = [
                "class": "internetPassword", "server": .string(entry.server), "account": .string(entry.account),
                "port": .int(entry.port), "protocol": .string(entry.scheme), "authenticationType": "dflt",
                "label": .string(entry.server), "valueData": data(entry.password),
            ]
            #expect(try kc.add(item).status == errSecSuccess, "add \(entry.server) internet password")
        }

        let generic: JSONObject = ["class": "genericPassword", "account": "nobody", "service": "Test Service 42"]
        let server: JSONObject = ["class": "internetPassword", "account": "nobody", "server": "test2.subdomain.apple.com"]
        for query in [generic, server] {
            var withData = query
            withData["returnData"] = true
            withData["matchLimit"] = "one"
            let data = try kc.copyMatching(withData)
            #expect(data.status == errSecSuccess && data.data == "weakpass", "by account and service/server, as data")
            var withAttributes = query
            withAttributes["returnAttributes"] = true
            withAttributes["matchLimit"] = "one"
            let attributes = try kc.copyMatching(withAttributes)
            #expect(attributes.status == errSecSuccess && attributes.attributes?["account"] == "nobody", "as attributes")
        }
        for itemClass in ["genericPassword", "internetPassword"] {
            let all = try kc.copyMatching([
                "class": .string(itemClass), "account": "nobody", "returnPersistentRef": true, "matchLimit": "all",
            ])
            #expect(all.status == errSecSuccess && all.items.count >= 1, "by account, every item")
        }
        let mail = try kc.copyMatching([
            "class": "internetPassword", "account": "testacct", "server": "mail.apple.com", "protocol": "kSecAttrProtocolIMAP",
            "port": 143, "matchLimit": "one", "returnData": true,
        ])
        #expect(mail.status == errSecSuccess && mail.data == "testpass", "FindMailPassword")

        let deletions: [(label: String, account: String?, itemClass: String)] = [
            ("Test Service 42", nil, "genericPassword"), ("Test Service 69", nil, "genericPassword"),
            ("test1.subdomain.apple.com", nil, "internetPassword"), ("test2.subdomain.apple.com", nil, "internetPassword"),
            ("mail.apple.com", "testacct", "internetPassword"),
        ]
        for deletion in deletions {
            var query: JSONObject = ["class": .string(deletion.itemClass), "label": .string(deletion.label), "matchLimit": "all"]
            if let account = deletion.account { query["account"] = .string(account) }
            #expect(try kc.copyMatching(query).items.count == 1, "FindAndDeleteItemsByName: \(deletion.label)")
            #expect(try kc.delete(query).status == errSecSuccess, "the same query must work for SecItemDelete")
            #expect(try kc.copyMatching(query).status == errSecItemNotFound, "re-run: no matching items")
        }
    }

    /// `kc-20-item-add-stress.c` `tests`: 300 blocks on a concurrent queue each add their own
    /// internet password, find it once, read "data", update its data to "differentdata", read
    /// that, delete it, and find it no more. Scaled down: 60 blocks, all at once.
    @Test func kc20ItemAddStress() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 60) { i in
            do {
                let label = "testItem" + String(i).leftPadded(5)
                let service = "testService" + String(i).leftPadded(5)
                let failure = try lifeCycle(kc, label: label, service: service)
                if let failure { failures.withLock { $0.append("\(label): \(failure)") } }
            } catch {
                failures.withLock { $0.append("\(i): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
    }

    /// `kc-20-item-delete-stress.c` `tests`: with a callback for add and delete events
    /// registered, 30 blocks at once each add an internet password and delete it; every call
    /// succeeds. The callback here also checks what it got: an add and then a delete of each of
    /// the 30 items. Left out: the random sleeps, which only let Apple's callback run between
    /// the blocks.
    @Test func kc20ItemDeleteStress() throws {
        let kc = AppleCalls(try APIFixture())
        let callback = try kc.addCallback()
        let statuses = Mutex<[Int64]>([])
        DispatchQueue.concurrentPerform(iterations: 30) { i in
            let label = "testItem" + String(i).leftPadded(5)
            let item = customItem(
                "internetPassword", label: label, account: "testAccount", service: "testService" + String(i).leftPadded(5))
            let added = try? kc.add(item)
            let deleted = try? kc.delete(["valuePersistentRef": .string(added?.persistentRef ?? "")])
            statuses.withLock { $0 += [added?.status ?? -1, deleted?.status ?? -1] }
        }
        #expect(statuses.withLock { $0 } == Array(repeating: errSecSuccess, count: 60), "SecItemAdd, SecKeychainItemDelete")
        let events = callback.received()
        let byItem = Dictionary(grouping: events) { $0.data["persistentRef"]?.stringValue ?? "" }
        #expect(byItem.count == 30, "30 items seen by the callback")
        #expect(byItem.values.allSatisfy { $0.map(\.name) == ["add", "delete"] }, "each added, then deleted")
    }

    /// `kc-21-item-use-callback.c` `kc_21_item_use_callback`: a callback for add events
    /// registered, a generic password added (account "account", service "service", password
    /// "password" with its NUL: 9 bytes) calls it with kSecAddEvent and the item; the item's
    /// content read there has those attributes and those 9 bytes; the item deleted there is gone.
    /// Intended difference: Apple's callback gets a SecKeychainItemRef; keychaind's event names
    /// the item by its persistent reference, which the content is read and the item deleted by
    /// (an event carries no value: docs/events.md).
    @Test func kc21ItemUseCallback() throws {
        let kc = AppleCalls(try APIFixture())
        let callback = try kc.addCallback()
        let password = Base64.encode(Array("password".utf8) + [0])
        let added = try kc.add([
            "class": "genericPassword", "account": "account", "service": "service", "valueData": .string(password),
        ])
        #expect(added.status == errSecSuccess, "add generic password")
        let events = callback.received()
        #expect(events.map(\.name) == ["add"], "Got an incorrect keychain event")
        let ref = try #require(events.first?.data["persistentRef"]?.stringValue, "info->item is NULL")
        let content = try kc.copyMatching([
            "valuePersistentRef": .string(ref), "returnAttributes": true, "returnData": true,
        ])
        #expect(content.status == errSecSuccess, "get item data in callback")
        #expect(content.dataBytes?.count == 9, "SecKeychainItemCopyContent() returns bad data on items from notifications")
        #expect(content.dataBytes == Array("password".utf8) + [0], "password data matches.")
        #expect(content.attributes?["account"] == "account" && content.attributes?["service"] == "service")
        #expect(try kc.delete(["valuePersistentRef": .string(ref)]).status == errSecSuccess, "delete item")
        #expect(try kc.copyMatching(["valuePersistentRef": .string(ref)]).status == errSecItemNotFound)
        #expect(callback.received().map(\.name) == ["delete"])
    }

    /// `kc-20-item-find-stress.c` `tests`: 7,000 searches for the populated internet password,
    /// 64 at a time, all succeed. Scaled down: 640 searches, 64 at a time.
    @Test func kc20ItemFindStress() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        var one = customQuery("internetPassword", label: "test_service", service: "test_service")
        one["matchLimit"] = "one"
        let query = one
        let found = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            for _ in 0..<10 where (try? kc.copyMatching(query).status) == errSecSuccess {
                found.add(1, ordering: .relaxed)
            }
        }
        #expect(found.load(ordering: .relaxed) == 640, "SecItemCopyMatching")
    }

    /// `kc-45-change-password.c` `kc_45_change_password`: on a keychain created with "before",
    /// locked, a password change with a NULL old password is refused, and one with a bad old
    /// password is errSecAuthFailed; unlocked, a NULL or bad old password is errSecAuthFailed and
    /// the right one changes it; locked again, the right one changes it again.
    /// Intended difference: Apple's NULL old password on a locked keychain asks for the UI and is
    /// errSecInteractionNotAllowed without it; keychaind has no UI and takes an empty passphrase
    /// as a wrong one: errSecAuthFailed, counted (docs/semantics.md §1).
    @Test func kc45ChangePassword() throws {
        let kc = AppleCalls(try APIFixture())
        #expect(try kc.lock().status == errSecSuccess, "SecKeychainLock")
        #expect(try kc.changePassphrase(old: "", new: "after").status == errSecAuthFailed, "Change PW w/ null pw while locked")
        #expect(
            try kc.changePassphrase(old: "badpw", new: "after").status == errSecAuthFailed, "Change PW w/ bad pw while locked")
        #expect(try kc.unlock(testPassphrase).status == errSecSuccess, "SecKeychainUnlock")
        #expect(try kc.changePassphrase(old: "", new: "after").status == errSecAuthFailed, "Change PW w/ null pw while unlocked")
        #expect(
            try kc.changePassphrase(old: "badpw", new: "after").status == errSecAuthFailed, "Change PW w/ bad pw while unlocked")
        #expect(
            try kc.changePassphrase(old: testPassphrase, new: "between").status == errSecSuccess,
            "Change PW w/ good pw while unlocked")
        #expect(try kc.lock().status == errSecSuccess, "SecKeychainLock")
        #expect(
            try kc.changePassphrase(old: "between", new: "after").status == errSecSuccess, "Change PW w/ good pw while locked")
        #expect(try kc.unlock("after").status == errSecSuccess, "the new password unlocks")
    }
}

// MARK: kc-helpers.h and kc-item-helpers.h, as far as they apply

/// The password items of Apple's populated test keychain (`getPopulatedTestKeychain`) that
/// keychaind has: an internet and a generic password for `test_service`, password `test_password`.
private func populate(_ kc: AppleCalls) throws {
    for itemClass in ["internetPassword", "genericPassword"] {
        var item = customItem(itemClass, label: "test_service", account: "test_account", service: "test_service")
        item["valueData"] = data("test_password")
        let added = try kc.add(item)
        #expect(added.status == errSecSuccess, "populating: \(added)")
    }
}

/// `createAddCustomItemDictionaryWithService`: label, account, a comment, the service (the
/// server and default authentication for an internet password), and the data "data".
private func customItem(_ itemClass: String, label: String, account: String, service: String) -> JSONObject {
    var item = customQuery(itemClass, label: label, service: service)
    item["account"] = .string(account)
    item["comment"] = "a comment"
    item["valueData"] = data("data")
    return item
}

/// `createQueryCustomItemDictionaryWithService`: the class, the label, and the service (the
/// server and default authentication for an internet password).
private func customQuery(_ itemClass: String, label: String, service: String) -> JSONObject {
    var query: JSONObject = ["class": .string(itemClass), "label": .string(label)]
    if itemClass == "internetPassword" {
        query["server"] = .string(service)
        query["authenticationType"] = "dflt"
    } else {
        query["service"] = .string(service)
    }
    return query
}

/// `checkN`: the query with `matchLimit: all` finds exactly `count` items (none:
/// errSecItemNotFound); their persistent references, standing for the item references.
private func checkN(_ kc: AppleCalls, _ query: JSONObject, _ count: Int, sourceLocation: SourceLocation = #_sourceLocation)
    throws -> [String]
{
    var all = query
    all["matchLimit"] = "all"
    all["returnPersistentRef"] = true
    let found = try kc.copyMatching(all, sourceLocation: sourceLocation)
    #expect(found.status == (count == 0 ? errSecItemNotFound : errSecSuccess), "\(found)", sourceLocation: sourceLocation)
    #expect(found.items.count == count, "checkN: \(count) items", sourceLocation: sourceLocation)
    return found.items.compactMap { $0["persistentRef"]?.stringValue }
}

/// `readPasswordContents`: the item's data, as a string.
private func readPassword(_ kc: AppleCalls, _ ref: String?) throws -> String? {
    try kc.copyMatching(["valuePersistentRef": .string(ref ?? ""), "returnData": true]).data
}

/// One block of kc-20-item-add-stress; what went wrong, if anything.
private func lifeCycle(_ kc: AppleCalls, label: String, service: String) throws -> String? {
    let added = try kc.add(customItem("internetPassword", label: label, account: "testAccount", service: service))
    guard added.status == errSecSuccess else { return "SecItemAdd: \(added)" }
    let query = customQuery("internetPassword", label: label, service: service)
    var all = query
    all["matchLimit"] = "all"
    let found = try kc.copyMatching(all)
    guard found.items.count == 1, let ref = found.persistentRef else { return "checkN 1: \(found)" }
    guard try readPassword(kc, ref) == "data" else { return "readPasswordContents data" }
    let updated = try kc.update(query, ["valueData": data("differentdata")])
    guard updated.status == errSecSuccess else { return "SecItemUpdate: \(updated)" }
    guard try readPassword(kc, ref) == "differentdata" else { return "readPasswordContents differentdata" }
    let deleted = try kc.delete(["valuePersistentRef": .string(ref)])
    guard deleted.status == errSecSuccess else { return "SecKeychainItemDelete: \(deleted)" }
    let gone = try kc.copyMatching(all)
    return gone.status == errSecItemNotFound ? nil : "checkN 0: \(gone)"
}

extension String {
    /// Zero-padded to `width` digits (`%05d`).
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

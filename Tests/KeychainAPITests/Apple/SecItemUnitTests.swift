import TestSupport
import Testing

/// `keychain/SecurityUnitTests/SecItemTests.m` (Security-61901.0.87.0.1), test by test. Apple's
/// `setUp`/`tearDown` delete every generic and internet password; here each test has a keychain
/// of its own. `kSecUseDataProtectionKeychain`, which every Apple dictionary carries, is left out:
/// keychaind has only the one keychain (docs/api.md: accepted and ignored).
@Suite struct SecItemUnitTests {
    /// Apple's `addGenericPassword:service:` helper: SecItemAdd of a generic password (secret
    /// "password", afterFirstUnlock) asking for its attributes.
    private func addGenericPassword(_ kc: AppleCalls, account: String, service: String) throws -> AppleAnswer {
        try kc.add([
            "class": "genericPassword", "valueData": data("password"), "account": .string(account),
            "service": .string(service), "accessible": "afterFirstUnlock", "returnAttributes": true,
        ])
    }

    /// Apple's `moveGenericPassword:…` helper: SecItemUpdate of the item found by account and
    /// service (the query also carries the secret and the protection class) to a new account and
    /// service.
    private func moveGenericPassword(
        _ kc: AppleCalls, account: String, service: String, newAccount: String, newService: String
    ) throws -> Int64 {
        try kc.update(
            [
                "class": "genericPassword", "valueData": data("password"), "account": .string(account),
                "service": .string(service), "accessible": "afterFirstUnlock",
            ],
            ["account": .string(newAccount), "service": .string(newService)]
        ).status
    }

    /// `testAddGenericPassword`: the add succeeds and returns the item's attributes.
    @Test func testAddGenericPassword() throws {
        let kc = AppleCalls(try APIFixture())
        let attrs = try addGenericPassword(kc, account: "delete-me", service: "delete-me")
        #expect(attrs.status == errSecSuccess, "should have no error: \(attrs)")
        #expect(attrs.attributes?["account"] == "delete-me", "should create genp")
    }

    /// `testAddTwoGenericPassword`: two items differing only in account both go in.
    @Test func testAddTwoGenericPassword() throws {
        let kc = AppleCalls(try APIFixture())
        let first = try addGenericPassword(kc, account: "delete-me", service: "delete-me")
        #expect(first.status == errSecSuccess, "should have no error: \(first)")
        #expect(first.attributes != nil, "should create genp")
        let second = try addGenericPassword(kc, account: "delete-me2s", service: "delete-me")
        #expect(second.status == errSecSuccess, "should have no error: \(second)")
        #expect(second.attributes?["account"] == "delete-me2s", "should create genp")
    }

    /// `testAddCollidingGenericPassword`: the same account and service again is
    /// errSecDuplicateItem.
    @Test func testAddCollidingGenericPassword() throws {
        let kc = AppleCalls(try APIFixture())
        let first = try addGenericPassword(kc, account: "delete-me", service: "delete-me")
        #expect(first.attributes != nil, "should create genp: \(first)")
        let second = try addGenericPassword(kc, account: "delete-me", service: "delete-me")
        #expect(second.status == errSecDuplicateItem, "should have duplicate item: \(second)")
    }

    /// `testMoveGenericPassword`: after a duplicate add, an update moves the item to a new
    /// account and service (noErr); the same update again finds nothing (errSecItemNotFound). The
    /// update's query carries `valueData`, which securityd takes and matches nothing on.
    @Test func testMoveGenericPassword() throws {
        let kc = AppleCalls(try APIFixture())
        let first = try addGenericPassword(kc, account: "delete-me", service: "delete-me")
        #expect(first.attributes != nil, "should create genp: \(first)")
        let second = try addGenericPassword(kc, account: "delete-me", service: "delete-me")
        #expect(second.status == errSecDuplicateItem, "should have duplicate item: \(second)")
        let move = {
            try moveGenericPassword(
                kc, account: "delete-me", service: "delete-me", newAccount: "delete-me2", newService: "delete-me2")
        }
        #expect(try move() == errSecSuccess)
        #expect(try move() == errSecItemNotFound)
    }

    /// `testBadPort`: an internet password whose `port` is a string ("") is errSecParam (the
    /// macOS expectation; Apple's embedded OSes accept it).
    @Test func testBadPort() throws {
        let kc = AppleCalls(try APIFixture())
        let status = try kc.add([
            "class": "internetPassword", "valueData": data("password"),
            "account": "SecItemTests testBadPort Account", "port": "",
        ]).status
        #expect(status == errSecParam)
    }

    /// `test_data_protection_kc_no_email` (rdar://105525994: a certificate with the Digital
    /// Signature purpose and no e-mail address came back from an e-mail match): a PKCS#12
    /// identity (password "nick", "Hi Everybody It's Me Dr. Nick", no e-mail address) is imported
    /// into the data-protection keychain: one identity, with its key and certificate; then the
    /// certificates matching (`kSecMatchEmailAddressIfPresent`, every one, `returnRef`)
    /// hazmatteam6@apple.com are 0, and those matching "" are 0; the identity's certificate and key
    /// are deleted by their refs (unchecked by Apple).
    /// Intended differences: keychaind keeps, for `matchEmailAddressIfPresent`, certificates that
    /// carry the address or no address at all (openapi.yaml, *Certificate match keys*), as the key's
    /// name says, so the certificate without an address is found (1, where Apple now answers 0);
    /// an empty address is errSecParam (openapi.yaml: `matchEmailAddressIfPresent` has
    /// `minLength: 1`), where Apple finds nothing. Left out: Apple's NULL address, which its helper
    /// answers (errSecItemNotFound) without calling SecItemCopyMatching.
    @Test func test_data_protection_kc_no_email() throws {
        let kc = AppleCalls(try APIFixture())
        let imported = try kc.importPKCS12(AppleTestData.secItemTestsSignNoEmailP12, password: "nick")
        #expect(imported.status == errSecSuccess, "import to data protection kc: \(imported)")
        let identities = imported.items.filter { $0["attributes"]?.objectValue?["class"] == "identity" }
        #expect(identities.count == 1, "one identity")
        let ref = try #require(identities.first?["persistentRef"]?.stringValue, "pull identity from imported data")
        let identity = try kc.copyMatching(["class": "identity", "valuePersistentRef": .string(ref), "returnRef": true])
        let cert = try #require(certificate(of: identity), "get certificate")
        let key = try #require(keyBytes(of: identity), "get private key")

        func certificatesFoundForEmail(_ address: String) throws -> AppleAnswer {
            try kc.copyMatching([
                "class": "certificate", "returnRef": true, "matchEmailAddressIfPresent": .string(address), "matchLimit": "all",
            ])
        }
        let hazmat = try certificatesFoundForEmail("hazmatteam6@apple.com")
        #expect(hazmat.status == errSecSuccess && hazmat.items.count == 1, "intended difference: match email address: \(hazmat)")
        #expect(certificate(of: hazmat) == cert)
        let empty = try certificatesFoundForEmail("")
        #expect(empty.status == errSecParam, "intended difference: match empty string: \(empty)")

        #expect(try kc.delete(try AppleRef.certificate(cert)).status == errSecSuccess)
        let type = try #require(identity.valueRef?["keyType"]?.stringValue)
        #expect(try kc.delete(try AppleRef.key(key, type: type, keyClass: "private")).status == errSecSuccess)
    }
}

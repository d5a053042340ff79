import TestSupport
import Testing

/// `keychain/SecurityUnitTests/SecItemTests.m` (Security-61901.0.87.0.1), test by test. Apple's
/// `setUp`/`tearDown` delete every generic and internet password; here each test has a keychain
/// of its own. `kSecUseDataProtectionKeychain`, which every Apple dictionary carries, is left out:
/// keychaind has only the one keychain (README: accepted and ignored).
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
}

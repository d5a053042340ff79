import Foundation
import KeychainClient
import Testing

/// SecItemAdd, SecItemCopyMatching, SecItemUpdate and SecItemDelete against a live server,
/// with Apple's dictionaries and Apple's answers.
@Suite struct SecItemTests {
    let server: LiveServer
    let client: KeychainClient

    init() throws {
        server = try LiveServer()
        client = try server.client()
    }

    private func addPassword(_ service: String = "db.example.com", account: String = "app", secret: String = "hunter2")
        async throws
    {
        try await client.SecItemAdd([
            kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: account,
            kSecValueData: Data(secret.utf8),
        ])
    }

    @Test func returnDataAloneAnswersTheSecretAsData() async throws {
        try await addPassword()
        let result = try await client.SecItemCopyMatching([
            kSecClass: kSecClassGenericPassword, kSecAttrService: "db.example.com", kSecReturnData: true,
        ])
        #expect(result as? Data == Data("hunter2".utf8))
    }

    @Test func returnAttributesAnswersApplesKeysAndValues() async throws {
        try await addPassword()
        let result = try await client.SecItemCopyMatching([
            kSecClass: kSecClassGenericPassword, kSecAttrService: "db.example.com", kSecReturnAttributes: kCFBooleanTrue,
            kSecReturnData: true,
        ])
        let attributes = try #require(result as? [String: Any])
        #expect(attributes[kSecClass] as? String == "genp")
        #expect(attributes[kSecAttrAccount] as? String == "app")
        #expect(attributes[kSecAttrService] as? String == "db.example.com")
        #expect(attributes[kSecAttrAccessible] as? String == kSecAttrAccessibleWhenUnlocked)
        #expect(attributes[kSecAttrCreationDate] is Date)
        #expect(attributes[kSecValueData] as? Data == Data("hunter2".utf8))
        #expect(attributes[kSecValuePersistentRef] == nil)
    }

    @Test func returnPersistentRefAnswersDataThatFindsTheItemAgain() async throws {
        try await addPassword()
        let ref = try #require(
            try await client.SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecReturnPersistentRef: true]) as? Data)
        #expect(ref.count == 22)
        let found = try await client.SecItemCopyMatching([kSecValuePersistentRef: ref, kSecReturnData: true])
        #expect(found as? Data == Data("hunter2".utf8))
    }

    @Test func matchLimitAllAnswersAnArray() async throws {
        for account in ["a", "b", "c"] { try await addPassword("shared", account: account, secret: account) }
        let result = try await client.SecItemCopyMatching([
            kSecClass: kSecClassGenericPassword, kSecAttrService: "shared", kSecMatchLimit: kSecMatchLimitAll,
            kSecReturnAttributes: true,
        ])
        let items = try #require(result as? [[String: Any]])
        #expect(items.compactMap { $0[kSecAttrAccount] as? String }.sorted() == ["a", "b", "c"])
    }

    @Test func noReturnKeyAnswersNilForAnItemThatExists() async throws {
        try await addPassword()
        let result = try await client.SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrAccount: "app"])
        #expect(result == nil)
    }

    @Test func internetPasswordAttributesComeBackAsFourCharCodes() async throws {
        try await client.SecItemAdd([
            kSecClass: kSecClassInternetPassword, kSecAttrServer: "www.example.com", kSecAttrAccount: "alice",
            kSecAttrProtocol: kSecAttrProtocolHTTPS, kSecAttrPort: 443, kSecAttrPath: "/login",
            kSecAttrAuthenticationType: kSecAttrAuthenticationTypeDefault, kSecValueData: Data("pw".utf8),
        ])
        let attributes = try #require(
            try await client.SecItemCopyMatching([
                kSecClass: kSecClassInternetPassword, kSecAttrServer: "www.example.com", kSecReturnAttributes: true,
            ]) as? [String: Any])
        #expect(attributes[kSecAttrProtocol] as? String == "htps")
        #expect(attributes[kSecAttrAuthenticationType] as? String == "dflt")
        #expect(attributes[kSecAttrPort] as? Int == 443)
        #expect(attributes[kSecClass] as? String == kSecClassInternetPassword)
    }

    @Test func notFoundIsErrSecItemNotFound() async {
        let code = await status {
            _ = try await client.SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrService: "none"])
        }
        #expect(code == errSecItemNotFound)
    }

    @Test func matchingNothingIsErrSecItemNotFoundForEveryLimit() async throws {
        let all: [String: Any] = [
            kSecClass: kSecClassGenericPassword, kSecAttrService: "none", kSecMatchLimit: kSecMatchLimitAll,
            kSecReturnAttributes: true,
        ]
        #expect(await status { _ = try await client.SecItemCopyMatching(all) } == errSecItemNotFound)
        // The typed sequence of nothing is empty instead.
        #expect(try await client.items(.genericPassword(service: "none")).collect().isEmpty)
    }

    @Test func aSecondAddIsErrSecDuplicateItemNamingTheFirst() async throws {
        let ref = try #require(
            try await client.SecItemAdd([
                kSecClass: kSecClassGenericPassword, kSecAttrService: "dup", kSecValueData: Data("x".utf8),
                kSecReturnPersistentRef: true,
            ]) as? Data)
        do {
            try await client.SecItemAdd([kSecClass: kSecClassGenericPassword, kSecAttrService: "dup"])
            Issue.record("the second add succeeded")
        } catch {
            #expect(error.status == errSecDuplicateItem)
            #expect(error.persistentRef.map { Data($0.utf8) } == ref)
            #expect(error.name == "errSecDuplicateItem")
        }
    }

    @Test func updateChangesTheSecretAndDeleteRemovesTheItem() async throws {
        try await addPassword()
        let query: [String: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "db.example.com"]
        try await client.SecItemUpdate(query, [kSecValueData: Data("rotated".utf8), kSecAttrLabel: "rotated"])
        var read = query
        read[kSecReturnData] = true
        #expect(try await client.SecItemCopyMatching(read) as? Data == Data("rotated".utf8))
        try await client.SecItemDelete(query)
        #expect(await status { _ = try await client.SecItemCopyMatching(read) } == errSecItemNotFound)
        #expect(await status { try await client.SecItemDelete(query) } == errSecItemNotFound)
    }

    @Test func aValueOfAnUnsupportedTypeIsErrSecParamNamingTheKey() async {
        do {
            try await client.SecItemAdd([kSecClass: kSecClassGenericPassword, kSecAttrLabel: NSObject()])
            Issue.record("the add succeeded")
        } catch {
            #expect(error.status == errSecParam)
            #expect(error.message.hasPrefix(kSecAttrLabel + ":"))
        }
    }

    @Test func lockedIsErrSecInteractionNotAllowedAndUnlockTakesThePassphrase() async throws {
        try await addPassword()
        try await client.lock()
        let read: [String: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "db.example.com", kSecReturnData: true]
        #expect(await status { _ = try await client.SecItemCopyMatching(read) } == errSecInteractionNotAllowed)
        #expect(try await client.status().state == "locked")
        #expect(await status { try await client.unlock(passphrase: "wrong") } == errSecAuthFailed)
        try await client.unlock(passphrase: server.passphrase)
        #expect(try await client.SecItemCopyMatching(read) as? Data == Data("hunter2".utf8))
    }

    @Test func theFreeFunctionsTakeTheClient() async throws {
        try await SecItemAdd(
            [kSecClass: kSecClassGenericPassword, kSecAttrService: "free", kSecValueData: Data("1".utf8)], client)
        try await SecItemUpdate(
            [kSecClass: kSecClassGenericPassword, kSecAttrService: "free"], [kSecValueData: Data("2".utf8)], client)
        let data = try await SecItemCopyMatching(
            [kSecClass: kSecClassGenericPassword, kSecAttrService: "free", kSecReturnData: true], client)
        #expect(data as? Data == Data("2".utf8))
        try await SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: "free"], client)
    }

    @Test func errorMessagesAreApples() {
        #expect(SecCopyErrorMessageString(errSecItemNotFound, nil) == "The specified item could not be found in the keychain.")
        #expect(SecCopyErrorMessageString(errSecDuplicateItem, nil) == "The specified item already exists in the keychain.")
    }
}

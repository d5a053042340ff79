import Foundation
import KeychainClient
import TestSupport
import Testing

/// Access objects through the client: SecAccessCreate, kSecAttrAccess on add, the item's access
/// object read and changed, and the prompt's passphrase for one call.
@Suite struct SecAccessTests {
    let server: LiveServer
    let admin: KeychainClient

    init() throws {
        server = try LiveServer()
        admin = try server.client()
    }

    @Test func aTrustedTokenReadsAndAnotherNeedsThePromptsPassphrase() async throws {
        let trusted = try await admin.createToken(name: "deploy", accessGroups: ["*"], capabilities: ["read", "write"])
        let other = try await admin.createToken(name: "other", accessGroups: ["*"], capabilities: ["read", "write"])
        let access = try await admin.SecAccessCreate("db password", [trusted.info.id])
        #expect(access.entries.count == 3)
        #expect(access.entries[0].authorizations == [kSecACLAuthorizationChangeACL] && access.entries[0].trustedTokens == [])
        #expect(access.entries[2].trustedTokens == [trusted.info.id] && access.entries[2].prompt)
        let ref = try #require(
            try await admin.SecItemAdd([
                kSecClass: kSecClassGenericPassword, kSecAttrService: "db", kSecValueData: Data("hunter2".utf8),
                kSecAttrAccess: access, kSecReturnPersistentRef: true,
            ]) as? Data)
        let query: [String: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "db", kSecReturnData: true]

        let deploy = try server.client(token: trusted.secret)
        #expect(try await deploy.SecItemCopyMatching(query) as? Data == Data("hunter2".utf8))
        let client = try server.client(token: other.secret)
        let refused = await #expect(throws: KeychainError.self) { _ = try await client.SecItemCopyMatching(query) }
        #expect(refused?.status == errSecInteractionRequired)
        #expect(refused?.message.contains("X-Keychain-Prompt-Passphrase") == true)
        let wrong = await #expect(throws: KeychainError.self) {
            _ = try await KeychainClient.withPrompt(passphrase: "wrong") { try await client.SecItemCopyMatching(query) }
        }
        #expect(wrong?.status == errSecAuthFailed)
        let prompted = try await KeychainClient.withPrompt(passphrase: testPassphrase) {
            try await client.SecItemCopyMatching(query) as? Data
        }
        #expect(prompted == Data("hunter2".utf8))

        // The owner's entry trusts no token: changing the object takes the passphrase.
        let refusedChange = await #expect(throws: KeychainError.self) { try await client.SecKeychainItemSetAccess(ref, nil) }
        #expect(refusedChange?.status == errSecInteractionRequired)
        #expect(try await client.SecKeychainItemCopyAccess(ref) == access)
        try await KeychainClient.withPrompt(passphrase: testPassphrase) { try await client.SecKeychainItemSetAccess(ref, nil) }
        #expect(try await client.SecKeychainItemCopyAccess(ref) == nil)
        #expect(try await client.SecItemCopyMatching(query) as? Data == Data("hunter2".utf8))
    }

    /// An access object edited with Apple's SecACL functions, then put back on the item: the
    /// server holds what the edit made, and each token does what the new entries allow.
    @Test func anAccessObjectEditedWithApplesACLFunctions() async throws {
        let trusted = try await admin.createToken(name: "deploy", accessGroups: ["*"], capabilities: ["read"])
        let other = try await admin.createToken(name: "ops", accessGroups: ["*"], capabilities: ["read", "delete"])
        let created = try await admin.SecAccessCreate("db", [trusted.info.id])
        let restricted = SecAccessCopyMatchingACLList(created, kSecACLAuthorizationDecrypt)
        #expect(restricted.count == 1)
        let contents = try #require(restricted.first.map(SecACLCopyContents))
        #expect(contents.applicationList == [trusted.info.id] && contents.promptSelector == .requirePassphase)
        #expect(SecAccessCopyACLList(created).count == 3)
        let ref = try #require(
            try await admin.SecItemAdd([
                kSecClass: kSecClassGenericPassword, kSecAttrService: "edited", kSecValueData: Data("pw".utf8),
                kSecAttrAccess: created, kSecReturnPersistentRef: true,
            ]) as? Data)

        var access = try #require(try await admin.SecKeychainItemCopyAccess(ref))
        let index = try #require(access.entries.firstIndex { SecACLCopyAuthorizations($0).contains(kSecACLAuthorizationDecrypt) })
        SecACLSetContents(&access.entries[index], [trusted.info.id, other.info.id], "db, for ops too", [])
        let deleter = SecACLCreateWithSimpleContents(&access, [other.info.id], "ops deletes", [])
        SecACLUpdateAuthorizations(&access.entries[deleter], [kSecACLAuthorizationKeychainItemDelete])
        SecACLRemove(&access, access.entries[1])
        #expect(
            access.entries.map(\.authorizations) == [
                [kSecACLAuthorizationChangeACL], created.entries[2].authorizations, ["delete"],
            ])
        // The owner's entry trusts no token: the edit goes back with the keychain's passphrase.
        try await KeychainClient.withPrompt(passphrase: testPassphrase) { try await admin.SecKeychainItemSetAccess(ref, access) }
        #expect(try await admin.SecKeychainItemCopyAccess(ref) == access)

        let ops = try server.client(token: other.secret)
        let query: [String: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "edited", kSecReturnData: true]
        #expect(try await ops.SecItemCopyMatching(query) as? Data == Data("pw".utf8))
        try await ops.SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: "edited"])
        let gone = await #expect(throws: KeychainError.self) { _ = try await admin.SecItemCopyMatching(query) }
        #expect(gone?.status == errSecItemNotFound)
    }
}

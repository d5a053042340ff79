import Foundation
import KeychainClient
import Testing

/// The cache of secrets: answered from memory while fresh, emptied by a lock and by the
/// token's revocation, never used past its age.
@Suite struct SecretCacheTests {
    let server: LiveServer
    let admin: KeychainClient

    init() throws {
        server = try LiveServer()
        admin = try server.client()
    }

    private let query: [String: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "cached", kSecReturnData: true]

    /// A client with a cache that has read the secret once, and the secret then deleted behind
    /// its back: only the cache still has it.
    private func cachedClient(token: String? = nil, maxAge: Duration = .seconds(600)) async throws -> KeychainClient {
        try await admin.addGenericPassword(service: "cached", account: "", password: Data("hunter2".utf8))
        let client = try server.client(token: token, cache: SecretCachePolicy(maxAge: maxAge))
        #expect(try await client.SecItemCopyMatching(query) as? Data == Data("hunter2".utf8))
        try await admin.delete(.genericPassword(service: "cached"))
        return client
    }

    @Test func aFreshSecretIsAnsweredFromTheCache() async throws {
        let client = try await cachedClient()
        #expect(client.cachedSecretCount == 1)
        #expect(try await client.SecItemCopyMatching(query) as? Data == Data("hunter2".utf8))
        // The cache is keyed by the query as sent: another query asks the server.
        #expect(await status { _ = try await client.genericPassword(service: "cached") } == errSecItemNotFound)
    }

    @Test func aLockSeenInAnyAnswerEmptiesTheCache() async throws {
        let client = try await cachedClient()
        try await admin.lock()
        // Any answer carries the state: this one says locked, and the cache goes.
        #expect(try await client.status().state == "locked")
        #expect(client.cachedSecretCount == 0)
        // The server answers now: the item is gone (a locked keychain still searches attributes).
        #expect(await status { _ = try await client.SecItemCopyMatching(query) } == errSecItemNotFound)
    }

    @Test func lockingThroughTheClientEmptiesItFirst() async throws {
        let client = try await cachedClient()
        try await client.lock()
        #expect(client.cachedSecretCount == 0)
    }

    @Test func revokingTheTokenEmptiesTheCache() async throws {
        let created = try await admin.createToken(name: "svc", accessGroups: ["*"], capabilities: ["read", "list", "lock"])
        let client = try await cachedClient(token: created.secret)
        try await admin.revokeToken(id: created.info.id)
        #expect(await status { _ = try await client.status() } == errSecAuthFailed)
        #expect(client.cachedSecretCount == 0)
        #expect(await status { _ = try await client.SecItemCopyMatching(query) } == errSecAuthFailed)
    }

    @Test func aWriteThroughTheClientEmptiesTheCache() async throws {
        let client = try await cachedClient()
        try await client.addGenericPassword(service: "other", account: "", password: Data("x".utf8))
        #expect(client.cachedSecretCount == 0)
    }

    @Test func aSecretPastItsAgeIsReadAgain() async throws {
        let client = try await cachedClient(maxAge: .zero)
        #expect(await status { _ = try await client.SecItemCopyMatching(query) } == errSecItemNotFound)
    }
}

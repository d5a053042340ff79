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

    /// The bound of a wait for what a client's background task does (its event stream). In a
    /// whole `swift test` run, synchronous tests hold the few threads of the cooperative pool
    /// until they end, so such a task may not run before most of the run is over.
    static let backgroundWait = Duration.seconds(300)

    private let query: [String: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "cached", kSecReturnData: true]

    /// A client with a cache that has read the secret once, and the secret then deleted behind
    /// its back: only the cache still has it.
    private func cachedClient(token: String? = nil, maxAge: Duration = .seconds(600), followsEvents: Bool = false)
        async throws -> KeychainClient
    {
        try await admin.addGenericPassword(service: "cached", account: "", password: Data("hunter2".utf8))
        let client = try server.client(token: token, cache: SecretCachePolicy(maxAge: maxAge), followsEvents: followsEvents)
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

    /// The default: the cache follows the event stream, so a lock empties it as it happens,
    /// with no request of this client's to carry the news.
    @Test func aLockTheEventStreamReportsEmptiesTheCacheAtOnce() async throws {
        try await admin.addGenericPassword(service: "cached", account: "", password: Data("hunter2".utf8))
        let client = try server.client(cache: SecretCachePolicy(maxAge: .seconds(600)), followsEvents: true)
        #expect(
            await Cluster.eventually(within: Self.backgroundWait) { server.keychain.events.subscriberCount == 1 },
            "the client subscribed")
        #expect(try await client.SecItemCopyMatching(query) as? Data == Data("hunter2".utf8))
        #expect(client.cachedSecretCount == 1)
        try await admin.lock()
        #expect(await Cluster.eventually(within: Self.backgroundWait) { client.cachedSecretCount == 0 })
        await client.shutdown()
    }

    @Test func aChangeByAnotherClientEmptiesAFollowingCache() async throws {
        try await admin.addGenericPassword(service: "cached", account: "", password: Data("hunter2".utf8))
        let client = try server.client(cache: SecretCachePolicy(maxAge: .seconds(600)), followsEvents: true)
        #expect(await Cluster.eventually(within: Self.backgroundWait) { server.keychain.events.subscriberCount == 1 })
        #expect(try await client.SecItemCopyMatching(query) as? Data == Data("hunter2".utf8))
        try await admin.update(.genericPassword(service: "cached"), data: Data("rotated".utf8))
        #expect(await Cluster.eventually(within: Self.backgroundWait) { client.cachedSecretCount == 0 })
        #expect(try await client.SecItemCopyMatching(query) as? Data == Data("rotated".utf8))
        await client.shutdown()
    }

    @Test func eventsAreReadAsTheyHappenAndResumeAfterAnID() async throws {
        let stream = admin.events()
        let first = Task { () -> [KeychainEventInfo] in
            var seen: [KeychainEventInfo] = []
            for try await event in stream {
                seen.append(event)
                if seen.count == 2 { break }
            }
            return seen
        }
        #expect(await Cluster.eventually(within: Self.backgroundWait) { server.keychain.events.subscriberCount == 1 })
        try await admin.addGenericPassword(service: "evented", account: "", password: Data("x".utf8))
        try await admin.delete(.genericPassword(service: "evented"))
        let events = try await first.value
        #expect(events.map(\.event) == [.add, .delete])
        #expect(events[0].itemClass == "genericPassword" && events[0].accessGroup == "default")
        #expect(events[0].persistentRef != nil && events[0].persistentRef == events[1].persistentRef)
        // Resumed after the add, from the server's history: the delete again.
        var resumed: [KeychainEventInfo.Event] = []
        for try await event in admin.events(after: events[0].id) {
            resumed.append(event.event)
            break
        }
        #expect(resumed == [.delete])
    }

    @Test func aSecretPastItsAgeIsReadAgain() async throws {
        let client = try await cachedClient(maxAge: .zero)
        #expect(await status { _ = try await client.SecItemCopyMatching(query) } == errSecItemNotFound)
    }
}

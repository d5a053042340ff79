import Foundation
import KeychainClient
import Testing

/// The cluster Tests/clients/run.sh starts: two replicas on PostgreSQL behind nginx over TLS.
/// Its URL, CA and admin token come from the environment; without them these tests are skipped.
enum Cluster {
    static let environment = ProcessInfo.processInfo.environment
    static let url = environment["KEYCHAINCLIENT_CLUSTER_URL"]
    static var configured: Bool { url != nil }

    static func client(token: String? = nil, cache: SecretCachePolicy? = nil, caFile: String?? = .none) throws -> KeychainClient {
        let adminToken = try BearerToken(file: environment["KEYCHAINCLIENT_CLUSTER_ADMIN_TOKEN_FILE"] ?? "")
        var configuration = KeychainClientConfiguration(
            url: url ?? "", token: try token.map { t throws(KeychainError) in try BearerToken(t) } ?? adminToken,
            certificateAuthorityFile: caFile ?? environment["KEYCHAINCLIENT_CLUSTER_CA_FILE"])
        configuration.cache = cache
        return try KeychainClient(configuration)
    }

    static var passphrase: String {
        let path = environment["KEYCHAINCLIENT_CLUSTER_PASSPHRASE_FILE"] ?? ""
        return (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .newlines) ?? ""
    }

    /// A bounded poll (10 s, or `within`) for what a replica learns from the other within a
    /// second, or what a task in the background does: true as soon as `condition` holds.
    static func eventually(within: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + within
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}

@Suite(.serialized, .enabled(if: Cluster.configured, "runs against the cluster Tests/clients/run.sh starts"))
struct ClusterTests {
    let admin: KeychainClient
    /// A service name of this run's own.
    let service = "cluster-\(UInt32.random(in: 0...UInt32.max))"

    init() throws {
        admin = try Cluster.client()
    }

    @Test func secItemFunctionsOverTLS() async throws {
        try await admin.SecItemAdd([
            kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: "a", kSecValueData: Data("1".utf8),
        ])
        let query: [String: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service]
        try await admin.SecItemUpdate(query, [kSecValueData: Data("2".utf8)])
        var read = query
        read[kSecReturnData] = true
        // Eight reads: nginx sends them to both replicas.
        for _ in 0..<8 { #expect(try await admin.SecItemCopyMatching(read) as? Data == Data("2".utf8)) }
        try await admin.SecItemDelete(query)
        #expect(await status { _ = try await admin.SecItemCopyMatching(read) } == errSecItemNotFound)
    }

    @Test func typedLayerWrapperAndHelpersOverTLS() async throws {
        try await admin.addGenericPassword(service: service, account: "typed", password: Data("x".utf8))
        try await admin.addGenericPassword(service: service, account: "typed", password: Data("y".utf8), replacing: true)
        #expect(try await admin.genericPassword(service: service, account: "typed") == Data("y".utf8))
        try await admin.addInternetPassword(server: "\(service).example.com", account: "u", password: Data("p".utf8), port: 443)
        #expect(try await admin.item(.internetPassword(server: "\(service).example.com"), returnData: true).password == "p")
        let keychain = KeychainWrapper(service: service + ".wrapper", client: admin)
        try await keychain.set("v", forKey: "k")
        #expect(try await keychain.string(forKey: "k") == "v")
        #expect(try await keychain.createKeychainValue("h", forIdentifier: "id"))
        #expect(try await keychain.searchKeychainCopyMatching("id") == Data("h".utf8))
        #expect(try await keychain.updateKeychainValue("h2", forIdentifier: "id"))
        try await keychain.deleteKeychainValue("id")
        #expect(try await keychain.searchKeychainCopyMatching("id") == nil)
        let listed = try await admin.items(.genericPassword(service: service)).collect()
        #expect(listed.map(\.account) == ["typed"])
        let status = try await admin.status()
        #expect(status.liveReplicas == 2)
    }

    @Test func theCacheEmptiesWhenEitherReplicaSaysLocked() async throws {
        try await admin.addGenericPassword(service: service, account: "cached", password: Data("s".utf8))
        let cached = try Cluster.client(cache: SecretCachePolicy(maxAge: .seconds(600)))
        #expect(try await cached.genericPassword(service: service, account: "cached") == Data("s".utf8))
        #expect(cached.cachedSecretCount == 1)
        try await admin.lock()
        // The replica that answers may learn of the lock a moment after the other; the first
        // answer that says locked empties the cache, and then both replicas are locked.
        #expect(await Cluster.eventually { (try? await cached.status().state) == "locked" })
        #expect(cached.cachedSecretCount == 0)
        #expect(await Cluster.eventually { (try? await admin.status().replicas) == 0 })
        #expect(
            await status { _ = try await cached.genericPassword(service: service, account: "cached") }
                == errSecInteractionNotAllowed)
        try await admin.unlock(passphrase: Cluster.passphrase)
        #expect(await Cluster.eventually { (try? await admin.status().replicas) == 2 })
    }

    @Test func theCacheEmptiesWhenTheTokenIsRevoked() async throws {
        // A replica may learn of an earlier test's unlock a moment after the other: the add and
        // the first read are retried until the replica that answers has.
        #expect(
            await Cluster.eventually {
                (try? await admin.addGenericPassword(
                    service: service, account: "revoked", password: Data("s".utf8), replacing: true)) != nil
            })
        let created = try await admin.createToken(name: service, accessGroups: ["*"], capabilities: ["read", "list"])
        let cached = try Cluster.client(token: created.secret, cache: SecretCachePolicy(maxAge: .seconds(600)))
        #expect(
            await Cluster.eventually {
                (try? await cached.genericPassword(service: service, account: "revoked")) == Data("s".utf8)
            })
        #expect(cached.cachedSecretCount == 1)
        try await admin.revokeToken(id: created.info.id)
        #expect(await Cluster.eventually { await status { _ = try await cached.status() } == errSecAuthFailed })
        #expect(cached.cachedSecretCount == 0)
    }

    @Test func aServerCertificateOutsideTheTrustedCAsIsRefused() async throws {
        // The system's CAs do not include the test CA: the handshake fails, and no request is sent.
        let untrusting = try Cluster.client(caFile: .some(nil))
        let error = await #expect(throws: KeychainError.self) { _ = try await untrusting.status() }
        #expect(error?.status == errSecNotAvailable)
        #expect(error?.message.contains("TLS") == true)
    }
}

extension KeychainStatus {
    /// Unlocked replicas, for a poll.
    var replicas: Int? { unlockedReplicas }
}

import KeychainCrypto
import KeychainPostgres
import KeychainStorage
import TestSupport
import Testing

@testable import KeychainCore

/// Several keychains on PostgreSQL, seen from two replicas of one database: each keychain in a
/// schema of its own, created, locked, unlocked and deleted on one replica and found so on the
/// other at its next tick (`Keychains.checkAutoLock`). The clock is moved by hand.
@Suite(.enabled(if: PostgresServer.isInstalled, PostgresServer.notInstalled))
struct KeychainsReplicaTests {
    final class Replicas: Sendable {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let url: String
        let first: Keychains
        let second: Keychains

        init() throws {
            url = try PostgresServer.shared.createDatabase()
            let configuration = KeychainConfiguration.testing(directory.path, clock: clock)
            first = try Keychains.onPostgres(
                Keychain(configuration: configuration, store: PostgresStore(url: url), logger: .init(label: "a")), url: url)
            second = try Keychains.onPostgres(
                Keychain(configuration: configuration, store: PostgresStore(url: url), logger: .init(label: "b")), url: url)
        }

        /// Both replicas' next tick, a second later.
        func tick() {
            clock.advance(seconds: 1)
            first.checkAutoLock()
            second.checkAutoLock()
        }

        deinit {
            first.close()
            second.close()
        }
    }

    @Test func aKeychainMadeOnOneReplicaIsUsedOnTheOtherWithItsOwnLock() throws {
        let replicas = try Replicas()
        let admin = try replicas.first.default.initialize(passphrase: SecureBytes(utf8: testPassphrase)).token
        try replicas.first.default.lock()
        try replicas.first.default.unlock(passphrase: SecureBytes(utf8: testPassphrase))
        _ = try replicas.first.create(name: "team-a", passphrase: SecureBytes(utf8: "team a"), caller: admin)
        let schema = PostgresStore.schema(forKeychain: "team-a")
        #expect(schema.hasPrefix("kc_team_a_") && PostgresStore.isSchemaName(schema))
        #expect(PostgresStore.schema(forKeychain: "team_a") != schema, "names that read the same have their own schema")
        #expect(replicas.second.keychain(named: "team-a") == nil, "not before its tick")
        replicas.tick()
        let teamOnSecond = try #require(replicas.second.keychain(named: "team-a"))
        #expect(replicas.second.names == ["default", "team-a"])

        // Made unlocked on the first, it is unlocked on the second; its items are its own.
        let teamOnFirst = try #require(replicas.first.keychain(named: "team-a"))
        #expect(teamOnSecond.state == .unlocked && replicas.second.default.state == .unlocked)
        let added = try teamOnSecond.add(["class": "genericPassword", "service": "s", "valueData": "dGVhbQ=="], token: admin)
        #expect(added.persistentRef.hasPrefix("team-a."))
        _ = try replicas.first.default.add(["class": "genericPassword", "service": "s", "valueData": "ZGVm"], token: admin)
        var query = ItemQuery()
        query.attributes = [(Schema.key(named: "service")!, .string("s"))]
        query.returnData = true
        query.matchLimit = .all
        #expect(
            try replicas.first.searchPage(query, token: admin).items.map(\.secret) == [Array("def".utf8), Array("team".utf8)])

        // Locked on the second, team-a is locked on the first; the default keychain is not.
        _ = try teamOnSecond.lock()
        replicas.tick()
        #expect(teamOnFirst.state == .locked && replicas.first.default.state == .unlocked)

        // Deleted on the first, it is gone from the second, and from the database.
        try replicas.first.delete(name: "team-a", caller: admin)
        replicas.tick()
        #expect(replicas.second.keychain(named: "team-a") == nil && replicas.second.names == ["default"])
        let probe = try PostgresStore(url: replicas.url)
        defer { probe.close() }
        #expect(try probe.read { try $0.meta(Keychains.registryMeta) }.map { Keychains.decodeNames($0) } == [])
    }
}

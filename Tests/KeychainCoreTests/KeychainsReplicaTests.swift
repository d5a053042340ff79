import KeychainCrypto
import KeychainPostgres
import KeychainStorage
import Synchronization
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

    /// A subscription's events so far, read as a stream reads them.
    final class Reader: Sendable {
        let subscription: Subscription
        private let seen = Mutex<[KeychainEvent]>([])

        init(_ events: KeychainEvents, after id: String? = nil) {
            subscription = events.subscribe(after: id, wake: {})
        }

        /// Everything sent so far (a reset as an event named by its id, `reset`).
        func read() -> [KeychainEvent] {
            seen.withLock { seen in
                while true {
                    switch subscription.next() {
                    case .events(let batch) where batch.isEmpty: return seen
                    case .events(let batch): seen += batch
                    case .reset(let id, _): seen.append(KeychainEvent(id: id, name: .tokenRevoked, keychain: "reset", time: 0))
                    }
                    subscription.handedOver()
                }
            }
        }
    }

    /// Events travel through the log both replicas read: each replica's subscribers get every
    /// replica's events, in one order, under the same ids, so that a stream resumes on the
    /// other replica where it left off; and the lock a replica answers reaches its subscribers
    /// first, whichever replica made it.
    @Test func eventsReachTheSubscribersOfEveryReplicaInOneOrder() throws {
        let replicas = try Replicas()
        let admin = try replicas.first.default.initialize(passphrase: SecureBytes(utf8: testPassphrase)).token
        try replicas.first.default.lock()
        try replicas.first.default.unlock(passphrase: SecureBytes(utf8: testPassphrase))
        replicas.tick()
        let onFirst = Reader(replicas.first.default.events)
        let onSecond = Reader(replicas.second.default.events)
        let added = try replicas.first.default.add(
            ["class": "genericPassword", "service": "s", "valueData": "c2VjcmV0"], token: admin)
        _ = try replicas.second.default.update(
            query: ["class": "genericPassword", "service": "s"], attributesToUpdate: ["label": "L"], token: admin)
        _ = try replicas.first.create(name: "team-a", passphrase: SecureBytes(utf8: "team a"), caller: admin)
        replicas.tick()
        let team = try #require(replicas.second.keychain(named: "team-a"))
        let teamItem = try team.add(["class": "genericPassword", "service": "t", "valueData": "dGVhbQ=="], token: admin)
        #expect(try replicas.second.default.delete(["class": "genericPassword", "service": "s"], token: admin) == 1)
        // The unlock's event may reach the readers after they subscribed (an answer with no
        // subscriber waits for no delivery): they are read from the first add on.
        func fromAdd(_ reader: Reader) -> [KeychainEvent] { Array(reader.read().drop { $0.name != .add }) }
        let expected = ["add", "update", "keychainListChanged", "add", "delete"]
        #expect(eventually { fromAdd(onFirst).count == expected.count && fromAdd(onSecond).count == expected.count })
        let first = fromAdd(onFirst)
        #expect(first.map(\.name.rawValue) == expected)
        #expect(first.map(\.keychain) == ["default", "default", "team-a", "team-a", "default"])
        #expect(first.map(\.id) == fromAdd(onSecond).map(\.id), "one order, the same ids")
        #expect(first[0].persistentRef == added.ref && first[3].persistentRef == teamItem.ref)
        #expect(first[0].accessGroup == "default" && first[0].itemClass == .genericPassword)

        // A stream of the first replica resumes on the second after its second event.
        let resumed = Reader(replicas.second.default.events, after: first[1].id)
        #expect(resumed.read().map(\.id) == first.dropFirst(2).map(\.id))
        // An id of no log of this database starts over.
        #expect(Reader(replicas.second.default.events, after: "other-3").read().map(\.keychain) == ["reset"])

        // A lock on the second replica reaches the first's subscribers, once.
        let lock = try #require(try replicas.second.default.lock())
        #expect(eventually { onFirst.read().last?.name == .lock })
        #expect(onFirst.read().last?.id == KeychainEvents.id(replicas.first.default.events.epoch, lock))
        replicas.tick()
        #expect(onFirst.read().filter { $0.name == .lock }.count == 1, "the replica that followed logged nothing")
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

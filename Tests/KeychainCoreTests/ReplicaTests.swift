import KeychainCrypto
import KeychainStorage
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

/// Replicas on one shared store (PostgreSQL): two keychains on one database and one instance key
/// file, each `checkAutoLock` standing for the server's tick. The clock is moved by hand.
@Suite(.enabled(if: PostgresServer.isInstalled, PostgresServer.notInstalled))
struct ReplicaTests {
    typealias Pair = SharedStoreTests.Pair

    /// Both replicas initialised, locked, then unlocked with the passphrase on the first.
    private func unlockedPair(_ backend: StoreBackend) throws -> (Pair, AccessToken) {
        let pair = try Pair(backend: backend)
        let admin = try pair.first.initialize(passphrase: SecureBytes(utf8: testPassphrase)).token
        try pair.first.lock()
        pair.second.checkAutoLock()
        try pair.first.unlock(passphrase: SecureBytes(utf8: testPassphrase))
        return (pair, admin)
    }

    private func storedLockState(_ pair: Pair) throws -> SharedLockState? {
        try pair.store.read { try $0.meta(Cluster.lockStateKey) }.flatMap(SharedLockState.init(encoded:))
    }

    @Test(arguments: StoreBackend.shared)
    func anUnlockAndALockOnOneReplicaReachTheOtherAtItsNextTick(backend: StoreBackend) throws {
        let (pair, admin) = try unlockedPair(backend)
        #expect(pair.second.state == .locked, "not before its tick")
        pair.second.checkAutoLock()
        #expect(pair.second.state == .unlocked, "unlocked without the passphrase")
        _ = try pair.second.add(["class": "genericPassword", "service": "s", "valueData": "c2VjcmV0"], token: admin)
        #expect(try pair.first.search(["service": "s", "returnData": true], token: admin).first?.secret == Array("secret".utf8))

        try pair.second.lock()
        #expect(pair.first.state == .unlocked, "not before its tick")
        pair.first.checkAutoLock()
        #expect(pair.first.state == .locked)
        #expect(try storedLockState(pair)?.isUnlocked == false, "the stored state holds no keys once locked")
    }

    /// A stored unlock is bound to its epoch: one rewritten with another epoch (a replay, or
    /// tampering by whoever can write the database) opens nothing.
    @Test(arguments: StoreBackend.shared)
    func aStoredUnlockUnderAnotherEpochOpensNothing(backend: StoreBackend) throws {
        let (pair, _) = try unlockedPair(backend)
        var state = try #require(try storedLockState(pair))
        #expect(state.isUnlocked)
        state.epoch += 1
        let tampered = state
        try pair.store.write { try $0.setMeta(Cluster.lockStateKey, tampered.encoded) }
        pair.second.checkAutoLock()
        #expect(pair.second.state == .locked)
    }

    /// Every replica stopped while unlocked: the first to start finds no live replica behind the
    /// stored keys, starts locked, and locks the stored state (no keys stay in the database).
    @Test(arguments: StoreBackend.shared)
    func aStoredUnlockWithNoLiveReplicaBehindItIsLockedAgain(backend: StoreBackend) throws {
        let (pair, _) = try unlockedPair(backend)
        pair.clock.advance(seconds: Cluster.leaseMilliseconds / 1000)
        pair.second.checkAutoLock()
        #expect(pair.second.state == .locked)
        #expect(try storedLockState(pair)?.isUnlocked == false)
        pair.first.checkAutoLock()
        #expect(pair.first.state == .locked, "the replica that unlocked follows the newer state")
    }

    /// Unlike a store of its own, a shared one carries revocations to the other replicas at
    /// their next tick, however fresh their cached entry.
    @Test(arguments: StoreBackend.shared)
    func aRevocationReachesTheOtherReplicaAtItsNextTick(backend: StoreBackend) throws {
        let (pair, admin) = try unlockedPair(backend)
        let issued = try pair.first.createToken(
            name: "svc", accessGroups: ["a"], capabilities: [.read], expiresAt: nil, caller: admin)
        pair.second.checkAutoLock()
        #expect(try pair.second.authenticate(bearer: issued.secret) == issued.token, "cached now")
        try pair.first.revokeToken(id: issued.token.id, caller: admin)
        pair.second.checkAutoLock()
        expectError(.anyAuthFailed) { _ = try pair.second.authenticate(bearer: issued.secret) }
    }

    /// The auto-lock counts a secret used on any live replica: the second, idle, stays unlocked
    /// while the first reads secrets, and the whole cluster locks once none has for the interval.
    @Test(arguments: StoreBackend.shared)
    func theAutoLockCountsSecretsUsedOnEveryReplica(backend: StoreBackend) throws {
        let (pair, admin) = try unlockedPair(backend)
        try pair.first.setLockInterval(10)
        _ = try pair.first.add(["class": "genericPassword", "service": "s", "valueData": "c2VjcmV0"], token: admin)
        pair.second.checkAutoLock()
        #expect(pair.second.state == .unlocked && pair.second.lockInterval == 10)

        pair.clock.advance(seconds: 6)
        _ = try pair.first.search(["service": "s", "returnData": true], token: admin)
        pair.first.checkAutoLock()
        pair.second.checkAutoLock()
        pair.clock.advance(seconds: 6)
        pair.first.checkAutoLock()
        pair.second.checkAutoLock()
        #expect(pair.second.state == .unlocked, "12 s idle here, 6 s since the first used a secret")
        #expect(pair.second.replicaCount == ReplicaCount(live: 2, unlocked: 2))

        pair.clock.advance(seconds: 4)
        pair.first.checkAutoLock()
        #expect(pair.first.state == .locked, "10 s since any replica used a secret")
        pair.second.checkAutoLock()
        #expect(pair.second.state == .locked)
        #expect(pair.second.replicaCount == ReplicaCount(live: 2, unlocked: 0))
    }

    /// An unlock whose new state cannot be told to the other replicas (the store refuses the
    /// write) is refused, and leaves this replica locked: unlocked everywhere or nowhere.
    /// A revocation reaches the other replicas' subscribers of that token: through the events
    /// every replica reads, and by a count, at whose next tick a replica finds which of its
    /// subscribers' tokens are gone. Another token's subscriber is told nothing it may see.
    @Test(arguments: StoreBackend.shared)
    func aRevocationOnOneReplicaReachesTheOthersSubscribersOfThatToken(backend: StoreBackend) throws {
        let (pair, admin) = try unlockedPair(backend)
        pair.second.checkAutoLock()
        let revoked = try pair.first.createToken(
            name: "svc", accessGroups: ["default"], capabilities: [.read], expiresAt: nil, caller: admin)
        let kept = try pair.first.createToken(
            name: "other", accessGroups: ["default"], capabilities: [.read], expiresAt: nil, caller: admin)
        let revokedSubscriber = pair.second.events.subscribe(after: nil, tokenID: revoked.token.id) {}
        let keptSubscriber = pair.second.events.subscribe(after: nil, tokenID: kept.token.id) {}
        try pair.first.revokeToken(id: revoked.token.id, caller: admin)
        pair.second.checkAutoLock()
        var seen: [KeychainEvent] = []
        #expect(
            eventually {
                if case .events(let events) = revokedSubscriber.next() { seen += events }
                return seen.contains { $0.name == .tokenRevoked }
            })
        #expect(seen.first { $0.name == .tokenRevoked }?.tokenID == revoked.token.id)
        guard case .events(let others) = keptSubscriber.next() else {
            Issue.record("no events")
            return
        }
        #expect(!others.contains { $0.name == .tokenRevoked && $0.isVisible(to: kept.token) })
    }

    @Test(arguments: StoreBackend.shared)
    func anUnlockThatCannotBeToldToTheOthersLeavesTheReplicaLocked(backend: StoreBackend) throws {
        let pair = try Pair(backend: backend)
        _ = try pair.first.initialize(passphrase: SecureBytes(utf8: testPassphrase))
        try pair.first.lock()
        let refusing = RefusingWrites(pair.store)
        let third = try Keychain(
            configuration: .testing(pair.directory.path, clock: pair.clock), store: refusing, logger: .init(label: "c"))
        refusing.refuses.store(true, ordering: .relaxed)
        expectError(.anyNotAvailable) { try third.unlock(passphrase: SecureBytes(utf8: testPassphrase)) }
        #expect(third.state == .locked)
        refusing.refuses.store(false, ordering: .relaxed)
        try third.unlock(passphrase: SecureBytes(utf8: testPassphrase))
        #expect(third.state == .unlocked)
    }
}

/// A shared store whose writes fail while `refuses` is set, as when the database goes away
/// between a read and a write.
final class RefusingWrites: SharedStore {
    let store: any KeychainStore
    let refuses = Atomic<Bool>(false)

    init(_ store: any KeychainStore) { self.store = store }

    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T { try store.read(body) }
    func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord] { try store.items(matching: filter) }
    func close() {}

    func write<T>(_ body: @escaping (any StoreWriter) throws -> T) throws -> T {
        guard !refuses.load(ordering: .relaxed) else { throw StorageError.unavailable("refused by the test") }
        return try store.write(body)
    }
}

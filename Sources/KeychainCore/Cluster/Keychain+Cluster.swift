import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import Logging
import Synchronization

/// What this replica knows of the others, as of its last `synchronize`.
struct ClusterView {
    /// The newest lock-state epoch applied (or published) here.
    var seenEpoch: UInt64 = 0
    /// The revocation count last read; a change empties the token cache.
    var seenRevocations: [UInt8]?
    /// Monotonic ms of this replica's last heartbeat; `nil` before the first.
    var lastBeat: Int64?
    var replicas = ReplicaTable()
    /// Wall-clock ms of the latest `whenUnlocked` secret use on another live replica.
    var othersLastSecretUse: Int64 = .min
}

/// The replicas' view of each other, for `GET /v1/keychain`.
public struct ReplicaCount: Sendable, Equatable {
    public let live: Int
    public let unlocked: Int
}

/// Replicas on one shared store (`SharedStore`): a lock or unlock on any of them
/// reaches every other at its next `synchronize` (the server runs it four times a second), as do
/// token revocations; the auto-lock counts a secret used on any of them. On a store of its own
/// (SQLite) none of this runs, and nothing of the lock state is ever written.
extension Keychain {
    /// Publishes this replica's lock state: a new epoch, with the class keys wrapped for the other
    /// replicas while unlocked, and this replica's heartbeat in the same transaction (so a
    /// replica reading an unlocked state also reads a live, unlocked replica behind it).
    ///
    /// `logging` (`lock` or `unlock`) is the change's event, logged in the same transaction when
    /// the stored state changes with it (of replicas auto-locking together, the first): its
    /// sequence in the shared log.
    @discardableResult
    func publishLockState(_ barrier: Barrier, logging event: KeychainEvent.Name? = nil) throws(KeychainError) -> UInt64? {
        guard isShared else { return nil }
        let beat = heartbeat(barrier)
        let (epoch, logged) = try transaction { writer in
            let current = try writer.meta(Cluster.lockStateKey).flatMap(SharedLockState.init(encoded:))
            let epoch = (current?.epoch ?? 0) &+ 1
            let state = SharedLockState(epoch: epoch, wrappedKeys: try barrier.wrapClassKeysForReplicas(epoch: epoch))
            try writer.setMeta(Cluster.lockStateKey, state.encoded)
            try Self.record(beat, in: writer)
            var logged: UInt64?
            if let event, (current?.isUnlocked ?? false) != state.isUnlocked {
                logged = try self.log(event, barrier: barrier, in: writer)
            }
            return (epoch, logged)
        }
        cluster.withLock { view in
            view.seenEpoch = max(view.seenEpoch, epoch)
            view.lastBeat = clock.uptime()
        }
        return logged
    }

    /// Counts a token revocation for the other replicas, in the revoking transaction.
    static func countRevocation(in writer: any StoreWriter) throws {
        let count = try writer.meta(Cluster.revocationsKey).flatMap(Settings.decodeInt) ?? 0
        try writer.setMeta(Cluster.revocationsKey, Settings.encodeInt(count &+ 1))
    }

    /// Brings this replica in line with the others: applies a newer lock state, forgets cached
    /// tokens after a revocation, publishes a heartbeat once a second, and applies the cluster's
    /// auto-lock. A store that cannot be read leaves everything as it is until the next call.
    func synchronize() {
        guard isShared, let barrier = try? loadBarrier() else { return }
        do {
            let (state, revocations, stored) = try snapshot { reader in
                (
                    try reader.meta(Cluster.lockStateKey).flatMap(SharedLockState.init(encoded:)),
                    try reader.meta(Cluster.revocationsKey),
                    try reader.meta(Cluster.replicasKey).flatMap(ReplicaTable.init(encoded:)) ?? ReplicaTable()
                )
            }
            var replicas = stored
            let uptime = clock.uptime()
            if cluster.withLock({ $0.lastBeat }).map({ uptime - $0 >= Cluster.heartbeatMilliseconds }) ?? true {
                let beat = heartbeat(barrier)
                replicas = try transaction { writer in try Self.record(beat, in: writer) }
                cluster.withLock { $0.lastBeat = uptime }
            }
            let now = clock.now()
            let othersLastUse = replicas.live(at: now).filter { $0.id != replicaID }.map(\.lastSecretUse).max() ?? .min
            let revoked = cluster.withLock { view in
                view.replicas = replicas
                view.othersLastSecretUse = othersLastUse
                defer { view.seenRevocations = revocations }
                return view.seenRevocations != revocations
            }
            if revoked {
                tokenCache.removeAll()
                if events.hasSubscribers {
                    events.tokensRevoked(live: Set(try snapshot { try $0.tokens() }.map(\.id)), at: now)
                }
            }
            if let state { try apply(state, replicas: replicas, barrier: barrier, now: now) }
        } catch {
            logger.warning("replicas' shared state unavailable", metadata: ["error": "\(error.message)"])
        }
    }

    /// How many replicas are live and unlocked: this one, and the others as of the heartbeats
    /// last read. On a store of its own, this one alone.
    public var replicaCount: ReplicaCount {
        guard isShared else { return ReplicaCount(live: 1, unlocked: state == .unlocked ? 1 : 0) }
        // This replica as it is now, the others as of their last heartbeat.
        let others = cluster.withLock { $0.replicas }.live(at: clock.now()).filter { $0.id != replicaID }
        let unlockedHere = state == .unlocked
        return ReplicaCount(live: others.count + 1, unlocked: others.filter(\.unlocked).count + (unlockedHere ? 1 : 0))
    }

    /// The idle time the cluster's auto-lock counts: since the latest secret use on this replica
    /// or any other live one.
    func idleMilliseconds() -> Int64 {
        let mine = clock.uptime() - lastSecretUse.load(ordering: .relaxed)
        guard isShared else { return mine }
        let others = cluster.withLock { $0.othersLastSecretUse }
        return others == .min ? mine : min(mine, clock.now() - others)
    }

    /// Applies a lock state newer than any seen here. An unlocked state is taken only while a
    /// replica that holds the keys is live: after every replica stopped unlocked, the first to
    /// start finds no one behind the keys, starts locked, and locks the stored state too.
    private func apply(_ state: SharedLockState, replicas: ReplicaTable, barrier: Barrier, now: Int64) throws(KeychainError) {
        guard state.epoch > cluster.withLock({ $0.seenEpoch }) else { return }
        guard let wrapped = state.wrappedKeys else {
            cluster.withLock { view in
                view.seenEpoch = max(view.seenEpoch, state.epoch)
                view.lastBeat = nil
            }
            if barrier.isUnlocked {
                barrier.lock()
                logger.info("keychain locked by another replica")
                publish(.lock)
            }
            return
        }
        guard replicas.live(at: now).contains(where: { $0.unlocked && $0.id != replicaID }) else {
            logger.info("the stored unlock has no live replica behind it: locking it")
            try publishLockState(barrier)
            return
        }
        let keys = try Self.crypto { () throws(CryptoError) in try barrier.unwrapClassKeysFromReplica(wrapped, epoch: state.epoch)
        }
        cluster.withLock { view in
            view.seenEpoch = max(view.seenEpoch, state.epoch)
            view.lastBeat = nil  // the others learn of the change at the next tick
        }
        if !barrier.isUnlocked {
            barrier.install(whenUnlocked: keys.whenUnlocked, afterFirstUnlock: keys.afterFirstUnlock)
            noteSecretUse()
            logger.info("keychain unlocked by another replica")
            publish(.unlock)
        }
    }

    /// This replica's heartbeat now.
    private func heartbeat(_ barrier: Barrier) -> ReplicaBeat {
        let now = clock.now()
        let lastUse = now - (clock.uptime() - lastSecretUse.load(ordering: .relaxed))
        return ReplicaBeat(id: replicaID, seen: now, unlocked: barrier.isUnlocked, lastSecretUse: lastUse)
    }

    /// Records `beat` in the replica table, read and written in the caller's transaction.
    @discardableResult
    private static func record(_ beat: ReplicaBeat, in writer: any StoreWriter) throws -> ReplicaTable {
        var table = try writer.meta(Cluster.replicasKey).flatMap(ReplicaTable.init(encoded:)) ?? ReplicaTable()
        table.record(beat)
        try writer.setMeta(Cluster.replicasKey, table.encoded)
        return table
    }
}

import KeychainCrypto

/// What replicas sharing one store (`SharedStore`) tell each other through it, in the
/// meta table: the lock state, a count of token revocations, and each replica's heartbeat.
enum Cluster {
    static let lockStateKey = "cluster.lockState"
    static let revocationsKey = "cluster.revocations"
    static let replicasKey = "cluster.replicas"
    /// A replica whose heartbeat is older than this is not live.
    static let leaseMilliseconds: Int64 = 5_000
    /// How often a replica publishes its heartbeat.
    static let heartbeatMilliseconds: Int64 = 1_000
}

/// The cluster's lock state. Every lock and unlock, on any replica, raises `epoch`; while
/// unlocked it carries the class keys, wrapped for the replicas under a key derived from the
/// metadata master (which the instance key file opens) and bound to the epoch: the database alone
/// opens nothing, and a replica never takes keys from an epoch older than one it has seen.
struct SharedLockState: Equatable {
    var epoch: UInt64
    /// The wrapped `whenUnlocked` and `afterFirstUnlock` keys; `nil` when locked.
    var wrappedKeys: (whenUnlocked: [UInt8], afterFirstUnlock: [UInt8])?

    var isUnlocked: Bool { wrappedKeys != nil }

    static func == (lhs: SharedLockState, rhs: SharedLockState) -> Bool {
        lhs.epoch == rhs.epoch && lhs.wrappedKeys?.whenUnlocked == rhs.wrappedKeys?.whenUnlocked
            && lhs.wrappedKeys?.afterFirstUnlock == rhs.wrappedKeys?.afterFirstUnlock
    }

    /// Version 1: epoch (8 bytes, big-endian), then, when unlocked, the two wrapped keys, each
    /// after its length (2 bytes).
    var encoded: [UInt8] {
        var bytes: [UInt8] = [1] + Settings.encodeInt(Int64(bitPattern: epoch))
        if let (whenUnlocked, afterFirstUnlock) = wrappedKeys {
            for wrapped in [whenUnlocked, afterFirstUnlock] {
                bytes += [UInt8(wrapped.count >> 8), UInt8(wrapped.count & 0xFF)] + wrapped
            }
        }
        return bytes
    }

    init(epoch: UInt64, wrappedKeys: (whenUnlocked: [UInt8], afterFirstUnlock: [UInt8])?) {
        self.epoch = epoch
        self.wrappedKeys = wrappedKeys
    }

    init?(encoded bytes: [UInt8]) {
        guard bytes.count >= 9, bytes[0] == 1, let epoch = Settings.decodeInt(Array(bytes[1..<9])) else { return nil }
        self.epoch = UInt64(bitPattern: epoch)
        var rest = bytes[9...]
        guard !rest.isEmpty else {
            wrappedKeys = nil
            return
        }
        var parts: [[UInt8]] = []
        while parts.count < 2, rest.count >= 2 {
            let length = Int(rest[rest.startIndex]) << 8 | Int(rest[rest.startIndex + 1])
            rest = rest.dropFirst(2)
            guard rest.count >= length else { return nil }
            parts.append(Array(rest.prefix(length)))
            rest = rest.dropFirst(length)
        }
        guard parts.count == 2, rest.isEmpty else { return nil }
        wrappedKeys = (parts[0], parts[1])
    }
}

/// One replica's heartbeat: when it was last heard from, whether it is unlocked, and when it last
/// used a `whenUnlocked` secret (wall-clock milliseconds), which the cluster's auto-lock counts.
struct ReplicaBeat: Equatable {
    /// 8 random bytes, new for every process.
    var id: [UInt8]
    var seen: Int64
    var unlocked: Bool
    var lastSecretUse: Int64

    static let encodedLength = 8 + 8 + 1 + 8
}

/// Every replica's latest heartbeat, as one meta value (read-modified-written in one transaction).
struct ReplicaTable: Equatable {
    var beats: [ReplicaBeat] = []

    init(beats: [ReplicaBeat] = []) { self.beats = beats }

    init?(encoded bytes: [UInt8]) {
        guard bytes.first == 1, (bytes.count - 1) % ReplicaBeat.encodedLength == 0 else { return nil }
        var offset = 1
        while offset < bytes.count {
            let entry = Array(bytes[offset..<offset + ReplicaBeat.encodedLength])
            guard let seen = Settings.decodeInt(Array(entry[8..<16])), let lastUse = Settings.decodeInt(Array(entry[17..<25]))
            else { return nil }
            beats.append(ReplicaBeat(id: Array(entry[0..<8]), seen: seen, unlocked: entry[16] != 0, lastSecretUse: lastUse))
            offset += ReplicaBeat.encodedLength
        }
    }

    /// Version 1: each beat as id, seen, unlocked (one byte), last secret use.
    var encoded: [UInt8] {
        var bytes: [UInt8] = [1]
        for beat in beats {
            bytes += beat.id + Settings.encodeInt(beat.seen) + [beat.unlocked ? 1 : 0] + Settings.encodeInt(beat.lastSecretUse)
        }
        return bytes
    }

    /// Records `beat` in place of that replica's last one, and forgets replicas silent for more
    /// than twice the lease.
    mutating func record(_ beat: ReplicaBeat) {
        beats.removeAll { $0.id == beat.id || beat.seen - $0.seen > 2 * Cluster.leaseMilliseconds }
        beats.append(beat)
    }

    /// The replicas heard from within the lease before `now`.
    func live(at now: Int64) -> [ReplicaBeat] { beats.filter { now - $0.seen < Cluster.leaseMilliseconds } }
}

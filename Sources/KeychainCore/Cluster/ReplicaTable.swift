import KeychainCrypto

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

import KeychainCrypto

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

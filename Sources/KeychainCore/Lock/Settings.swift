import KeychainCrypto

/// Keychain settings and parameters kept in the store's meta table, and their encodings.
enum Settings {
    static let lockInterval = "settings.lockInterval"

    static func encodeInt(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }

    static func decodeInt(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count == 8 else { return nil }
        return bytes.reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    static func encodeLimits(_ limits: KDFLimits) -> [UInt8] {
        encodeInt(Int64(limits.opsLimit)) + encodeInt(Int64(limits.memLimit))
    }

    static func decodeLimits(_ bytes: [UInt8]) -> KDFLimits? {
        guard bytes.count == 16, let ops = decodeInt(Array(bytes[0..<8])), let mem = decodeInt(Array(bytes[8..<16])),
            ops > 0, mem > 0
        else { return nil }
        return KDFLimits(opsLimit: UInt64(ops), memLimit: Int(mem))
    }
}

/// Where an unlock comes from: what it may cost the keychain's failure budget.
public enum UnlockSource: String, Sendable {
    /// An HTTP client: throttled, and counted toward the keychain's failure budget.
    case network
    /// The host: the passphrase file read at start or on a signal. Never throttled by network
    /// failures, and never counted: only the service's own user (or root) reaches this path.
    case host
}

/// The keychain's failure budget: failed network unlocks since the last success, persisted so
/// that a restart does not reset the wait.
///
/// It is the global budget behind the per-address ladders of the HTTP layer: one address meets
/// Apple's ladder after 4 failures there, while the keychain as a whole allows
/// `freeFailures` before the same ladder applies to every network client.
public struct UnlockThrottle: Equatable, Sendable {
    static let metaKey = "throttle.unlock"
    var failures = 0
    /// Wall-clock ms of the last failure.
    var lastFailure: Int64 = 0

    init() {}

    init?(encoded: [UInt8]) {
        guard encoded.count == 16, let f = Settings.decodeInt(Array(encoded[0..<8])),
            let t = Settings.decodeInt(Array(encoded[8..<16]))
        else { return nil }
        failures = Int(f)
        lastFailure = t
    }

    var encoded: [UInt8] { Settings.encodeInt(Int64(failures)) + Settings.encodeInt(lastFailure) }

    /// `delaySeconds`'s `free` for the whole keychain: 21 failures from any addresses go
    /// unthrottled, the 22nd attempt waits.
    public static let freeFailures = 20

    /// Apple's ladder: no wait while `failures` is at most `free`, then 1 min, 5 min, 15 min,
    /// and 1 h from the fourth step on.
    public static func delaySeconds(afterFailures failures: Int, free: Int = freeFailures) -> Int {
        switch failures - free {
        case ..<1: 0
        case 1: 60
        case 2: 300
        case 3: 900
        default: 3600
        }
    }

    /// Seconds until the next attempt is allowed, or `nil` when one is allowed now.
    func secondsToWait(now: Int64) -> Int? {
        let delay = Int64(Self.delaySeconds(afterFailures: failures)) * 1000
        guard delay > 0 else { return nil }
        let remaining = lastFailure + delay - now
        return remaining > 0 ? Int((remaining + 999) / 1000) : nil
    }

    func recordingFailure(at now: Int64) -> UnlockThrottle {
        var next = self
        next.failures += 1
        next.lastFailure = now
        return next
    }
}

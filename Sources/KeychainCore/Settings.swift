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

/// Failed unlock attempts, persisted so that a restart does not reset the wait.
struct UnlockThrottle: Equatable {
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

    /// Apple's ladder: no wait for the first 4 failures, then 1 min, 5 min, 15 min, and 1 h from the 8th on.
    static func delaySeconds(afterFailures failures: Int) -> Int {
        switch failures {
        case ..<5: 0
        case 5: 60
        case 6: 300
        case 7: 900
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

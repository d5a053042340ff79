internal import Foundation

/// Time as the keychain sees it; injectable so throttling and auto-lock are testable without sleeps.
public protocol KeychainClock: Sendable {
    /// Wall-clock milliseconds since 1970 (dates, expiry, the persisted unlock throttle).
    func now() -> Int64
    /// Monotonic milliseconds (auto-lock, the token cache), at the system clock tick's resolution.
    func uptime() -> Int64
}

/// The system's clocks.
public struct SystemClock: KeychainClock {
    public init() {}

    /// `CLOCK_REALTIME`, the milliseconds begun (not rounded up: never a time still to come).
    /// Read for every request's audit line: `Date`'s conversions through a `Double` cost several
    /// times the clock read.
    public func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// `CLOCK_MONOTONIC_COARSE`: the last tick's time (a few milliseconds' resolution), with no
    /// hardware counter read. Read twice a GET (the token cache, the last use of a secret) for
    /// intervals of seconds at least.
    public func uptime() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}

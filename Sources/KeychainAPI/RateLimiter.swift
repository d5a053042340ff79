import Synchronization

/// A fixed-window counter per client address: at most `limit` requests per `windowSeconds`.
///
/// Used for unlock attempts, in front of the keychain's own persisted throttle, so that one
/// client cannot spend the whole keychain's attempts (and Argon2id time) for everyone.
final class RateLimiter: Sendable {
    private let limit: Int
    private let windowMilliseconds: Int64
    private let windows = Mutex<[String: (start: Int64, count: Int)]>([:])

    init(limit: Int, windowSeconds: Int) {
        self.limit = limit
        windowMilliseconds = Int64(windowSeconds) * 1000
    }

    /// `nil` when allowed (and counted), else the seconds to wait.
    func acquire(_ key: String, now: Int64) -> Int? {
        windows.withLock { windows in
            if windows.count > 10_000 { windows = windows.filter { now - $0.value.start < windowMilliseconds } }
            var window = windows[key] ?? (now, 0)
            if now - window.start >= windowMilliseconds { window = (now, 0) }
            guard window.count < limit else {
                return Int((window.start + windowMilliseconds - now + 999) / 1000)
            }
            window.count += 1
            windows[key] = window
            return nil
        }
    }
}

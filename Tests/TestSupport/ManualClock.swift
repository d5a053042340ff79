public import KeychainCore
import Synchronization

/// A clock the test moves by hand: no sleeps.
public final class ManualClock: KeychainClock {
    private let state = Mutex<(now: Int64, uptime: Int64)>((1_790_000_000_000, 1_000))

    public init() {}

    public func now() -> Int64 { state.withLock { $0.now } }
    public func uptime() -> Int64 { state.withLock { $0.uptime } }

    /// Moves both clocks forward.
    public func advance(seconds: Int64) {
        state.withLock {
            $0.now += seconds * 1000
            $0.uptime += seconds * 1000
        }
    }
}

public import Logging
import Synchronization

/// At most `perSecond` log lines a second for one kind of event that a client can cause without
/// a token (a refused or anonymous request): past it, lines are counted instead of written, and
/// the count is reported once, by the first line of the next second that has room.
///
/// An anonymous flood then costs the log a bounded number of lines a second, and the operator
/// still learns how many were left out.
public final class LogBudget: Sendable {
    /// What to do with one line.
    public struct Verdict: Equatable, Sendable {
        /// Write the line.
        public var write: Bool
        /// Lines left out since the last report, to report first (0: nothing to report).
        public var suppressedBefore: Int
    }

    private struct State {
        var second: Int64 = .min
        var written = 0
        var suppressed = 0
    }

    public let perSecond: Int
    private let state = Mutex(State())

    public init(perSecond: Int) {
        self.perSecond = max(0, perSecond)
    }

    /// Takes one line's place in the second `nowSeconds` (any monotonic count of seconds).
    public func take(nowSeconds: Int64) -> Verdict {
        state.withLock { state in
            if nowSeconds != state.second {
                state.second = nowSeconds
                state.written = 0
            }
            guard state.written < perSecond else {
                state.suppressed += 1
                return Verdict(write: false, suppressedBefore: 0)
            }
            state.written += 1
            let suppressed = state.suppressed
            state.suppressed = 0
            return Verdict(write: true, suppressedBefore: suppressed)
        }
    }

    /// Takes one line's place at the current monotonic second; when lines were left out before
    /// it, first logs how many to `logger` at `notice`, as `leftOut`. Returns whether to write the line.
    public func admit(_ logger: Logger, leftOut: Logger.Message) -> Bool {
        let verdict = take(nowSeconds: Int64(truncatingIfNeeded: HTTPRequestHead.monotonicNanoseconds() / 1_000_000_000))
        if verdict.suppressedBefore > 0 {
            logger.notice(leftOut, metadata: ["count": "\(verdict.suppressedBefore)", "limit.per_second": "\(perSecond)"])
        }
        return verdict.write
    }
}

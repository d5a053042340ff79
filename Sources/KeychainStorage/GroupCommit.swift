import Dispatch
import Synchronization

/// Group commit: concurrent writers share one transaction and one `fdatasync`.
///
/// Each `write` call queues its body. If no leader is running, the caller becomes the leader:
/// it takes every queued body (up to `maxBatch`), runs each inside its own SAVEPOINT in one
/// transaction, commits once, and wakes the callers. A body that throws rolls back only its own
/// savepoint; the others commit. Nobody is woken before the COMMIT has returned, so every
/// acknowledged write is durable. The leader then hands leadership to the oldest waiting caller
/// (if any), so no caller serves others' writes for longer than its own batch.
package final class GroupCommit: Sendable {
    /// One queued body and its outcome. `@unchecked Sendable`: `result` is written by the leader
    /// before it signals `wake`, and read by the owner only after `wake` returns.
    package final class Pending: @unchecked Sendable {
        package let body: (any StoreWriter) throws -> Any
        package var result: Result<Any, any Error>?
        /// The writes the body makes, as the batch size tells the observer (a store's batch of adds).
        let writes: Int
        let wake = DispatchSemaphore(value: 0)

        init(writes: Int, _ body: @escaping (any StoreWriter) throws -> Any) {
            self.writes = writes
            self.body = body
        }
    }

    private struct State {
        var queue: [Pending] = []
        var leading = false
    }

    private let state = Mutex(State())
    private let maxBatch: Int
    private let observer: (any CommitObserver)?

    package init(maxBatch: Int = 64, observer: (any CommitObserver)? = nil) {
        self.maxBatch = maxBatch
        self.observer = observer
    }

    /// Queues `body` and returns its result once its batch has committed (or its error).
    /// `commit` runs one batch in one transaction; it is only ever called by one leader at a time.
    /// `writes`: how many writes `body` makes, for the observer's batch size.
    package func submit<T>(
        writes: Int = 1, _ body: @escaping (any StoreWriter) throws -> T, commit: ([Pending]) -> Void
    ) throws -> T {
        let mine = Pending(writes: writes) { try body($0) }
        let leads = state.withLock { state in
            state.queue.append(mine)
            guard !state.leading else { return false }
            state.leading = true
            return true
        }
        if !leads {
            mine.wake.wait()
            // Woken with no result: the previous leader handed leadership to this caller.
        }
        if mine.result == nil { lead(commit: commit) }
        return try mine.result!.get() as! T
    }

    /// Runs one batch as the leader, wakes its callers and hands leadership on.
    private func lead(commit: ([Pending]) -> Void) {
        let batch = state.withLock { state -> [Pending] in
            let batch = Array(state.queue.prefix(maxBatch))
            state.queue.removeFirst(batch.count)
            return batch
        }
        let started = observer == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        commit(batch)
        observer?.committed(
            .write, batchSize: batch.reduce(0) { $0 + $1.writes }, nanoseconds: DispatchTime.now().uptimeNanoseconds &- started)
        let next = state.withLock { state -> Pending? in
            if let next = state.queue.first { return next }
            state.leading = false
            return nil
        }
        for pending in batch { pending.wake.signal() }
        next?.wake.signal()
    }
}

internal import CLinux
import Dispatch
import Foundation
import SleepingLock

/// Jobs from every polling thread, handled in batches by threads with a connection each: while
/// one waits for the database or the disk, more jobs queue, and the next round trip or commit
/// carries them all. A blocking call per request costs a round trip (or a commit) and two context
/// switches on each side per request (PostgreSQL's backend, a worker thread, the caller's
/// thread); here they are paid once a batch. PostgreSQL's searches and adds, SQLite's adds.
///
/// The threads run as `SCHED_BATCH`: a job's wake-up does not preempt the polling thread that
/// queued it, so the thread takes its batch once that one has queued every request it had ready.
///
/// One thread suits work the database answers at once (searches): batches grow while it waits.
/// Two suit commits, which wait for the disk's flush: one sends its batch while the other waits.
/// The threads start with the first job, so a store used only synchronously has none.
package final class BatchingThreads<Job: Sendable, Connection>: Sendable {
    /// Handles one batch on the thread's connection (made or made again by it when `nil`; left
    /// `nil` when it failed), answering each job; returns the jobs to send again first.
    package typealias Handle = @Sendable (_ batch: [Job], _ connection: inout Connection?) -> [Job]

    private struct State {
        var queue: [Job] = []
        /// Threads waiting on `wake` (counted by each, under the lock, before it waits).
        var sleeping = 0
        var started = false
        var closed = false
    }

    private let state = SleepingLock(State())
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let name: String
    private let threads: Int
    private let maxBatch: Int
    private let handle: Handle
    private let refuse: @Sendable (Job) -> Void

    /// - Parameters:
    ///   - maxBatch: the most jobs one round trip carries. Their statements and results stay far
    ///     below a loopback socket's buffers, so a blocking send never waits for the server to be read.
    ///   - refuse: answers a job the closed store will not handle.
    package init(
        name: String, threads: Int, maxBatch: Int = 64, handle: @escaping Handle, refuse: @escaping @Sendable (Job) -> Void
    ) {
        self.name = name
        self.threads = max(1, threads)
        self.maxBatch = maxBatch
        self.handle = handle
        self.refuse = refuse
    }

    private enum Action { case none, wake, start, refuse }

    /// Queues `job`; refused at once once closed.
    package func submit(_ job: Job) {
        let action = state.withLock { state -> Action in
            guard !state.closed else { return .refuse }
            state.queue.append(job)
            if !state.started {
                state.started = true
                return .start
            }
            guard state.sleeping > 0 else { return .none }
            state.sleeping -= 1
            return .wake
        }
        switch action {
        case .none: break
        case .wake: wake.signal()
        case .refuse: refuse(job)
        case .start:
            for n in 0..<threads {
                let thread = Thread { [self] in run() }
                thread.name = "\(name)-\(n)"
                thread.start()
            }
        }
    }

    /// Refuses what is queued, stops the threads and waits for them.
    package func close() {
        let started = state.withLock { state in
            state.closed = true
            state.sleeping = 0
            return state.started
        }
        guard started else { return }
        for _ in 0..<threads { wake.signal() }
        for _ in 0..<threads { stopped.wait() }
    }

    private func run() {
        _ = kcd_schedule_calling_thread_as_batch()  // a policy any thread may take; nothing to do if refused
        var connection: Connection?
        var retry: [Job] = []
        while true {
            let (batch, closed) = state.withLock { state -> ([Job], Bool) in
                if state.closed { return (retry + state.queue, true) }
                let room = maxBatch - retry.count
                let batch = retry + state.queue.prefix(room)
                state.queue.removeFirst(min(room, state.queue.count))
                if batch.isEmpty { state.sleeping += 1 }
                return (batch, false)
            }
            retry = []
            if closed {
                batch.forEach(refuse)
                stopped.signal()
                return
            }
            if batch.isEmpty {
                wake.wait()
                continue
            }
            retry = handle(batch, &connection)
        }
    }
}

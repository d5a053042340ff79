import Dispatch
import Foundation
import SleepingLock

/// Threads that run requests off libmicrohttpd's polling threads: one (serial), or a pool.
///
/// One thread runs jobs one at a time, in submission order, so a burst of slow requests
/// (Argon2id) costs one core and one job's memory at a time instead of stalling every polling
/// thread. A pool lets blocking jobs (durable commits waiting for fsync) overlap; its threads are
/// its own because libdispatch sizes its pool to the CPUs and does not count a thread blocked in
/// `fdatasync` as idle, which serialised such jobs on a one-core affinity. `stop()` refuses new
/// jobs and waits for the queued ones, because each of them ends by resuming a suspended
/// connection, which must happen before `MHD_stop_daemon` ("it is an API violation to call
/// MHD_stop_daemon while having suspended connections").
final class OffloadWorker: Sendable {
    private struct State {
        var accepting = true
        /// Jobs in submission order; a job's place is emptied when a thread takes it, so that
        /// what it holds (a request, its body) goes when it has run, not when the queue is
        /// next compacted.
        var jobs: [(@Sendable () -> Void)?] = []
        var head = 0
        /// Places taken whose job is not in `jobs` yet (its caller is suspending its connection).
        var reserved = 0
    }

    /// Taken by every request handed over and by every worker taking one: a lock whose waiters sleep.
    private let state = SleepingLock(State())
    private let available = DispatchSemaphore(value: 0)
    private let pending = DispatchGroup()
    private let threads: Int
    /// Its threads' name, without their number (`http-serial`): for log lines.
    let name: String

    init(threads: Int, name: String) {
        self.name = name
        self.threads = max(1, threads)
        for n in 0..<self.threads {
            let thread = Thread { [self] in run() }
            thread.name = "\(name)-\(n)"
            thread.start()
        }
    }

    /// What became of a job handed to `submit`.
    enum Submission: Equatable {
        case accepted
        /// `waiting` jobs were already waiting (none started yet): neither closure ran.
        case full(waiting: Int)
        /// The worker has stopped: neither closure ran.
        case stopped
    }

    /// Runs `prepare`, then enqueues `job`, unless the worker has stopped or `queueLimit` jobs
    /// are already waiting for a thread.
    ///
    /// `prepare` is where the caller suspends its connection: doing it before the job is
    /// enqueued guarantees the job's resume can never come before the suspend. It runs outside
    /// the lock (suspending takes libmicrohttpd's own locks and a system call, and the threads
    /// waiting for this lock would spin meanwhile); the job's place is taken first, under the
    /// lock, so `stop()` waits for it.
    ///
    /// A job counts as waiting from the moment its place is taken until a thread starts it, so
    /// the limit holds for callers racing each other.
    func submit(queueLimit: Int = .max, prepare: () -> Void, job: @escaping @Sendable () -> Void) -> Submission {
        let verdict = state.withLock { state -> Submission in
            guard state.accepting else { return .stopped }
            let waiting = state.reserved + state.jobs.count - state.head
            guard waiting < queueLimit else { return .full(waiting: waiting) }
            state.reserved += 1
            pending.enter()
            return .accepted
        }
        guard verdict == .accepted else { return verdict }
        prepare()
        state.withLock { state in
            state.reserved -= 1
            state.jobs.append(job)
        }
        available.signal()
        return .accepted
    }

    /// Refuses further jobs, returns once every job already submitted has finished, and lets
    /// the threads exit.
    func stop() {
        state.withLock { $0.accepting = false }
        pending.wait()
        for _ in 0..<threads { available.signal() }
    }

    private func run() {
        while true {
            available.wait()
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                guard state.head < state.jobs.count else { return nil }
                let job = state.jobs[state.head].take()
                state.head += 1
                if state.head > 64, state.head * 2 > state.jobs.count {
                    state.jobs.removeFirst(state.head)
                    state.head = 0
                }
                return job
            }
            guard let job else { return }  // woken by stop() with nothing left: exit
            job()
            pending.leave()
        }
    }
}

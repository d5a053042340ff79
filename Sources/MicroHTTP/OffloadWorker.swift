import Dispatch
import Synchronization

/// The one serial worker that runs slow requests (Argon2id) off libmicrohttpd's polling threads.
///
/// Jobs run one at a time, in submission order, so a burst of slow requests costs one core and
/// one job's memory at a time instead of stalling every polling thread. `stop()` refuses new jobs
/// and waits for the queued ones, because each of them ends by resuming a suspended connection,
/// which must happen before `MHD_stop_daemon` ("it is an API violation to call MHD_stop_daemon
/// while having suspended connections").
final class OffloadWorker: Sendable {
    private let queue = DispatchQueue(label: "keychaind.http.offload")
    private let accepting = Mutex(true)

    /// Runs `prepare` then enqueues `job`, both under the lock, unless the worker has stopped.
    ///
    /// `prepare` is where the caller suspends its connection: doing it before the job is
    /// enqueued guarantees the job's resume can never come before the suspend.
    /// - Returns: `false`, having run neither, once `stop()` has begun.
    func submit(prepare: () -> Void, job: @escaping @Sendable () -> Void) -> Bool {
        accepting.withLock { accepting in
            guard accepting else { return false }
            prepare()
            queue.async(execute: job)
            return true
        }
    }

    /// Refuses further jobs and returns once every job already submitted has finished.
    func stop() {
        accepting.withLock { $0 = false }
        queue.sync {}
    }
}

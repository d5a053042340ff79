import Dispatch
import Testing

@testable import MicroHTTP

struct OffloadWorkerTests {
    /// What a job captures (a request and its body, which the request's end zeroes) is released
    /// once the job has run, not kept by the queue until later jobs come.
    @Test func aJobThatRanHoldsNothing() {
        final class Captured: Sendable {}
        let worker = OffloadWorker(threads: 1, name: "test-offload")
        defer { worker.stop() }
        weak var released: Captured?
        do {
            let captured = Captured()
            released = captured
            let submitted = worker.submit(prepare: {}, job: { withExtendedLifetime(captured) {} })
            #expect(submitted == .accepted)
        }
        // One thread runs jobs in order: once the second has run, the first has returned and
        // the thread has let go of it.
        let done = DispatchSemaphore(value: 0)
        #expect(worker.submit(prepare: {}, job: { done.signal() }) == .accepted)
        done.wait()
        #expect(released == nil)
    }
}

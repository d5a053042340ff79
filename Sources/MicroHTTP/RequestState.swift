import Synchronization

/// What the server holds for one request between libmicrohttpd's calls of the access handler.
///
/// Created on the first call (headers complete), handed to libmicrohttpd as `*con_cls` with
/// `Unmanaged.passRetained`, and released in the request-completed callback, which libmicrohttpd
/// runs for finished, failed, timed-out and aborted requests alike. libmicrohttpd calls the
/// handler for one connection from one thread at a time, but an offloaded response is written by
/// the worker thread, so the mutable part sits behind a `Mutex`.
final class RequestState: Sendable {
    /// Where the request stands.
    enum Phase: Sendable {
        /// Headers in, body (if any) arriving.
        case receiving
        /// The connection is suspended while the worker runs `respond(to:)`, or the responder has
        /// yet to reply to a deferred request; then it holds the answer.
        case offloaded(HTTPResponse?)
        /// The responder's answer waits for the next pass (`HTTPResponse.held`): the final call
        /// that comes then sends what this gives.
        case held(@Sendable () -> HTTPResponse)
        /// A response has been queued; whatever else arrives is discarded.
        case answered
    }

    /// The mutable part.
    struct Progress: Sendable {
        var phase = Phase.receiving
        /// An answer decided before the body is complete (preflight's, or a 413 for a body over
        /// the limit), queued on the final call; the body is discarded meanwhile.
        var pendingAnswer: HTTPResponse?
        /// The body as received, in room that grows without leaving unwiped copies behind
        /// (`WipedBytes.append`).
        var body: [UInt8] = []
        /// Body bytes seen so far, counted even when they are discarded.
        var received = 0
        /// The request was deferred (`ServerContext.deferred` was entered for it).
        var deferred = false
        /// A deferred request's connection was suspended: its reply must resume it.
        var suspended = false
    }

    /// The head, as read on the first call.
    let head: HTTPRequestHead
    /// Where to answer and preflight's plan; `nil` when the request was refused on its headers.
    let plan: (execution: HTTPExecution, plan: (any HTTPPlan)?)?
    let progress: Mutex<Progress>
    /// The largest body this request may have: the server's limit, or preflight's lower one.
    let maxBodyBytes: Int
    /// Whether the head announced a body (a length above 0, or chunks).
    let expectsBody: Bool
    /// Where the body goes instead of `Progress.body`, for a large upload.
    let spool: HTTPSpooledBody?

    /// The body (`Progress.body`, kept after it is handed on) is zeroed when the request's
    /// state goes: it may carry a passphrase, a secret being added or a migration bundle's items.
    /// In place, in the buffer the request handed to the responder shares: every handler holds
    /// the state until it has returned (a worker's job and a deferred reply capture it), so none
    /// reads the body any more, and a copy of a large body is not made only to be zeroed.
    deinit {
        progress.withLock { progress in
            progress.body.withUnsafeBytes { WipedBytes.zero(UnsafeMutableRawBufferPointer(mutating: $0)) }
        }
    }

    init(
        head: HTTPRequestHead, plan: (execution: HTTPExecution, plan: (any HTTPPlan)?)?, pendingAnswer: HTTPResponse?,
        expectedLength: Int?, maxBodyBytes: Int, expectsBody: Bool = false, spool: HTTPSpooledBody? = nil
    ) {
        self.expectsBody = expectsBody
        self.spool = spool
        self.head = head
        self.plan = plan
        self.maxBodyBytes = maxBodyBytes
        var progress = Progress()
        progress.pendingAnswer = pendingAnswer
        if pendingAnswer == nil, spool == nil, let expectedLength {
            progress.body.reserveCapacity(min(expectedLength, maxBodyBytes))
        }
        self.progress = Mutex(progress)
    }
}

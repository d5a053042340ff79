/// The application behind an `HTTPServer`. Called on libmicrohttpd's threads: it must be thread-safe.
public protocol HTTPResponder: Sendable {
    /// Called once, as soon as the headers are in and before any body byte is read: refuses the
    /// request early (401, 404, 405, 413…), or says where to answer it once its body is in.
    func preflight(_ head: HTTPRequestHead) -> HTTPPreflight

    /// Answers a complete request that `preflight` let through, with the plan it gave.
    func respond(to request: HTTPRequest, plan: (any HTTPPlan)?) -> HTTPResponse

    /// Answers through `reply`, at once or later from any thread, a request that preflight sent
    /// to `.deferred`; `reply` must be called exactly once.
    func respond(to request: HTTPRequest, plan: (any HTTPPlan)?, reply: @escaping @Sendable (HTTPResponse) -> Void)

    /// The body limit of a request whose route takes large bodies (an upload), from its head
    /// alone, before preflight: it replaces the server's `maxBodyBytes` for this request (never
    /// lowering it). `nil`, the default: the server's limit.
    func largeBodyLimit(for head: HTTPRequestHead) -> Int?

    /// Builds the response for a refusal made by the transport itself (400 malformed framing,
    /// 413 body over the limit), so that every error a client sees has the application's shape.
    func transportError(_ error: HTTPTransportError, head: HTTPRequestHead?) -> HTTPResponse
}

/// What a responder's preflight hands to its own `respond`: an immutable object.
public typealias HTTPPlan = AnyObject & Sendable

/// `HTTPResponder.preflight`'s verdict on a request whose headers are in.
///
/// Not generic on purpose: the server's code is compiled once, unspecialized, and every generic
/// type it handled per request cost a runtime metadata lookup.
public enum HTTPPreflight: Sendable {
    /// Answer with this now: the body is discarded unread and `respond` is never called.
    case refuse(HTTPResponse)
    /// Read the body, then call `respond(to:plan:)` with `plan`, where `execution` says.
    ///
    /// `plan` is what preflight learned and respond needs again (the route, the caller), so a
    /// request is parsed and authenticated once; an object, so that handing it over costs one
    /// reference count. Off the polling threads, the connection is suspended while a worker
    /// answers, so that no polling thread stalls and other connections keep being served.
    /// `maxBodyBytes` lowers the server's body limit for this request (an anonymous route's
    /// small body): a larger one, declared or counted, is refused with `bodyTooLarge`.
    case proceed(HTTPExecution, plan: (any HTTPPlan)?, maxBodyBytes: Int? = nil)
}

/// Where a request's answer is computed.
public enum HTTPExecution: Sendable, Equatable {
    /// On the polling thread that read the request: quick work.
    case pollingThread
    /// On the one serial worker, one request at a time: CPU- and memory-heavy work (Argon2id).
    case serialWorker
    /// On the transfer worker, one request at a time, apart from the serial worker: heavy work
    /// that any token holder may ask for (an import's key derivation), which must never fill the
    /// queue that the serial worker's requests (unlocks) wait in.
    case transferWorker
    /// On a pool of workers: work that blocks without using the CPU (a durable commit waiting
    /// for fsync), so that concurrent requests of this kind can overlap (and commit together).
    case workerPool
    /// By the responder's `respond(to:plan:reply:)`, which may reply later from another thread
    /// (a search queued for a database round trip shared with other requests). Until it replies
    /// the connection is suspended and the polling thread serves others.
    case deferred
}

extension HTTPResponder {
    public func largeBodyLimit(for head: HTTPRequestHead) -> Int? { nil }

    /// Replies at once with `respond(to:plan:)`.
    public func respond(to request: HTTPRequest, plan: (any HTTPPlan)?, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        reply(respond(to: request, plan: plan))
    }
}

import Dispatch
import Logging
import MicroHTTP
import Synchronization
@_exported import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A responder whose behaviour is chosen by path, recording what the server asked of it.
///
/// - `/deny…`: preflight refuses with 401 and a body.
/// - `/small…`: echoes, with a body limit of 16 bytes from preflight.
/// - `/slow…`: runs on the serial worker; `respond` signals `slowStarted`, then waits for `slowGate`.
/// - `/pooled…`: runs on the worker pool, and blocks the same way as `/slow…`.
/// - `/transfer…`: runs on the transfer worker; signals `transferStarted`, then waits for `transferGate`.
/// - `/upload…`: takes a body of up to 1 MiB whatever the server's limit (`largeBodyLimit`), and
///   answers how it arrived: `held=<bytes in memory> spooled=<bytes in the spool> sum=<byte sum>`,
///   the spool's bytes read through its mapping.
/// - `/deferred-now…`: deferred, and replied to before `respond` returns.
/// - `/deferred…`: deferred; `respond` keeps the reply and signals `deferredStarted`, and
///   `replyToDeferred()` replies from the caller's thread.
/// - `/stream…`: a streamed body of `streamPieces` (an empty piece among them); `/stream-fail…`:
///   its first three pieces, then the producer throws. `liveStreams` counts those not yet freed.
/// - `/live…`: a live body (server-sent events' shape) that sends what `push` queued and waits
///   for more, ending after a push of `nil`; `liveReads` counts its producer's calls. One at a
///   time: they share the queue.
/// - `/held…`: a held answer (`HTTPResponse.held`) whose release, counted in `releases`, gives
///   `released <path>`; `/offheld…` the same from the worker pool.
/// - anything else: echoes method, path, query items, body length and body.
final class ProbeResponder: HTTPResponder {
    let slowStarted = DispatchSemaphore(value: 0)
    let slowGate = DispatchSemaphore(value: 0)
    let transferStarted = DispatchSemaphore(value: 0)
    let transferGate = DispatchSemaphore(value: 0)
    let deferredStarted = DispatchSemaphore(value: 0)
    private let deferredReplies = Mutex<[@Sendable (HTTPResponse) -> Void]>([])
    private let preflightPaths = Mutex<[String]>([])
    private let respondedPaths = Mutex<[String]>([])
    private let streams = Mutex<[WeakStream]>([])
    private let releaseCount = Mutex(0)
    private let live = Mutex(Live())

    private struct Live {
        var queue: [[UInt8]?] = []
        var reads = 0
        var bodies: [WeakStream] = []
    }

    /// How many times live bodies' producers were asked for a piece.
    var liveReads: Int { live.withLock { $0.reads } }

    /// Queues `piece` for every live body (`nil`: the end) and wakes them.
    func push(_ piece: [UInt8]?) {
        let bodies = live.withLock { live in
            live.queue.append(piece)
            return live.bodies.compactMap(\.body)
        }
        for body in bodies { body.wake() }
    }

    /// How many held answers were released.
    var releases: Int { releaseCount.withLock { $0 } }

    private struct WeakStream {
        weak var body: HTTPStreamBody?
    }

    /// The streamed bodies answered that the transport has not released yet.
    var liveStreams: Int { streams.withLock { $0.filter { $0.body != nil }.count } }

    var preflighted: [String] { preflightPaths.withLock { $0 } }
    var responded: [String] { respondedPaths.withLock { $0 } }

    func preflight(_ head: HTTPRequestHead) -> HTTPPreflight {
        preflightPaths.withLock { $0.append(head.path) }
        if head.path.hasPrefix("/deny") {
            return .refuse(HTTPResponse(status: 401, headers: [("Content-Type", "text/plain")], body: Array("denied".utf8)))
        }
        if head.path.hasPrefix("/small") { return .proceed(.pollingThread, plan: PathPlan(path: head.path), maxBodyBytes: 16) }
        if head.path.hasPrefix("/slow") { return .proceed(.serialWorker, plan: nil) }
        if head.path.hasPrefix("/pooled") { return .proceed(.workerPool, plan: nil) }
        if head.path.hasPrefix("/transfer") { return .proceed(.transferWorker, plan: nil) }
        if head.path.hasPrefix("/deferred") { return .proceed(.deferred, plan: nil) }
        if head.path.hasPrefix("/offheld") { return .proceed(.workerPool, plan: nil) }
        return .proceed(.pollingThread, plan: PathPlan(path: head.path))
    }

    func largeBodyLimit(for head: HTTPRequestHead) -> Int? { head.path.hasPrefix("/upload") ? 1 << 20 : nil }

    func respond(to request: HTTPRequest, plan: (any HTTPPlan)?) -> HTTPResponse {
        if request.head.path.hasPrefix("/upload") {
            respondedPaths.withLock { $0.append(request.head.path) }
            let spooled = request.spooled?.withBytes { $0.reduce(0) { $0 + Int($1) } } ?? 0
            let sum = request.body.reduce(0) { $0 + Int($1) } + spooled
            let text = "held=\(request.body.count) spooled=\(request.spooled?.count ?? 0) sum=\(sum)"
            return HTTPResponse(status: 200, body: Array(text.utf8))
        }
        if let plan {
            // The plan preflight gave comes back with its own request.
            #expect((plan as? PathPlan)?.path == request.head.path)
        }
        respondedPaths.withLock { $0.append(request.head.path) }
        if request.head.path.hasPrefix("/stream") {
            let response = Self.streamed(failing: request.head.path.hasPrefix("/stream-fail"))
            streams.withLock { $0.append(WeakStream(body: response.bodyStream)) }
            return response
        }
        if request.head.path.hasPrefix("/live") {
            var response = HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")])
            let body = HTTPStreamBody(live: { [self] in
                live.withLock { live -> HTTPStreamBody.Next in
                    live.reads += 1
                    guard !live.queue.isEmpty else { return .wait }
                    return live.queue.removeFirst().map(HTTPStreamBody.Next.piece) ?? .end
                }
            })
            live.withLock { $0.bodies.append(WeakStream(body: body)) }
            streams.withLock { $0.append(WeakStream(body: body)) }
            response.bodyStream = body
            return response
        }
        if request.head.path.hasPrefix("/held") || request.head.path.hasPrefix("/offheld") {
            let path = request.head.path
            return .held { [self] in
                releaseCount.withLock { $0 += 1 }
                return HTTPResponse(status: 200, body: Array("released \(path)".utf8))
            }
        }
        if request.head.path.hasPrefix("/transfer") {
            transferStarted.signal()
            transferGate.wait()
            return HTTPResponse(status: 200, body: Array("transfer done".utf8))
        }
        if request.head.path.hasPrefix("/slow") || request.head.path.hasPrefix("/pooled") {
            slowStarted.signal()
            slowGate.wait()
            return HTTPResponse(status: 200, body: Array("slow done".utf8))
        }
        let head = request.head
        let query = head.queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let lines = [
            "method=\(head.method)", "path=\(head.path)", "query=\(query)", "length=\(request.body.count)",
            "remote=\(head.remoteAddress)", "hosts=\(head.headers.values("Host").count)",
            "body=\(String(decoding: request.body, as: UTF8.self))",
        ]
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "text/plain")], body: Array(lines.joined(separator: "\n").utf8))
    }

    func respond(to request: HTTPRequest, plan: (any HTTPPlan)?, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        respondedPaths.withLock { $0.append(request.head.path) }
        if request.head.path.hasPrefix("/deferred-now") {
            return reply(HTTPResponse(status: 200, body: Array("replied at once".utf8)))
        }
        deferredReplies.withLock { $0.append(reply) }
        deferredStarted.signal()
    }

    /// What `/stream…` sends: pieces larger than a connection's buffer, and an empty one.
    static let streamPieces: [[UInt8]] = [
        [UInt8](repeating: 0x61, count: 50_000), [], [UInt8](repeating: 0x62, count: 70_000), Array("end".utf8),
    ]

    struct StreamFailure: Error {}

    /// A 200 whose body is `streamPieces`, or their first three and then a throw.
    static func streamed(failing: Bool) -> HTTPResponse {
        let next = Mutex(0)
        var response = HTTPResponse(status: 200, headers: [("Content-Type", "application/octet-stream")])
        response.bodyStream = HTTPStreamBody(blockSize: 16 * 1024) {
            let index = next.withLock { index in
                defer { index += 1 }
                return index
            }
            if failing, index == 3 { throw StreamFailure() }
            return index < streamPieces.count ? streamPieces[index] : nil
        }
        return response
    }

    /// Replies to the oldest deferred request still waiting, on the caller's thread.
    func replyToDeferred() {
        let reply = deferredReplies.withLock { $0.removeFirst() }
        reply(HTTPResponse(status: 200, body: Array("replied later".utf8)))
    }

    func transportError(_ error: HTTPTransportError, head: HTTPRequestHead?) -> HTTPResponse {
        switch error {
        case .malformedFraming(let reason):
            return HTTPResponse(status: 400, body: Array("transport: \(reason)".utf8))
        case .bodyTooLarge(let limit):
            return HTTPResponse(status: 413, body: Array("transport: over \(limit)".utf8))
        case .serialWorkerBusy(let waiting):
            return HTTPResponse(status: 429, body: Array("transport: \(waiting) waiting".utf8))
        case .transferWorkerBusy(let waiting):
            return HTTPResponse(status: 429, body: Array("transport: \(waiting) transfers waiting".utf8))
        case .spoolFailed:
            return HTTPResponse(status: 503, body: Array("transport: not spooled".utf8))
        case .malformedHead(let field, let reason):
            return HTTPResponse(status: 400, body: Array("transport: \(field): \(reason)".utf8))
        case .requestTargetTooLong(let reason):
            return HTTPResponse(status: 414, body: Array("transport: \(reason)".utf8))
        case .tooManyConnections(let limit):
            return HTTPResponse(status: 503, headers: [("Retry-After", "1")], body: Array("transport: \(limit) connections".utf8))
        }
    }
}

/// The plan `ProbeResponder` hands itself: the path preflight saw.
final class PathPlan: Sendable {
    let path: String
    init(path: String) { self.path = path }
}

/// A server on `host`, ephemeral port, with a fresh `ProbeResponder`.
///
/// The caller shuts it down (`defer { server.shutdown() }`), which also keeps it alive until then.
func makeServer(
    host: String = "127.0.0.1", maxBodyBytes: Int = 1024, threads: Int = 2, logger: Logger = quietLogger,
    connectionTimeoutSeconds: Int = 10, serialWorkerQueueLimit: Int = 4,
    configure: (inout HTTPServerConfiguration) -> Void = { _ in }
) throws -> (server: HTTPServer, responder: ProbeResponder) {
    let responder = ProbeResponder()
    var configuration = HTTPServerConfiguration(host: host, port: 0)
    configuration.serialWorkerQueueLimit = serialWorkerQueueLimit
    configuration.maxBodyBytes = maxBodyBytes
    configuration.threads = threads
    configuration.connectionTimeoutSeconds = connectionTimeoutSeconds
    configure(&configuration)
    let server = try HTTPServer(configuration: configuration, responder: responder, logger: logger)
    return (server, responder)
}

/// Sends `request` on a new connection to a new server and expects the transport's 400 naming
/// `reason`, the connection closed, and the responder never asked (not even to preflight).
func expectRefusedBeforePreflight(_ request: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let (server, responder) = try makeServer()
    defer { server.shutdown() }
    let client = try RawHTTPClient(port: server.port)
    try client.send(request)
    let response = try client.readResponse()
    #expect(response.status == 400, sourceLocation: sourceLocation)
    #expect(response.text == "transport: \(reason)", sourceLocation: sourceLocation)
    #expect(response.saysClose, sourceLocation: sourceLocation)
    #expect(client.isClosedByServer(), sourceLocation: sourceLocation)
    #expect(responder.preflighted.isEmpty, sourceLocation: sourceLocation)
    #expect(responder.responded.isEmpty, sourceLocation: sourceLocation)
}

/// A logger that drops everything, so test output shows only test results.
let quietLogger = Logger(label: "MicroHTTPTests") { _ in SwiftLogNoOpLogHandler() }

import CMicroHTTPD
import Dispatch
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything libmicrohttpd's callbacks reach through their `cls` pointer: immutable or atomic.
///
/// `HTTPServer` hands it to `MHD_start_daemon` with `Unmanaged.passRetained` and releases it
/// after `MHD_stop_daemon`, when no callback can run any more.
final class ServerContext: Sendable {
    let responder: any HTTPResponder
    let logger: Logger
    let maxBodyBytes: Int
    /// Where large bodies are spooled (`HTTPServerConfiguration.spoolDirectory`).
    let spoolDirectory: String?
    /// The request target's limits, applied when its request line is complete.
    let maxRequestTargetBytes: Int
    let maxQueryItems: Int
    /// The longest head there can be: the connection's memory pool.
    let maxHeadBytes: Int
    /// Requests that may wait for the serial worker besides the one it runs.
    let serialWorkerQueueLimit: Int
    /// The transport's own lines about refused requests and dropped connections, which clients
    /// cause before any token is checked.
    let refusalLines = LogBudget(perSecond: 20)
    /// Request deadlines and connection limits per address.
    let connectionGuard: ConnectionGuard
    /// Body bytes read in all (kept or discarded) past which a request's connection is dropped.
    let discardLimit: Int
    /// Argon2id and the like, one at a time.
    let serialWorker: OffloadWorker
    /// Imports' and exports' derivations, one at a time, apart from the serial worker's.
    let transferWorker: OffloadWorker
    /// Blocking work (durable commits), overlapping.
    let pool: OffloadWorker
    /// Entered when a request's state is created, left when libmicrohttpd completes it.
    let inFlight = DispatchGroup()
    /// Entered when a request is deferred, left when libmicrohttpd completes it (its reply sent,
    /// or its connection closed): `MHD_stop_daemon` must not run while a connection is
    /// suspended, nor close a resumed one before its reply is out.
    let deferred = DispatchGroup()
    /// Set by `shutdown()`: from then on every response closes its connection.
    let isShuttingDown = Atomic(false)
    /// Live bodies being sent (server-sent events), which may hold their connection suspended:
    /// ended before `MHD_stop_daemon`, which must not run while a connection is suspended.
    let liveBodies = Mutex<[ObjectIdentifier: HTTPStreamBody]>([:])

    init(
        responder: any HTTPResponder, logger: Logger, maxBodyBytes: Int, spoolDirectory: String?, poolThreads: Int,
        serialWorkerQueueLimit: Int,
        connectionLimits: ConnectionGuard.Limits, maxRequestTargetBytes: Int, maxQueryItems: Int, maxHeadBytes: Int
    ) {
        self.maxRequestTargetBytes = maxRequestTargetBytes
        self.maxQueryItems = maxQueryItems
        self.maxHeadBytes = maxHeadBytes
        connectionGuard = ConnectionGuard(limits: connectionLimits)
        serialWorker = OffloadWorker(threads: 1, name: "http-serial")
        transferWorker = OffloadWorker(threads: 1, name: "http-transfer")
        pool = OffloadWorker(threads: poolThreads, name: "http-pool")
        self.responder = responder
        self.logger = logger
        self.maxBodyBytes = maxBodyBytes
        self.spoolDirectory = spoolDirectory
        self.serialWorkerQueueLimit = serialWorkerQueueLimit
        let (limit, overflow) = maxBodyBytes.addingReportingOverflow(max(maxBodyBytes, 64 * 1024))
        self.discardLimit = overflow ? Int.max : limit
    }

    /// The request-line callback's body: the raw target, which becomes the request's
    /// `*con_cls` (retained) until the access handler's first call takes it.
    /// It also tells the connection guard that the connection is mid-request (no longer idle).
    func requestLine(_ uri: UnsafePointer<CChar>?, connection: OpaquePointer?) -> UnsafeMutableRawPointer? {
        if let connection { connectionGuard.requestLineReceived(connection) }
        let target = RequestTarget.capture(uri, maxBytes: maxRequestTargetBytes, maxQueryItems: maxQueryItems)
        return Unmanaged.passRetained(target).toOpaque()
    }

    /// The access handler's body; see `MHD_AccessHandlerCallback` in microhttpd.h.
    ///
    /// Called once when the headers are complete (`*requestContext` is the request-line
    /// callback's `RequestTarget`), once per body chunk (`*uploadDataSize > 0`) and once more at
    /// the end (`*uploadDataSize == 0`); after a resume, the end call comes again.
    func handle(
        connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>,
        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let state = requestContext.pointee.flatMap(Self.requestState) else {
            let target = requestContext.pointee.map { Unmanaged<RequestTarget>.fromOpaque($0).takeRetainedValue() }
            let (head, syntax) = HTTPRequestHead.read(
                connection: connection, url: url, method: method, version: version, target: target, maxHeadBytes: maxHeadBytes)
            let isHTTP11 = version.map { strcmp($0, "HTTP/1.1") == 0 } ?? false
            // A connection over its address's limit is answered at once, its body unread.
            let overLimit =
                connectionGuard.isOverLimit(connection)
                ? HTTPTransportError.tooManyConnections(limit: connectionGuard.perAddressConnectionLimit) : nil
            let (state, refusal) = begin(
                head, refusal: overLimit ?? target?.overLimit ?? syntax ?? target?.pathRefusal, isHTTP11: isHTTP11)
            inFlight.enter()
            requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
            connectionGuard.headReceived(connection, expectsBody: refusal == nil && state.expectsBody)
            // libmicrohttpd 0.9.75 accepts a response only on this call or the final one. A
            // refusal of the framing cannot wait for the final call (the body may be huge, or its
            // framing ambiguous), so it goes now, as an "early" response that closes the connection.
            guard let refusal else { return .YES }
            return send(refusal, on: connection)
        }
        let size = uploadDataSize.pointee
        if size > 0 {
            uploadDataSize.pointee = 0
            if state.expectsBody { connectionGuard.bodyReceived(connection, bytes: size) }
            return consume(UnsafeRawBufferPointer(start: uploadData, count: size), into: state) ? .YES : .NO
        }
        if state.expectsBody { connectionGuard.bodyComplete(connection) }
        return finish(state, on: connection)
    }

    /// The request-completed callback's body: drops the state (also after aborts and timeouts),
    /// or the request-line callback's target when the access handler never ran (libmicrohttpd
    /// refused the head itself).
    func complete(connection: OpaquePointer?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        if let connection { connectionGuard.requestCompleted(connection) }
        guard let opaque = requestContext.pointee else { return }
        requestContext.pointee = nil
        guard Self.requestState(opaque) != nil else {
            Unmanaged<RequestTarget>.fromOpaque(opaque).release()
            return
        }
        let state = Unmanaged<RequestState>.fromOpaque(opaque).takeRetainedValue()
        if state.progress.withLock({ $0.deferred }) { deferred.leave() }
        inFlight.leave()
    }

    /// The request's state when `*con_cls` holds one, `nil` when it holds the request-line
    /// callback's `RequestTarget`. Checked by exact type (both classes are final).
    private static func requestState(_ opaque: UnsafeMutableRawPointer) -> RequestState? {
        let object = Unmanaged<AnyObject>.fromOpaque(opaque).takeUnretainedValue()
        return type(of: object) == RequestState.self ? unsafeDowncast(object, to: RequestState.self) : nil
    }

    /// First call: refuses a head found malformed (`refusal`), checks framing and the declared
    /// length, then asks preflight.
    ///
    /// - Returns: the request's state, and a refusal to queue at once (then the state is answered).
    private func begin(_ head: HTTPRequestHead, refusal: HTTPTransportError?, isHTTP11: Bool) -> (RequestState, HTTPResponse?) {
        // A route that takes large bodies (an upload) says so from its head alone, before any
        // authentication; every other request keeps the server's limit.
        let routeLimit = refusal == nil ? responder.largeBodyLimit(for: head).map { max($0, maxBodyBytes) } : nil
        let verdict =
            refusal.map(RequestFraming.Verdict.refuse)
            ?? RequestFraming.check(head.headers, maxBodyBytes: routeLimit ?? maxBodyBytes, requiresHost: isHTTP11)
        switch verdict {
        case .refuse(let error):
            let refusal = transportRefusal(error, head: head)
            let state = RequestState(head: head, plan: nil, pendingAnswer: nil, expectedLength: nil, maxBodyBytes: maxBodyBytes)
            state.progress.withLock { $0.phase = .answered }
            return (state, refusal)
        case .accept(let framing):
            let state: RequestState
            let expectsBody = framing.isChunked || (framing.declaredLength ?? 0) > 0
            switch responder.preflight(head) {
            case .refuse(var answer)
            where head.headers.firstIndex(named: "Expect") != nil || (framing.declaredLength ?? 0) > maxBodyBytes:
                // Queued now, libmicrohttpd sends no `100 Continue` before it (it would on the
                // final call: `need_100_continue`); an early answer closes the connection. So is
                // the refusal of a large upload, whose body is not worth reading to discard.
                answer.closeConnection = true
                state = RequestState(head: head, plan: nil, pendingAnswer: nil, expectedLength: nil, maxBodyBytes: maxBodyBytes)
                state.progress.withLock { $0.phase = .answered }
                return (state, answer)
            case .refuse(let answer):
                state = RequestState(
                    head: head, plan: nil, pendingAnswer: answer, expectedLength: nil, maxBodyBytes: maxBodyBytes,
                    expectsBody: expectsBody)
            case .proceed(let execution, let plan, let requestLimit):
                let limit = min(routeLimit ?? maxBodyBytes, requestLimit ?? .max)
                if let declared = framing.declaredLength, declared > limit {
                    // Over preflight's lower limit: refused at once, before any of the body is read.
                    let refusal = transportRefusal(.bodyTooLarge(limit: limit), head: head)
                    state = RequestState(head: head, plan: nil, pendingAnswer: nil, expectedLength: nil, maxBodyBytes: limit)
                    state.progress.withLock { $0.phase = .answered }
                    return (state, refusal)
                }
                // A large upload goes to a file as it arrives, not to memory.
                let spool = routeLimit != nil && expectsBody ? spoolDirectory.flatMap(HTTPSpooledBody.init(directory:)) : nil
                state = RequestState(
                    head: head, plan: (execution, plan), pendingAnswer: nil, expectedLength: framing.declaredLength,
                    maxBodyBytes: limit, expectsBody: expectsBody, spool: spool)
            }
            return (state, nil)
        }
    }

    /// A body chunk: appends it, or counts and discards it once the request has an answer.
    ///
    /// libmicrohttpd 0.9.75 refuses `MHD_queue_response` while a body is arriving, so a body
    /// found too large here gets its 413 on the final call; until then the rest is discarded,
    /// up to `discardLimit` bytes in all, past which the connection is dropped unanswered.
    /// - Returns: `false` to make libmicrohttpd close the connection.
    private func consume(_ chunk: UnsafeRawBufferPointer, into state: RequestState) -> Bool {
        enum Outcome { case kept, discarded, overLimit, unspooled, abort }
        let outcome: Outcome = state.progress.withLock { progress in
            progress.received += chunk.count
            let answered: Bool
            switch progress.phase {
            case .receiving: answered = progress.pendingAnswer != nil
            case .offloaded, .held, .answered: answered = true
            }
            if answered {
                return progress.received > discardLimit ? .abort : .discarded
            }
            guard progress.received <= state.maxBodyBytes else {
                progress.body.withUnsafeMutableBytes { WipedBytes.zero($0) }
                progress.body = []
                return .overLimit
            }
            if let spool = state.spool { return spool.append(chunk) ? .kept : .unspooled }
            WipedBytes.append(chunk, to: &progress.body)
            return .kept
        }
        switch outcome {
        case .kept, .discarded:
            return true
        case .unspooled:
            let refusal = transportRefusal(.spoolFailed, head: state.head)
            state.progress.withLock { $0.pendingAnswer = refusal }
            return true
        case .abort:
            log(
                "dropped connection: body far over the limit",
                ["http.method": "\(LogText.sanitized(state.head.method, maxBytes: LogText.maxMethodBytes))"])
            return false
        case .overLimit:
            let refusal = transportRefusal(.bodyTooLarge(limit: state.maxBodyBytes), head: state.head)
            state.progress.withLock { $0.pendingAnswer = refusal }
            return true
        }
    }

    /// The responder's answer to a transport refusal, made to close the connection, and logged.
    private func transportRefusal(_ error: HTTPTransportError, head: HTTPRequestHead) -> HTTPResponse {
        var answer = responder.transportError(error, head: head)
        answer.closeConnection = true
        log(
            "refused request",
            [
                "http.method": "\(LogText.sanitized(head.method, maxBytes: LogText.maxMethodBytes))",
                "http.status": "\(answer.status)",
            ])
        return answer
    }

    /// Final call: queues the early answer, runs the responder here or on the worker, queues
    /// the worker's answer after a resume, or, on the next pass, a held answer's release.
    private func finish(_ state: RequestState, on connection: OpaquePointer) -> MHD_Result {
        enum Next {
            case send(HTTPResponse)
            case release(@Sendable () -> HTTPResponse)
            case respond([UInt8])
            case wait
        }
        let next: Next = state.progress.withLock { progress in
            switch progress.phase {
            case .answered, .offloaded(nil):
                return .wait
            case .offloaded(let response?):
                progress.phase = .answered
                return .send(response)
            case .held(let release):
                progress.phase = .answered
                return .release(release)
            case .receiving:
                if let answer = progress.pendingAnswer {
                    progress.phase = .answered
                    return .send(answer)
                }
                // Kept as well, so that the state's end zeroes it (`RequestState.deinit`).
                return .respond(progress.body)
            }
        }
        switch next {
        case .wait:
            return .YES
        case .send(let response):
            return send(response, on: connection)
        case .release(let release):
            return send(release(), on: connection)
        case .respond(let body):
            // A request without a pending answer was let through by preflight, with a plan.
            guard let (execution, plan) = state.plan else { return .NO }
            let request = HTTPRequest(head: state.head, body: body, spooled: state.spool)
            switch execution {
            case .pollingThread:
                state.progress.withLock { $0.phase = .answered }
                let response = responder.respond(to: request, plan: plan)
                if let release = response.release {
                    // Not queued: libmicrohttpd keeps a connection whose final call queued
                    // nothing among those it has ready, and calls again on its next pass.
                    state.progress.withLock { $0.phase = .held(release) }
                    return .YES
                }
                return send(response, on: connection)
            case .serialWorker:
                return offload(
                    request, plan: plan, to: serialWorker, queueLimit: serialWorkerQueueLimit, state: state,
                    connection: connection)
            case .transferWorker:
                return offload(
                    request, plan: plan, to: transferWorker, queueLimit: serialWorkerQueueLimit,
                    busy: { .transferWorkerBusy(queued: $0) }, state: state, connection: connection)
            case .workerPool:
                return offload(request, plan: plan, to: pool, state: state, connection: connection)
            case .deferred:
                return deferReply(request, plan: plan, state: state, connection: connection)
            }
        }
    }

    /// Lets the responder reply when it can. A reply given before `respond` returns is queued at
    /// once; otherwise the connection is suspended, and the reply resumes it (the final call
    /// that follows the resume queues it).
    private func deferReply(
        _ request: HTTPRequest, plan: (any HTTPPlan)?, state: RequestState, connection: OpaquePointer
    ) -> MHD_Result {
        let handle = SuspendedConnection(pointer: connection)
        deferred.enter()
        state.progress.withLock { progress in
            progress.phase = .offloaded(nil)
            progress.deferred = true
        }
        responder.respond(to: request, plan: plan) { response in
            let response = response.resolved()
            let suspended = state.progress.withLock { progress in
                progress.phase = .offloaded(response)
                return progress.suspended
            }
            if suspended { MHD_resume_connection(handle.pointer) }
        }
        let reply = state.progress.withLock { progress -> HTTPResponse? in
            if case .offloaded(let response?) = progress.phase {
                progress.phase = .answered
                return response
            }
            // Under the lock, so that a reply racing this either is seen above or sees `suspended`.
            progress.suspended = true
            MHD_suspend_connection(connection)
            return nil
        }
        guard let reply else { return .YES }
        return send(reply, on: connection)
    }

    /// Suspends the connection and lets `worker` answer; the worker resumes it when done.
    /// With `queueLimit` jobs already waiting, answers `busy` (of how many wait) at once instead.
    private func offload(
        _ request: HTTPRequest, plan: (any HTTPPlan)?, to worker: OffloadWorker, queueLimit: Int = .max,
        busy: (Int) -> HTTPTransportError = { .serialWorkerBusy(queued: $0) }, state: RequestState, connection: OpaquePointer
    ) -> MHD_Result {
        let handle = SuspendedConnection(pointer: connection)
        let responder = self.responder
        let submitted = worker.submit(
            queueLimit: queueLimit,
            prepare: {
                state.progress.withLock { $0.phase = .offloaded(nil) }
                MHD_suspend_connection(connection)
            },
            job: {
                let response = responder.respond(to: request, plan: plan).resolved()
                state.progress.withLock { $0.phase = .offloaded(response) }
                MHD_resume_connection(handle.pointer)
            })
        switch submitted {
        case .accepted:
            return .YES
        case .full(let waiting):
            state.progress.withLock { $0.phase = .answered }
            log(
                "refused request: worker busy",
                [
                    "http.method": "\(LogText.sanitized(request.head.method, maxBytes: LogText.maxMethodBytes))",
                    "waiting": "\(waiting)",
                    "worker": "\(worker.name)",
                ])
            return send(responder.transportError(busy(waiting), head: request.head), on: connection)
        case .stopped:
            // Only while the server is stopping: close rather than block a polling thread.
            return .NO
        }
    }

    /// One of the transport's lines about a refusal, within `refusalLines`.
    private func log(_ message: Logger.Message, _ metadata: Logger.Metadata) {
        guard logger.logLevel <= .info, refusalLines.admit(logger, leftOut: "refusal lines left out") else { return }
        logger.info(message, metadata: metadata)
    }

    private func send(_ response: consuming HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        // A held answer reaching here from anywhere but a polling thread's pass is released now.
        let response = response.resolved()
        if let body = response.bodyStream, body.isLive {
            let id = ObjectIdentifier(body)
            let stopping = liveBodies.withLock { bodies in
                bodies[id] = body
                return isShuttingDown.load(ordering: .relaxed)
            }
            body.attach(connection) { [weak self] in self?.liveBodies.withLock { _ = $0.removeValue(forKey: id) } }
            if stopping { body.end() }
        }
        return response.queue(on: connection, close: isShuttingDown.load(ordering: .relaxed), logger: logger)
    }

    /// Ends every live body at its next read and resumes those waiting: the server is stopping.
    func endLiveBodies() {
        for body in liveBodies.withLock({ Array($0.values) }) { body.end() }
    }
}

/// A connection suspended for the worker. `@unchecked Sendable`: libmicrohttpd documents
/// `MHD_resume_connection` as safe from any thread, and a suspended connection is never freed.
struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

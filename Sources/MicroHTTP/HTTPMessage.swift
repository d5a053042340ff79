/// A request header list that keeps every occurrence and order, compared case-insensitively by name.
///
/// The names and values are kept as received, back to back in one buffer: a request's head is
/// read on every request, while the application looks at one or two of its headers, so values
/// become `String`s only when asked for.
public struct HTTPHeaders: Sendable, Sequence {
    /// Where one field's name and value sit in `bytes`.
    private struct Field: Sendable {
        var nameStart: Int32
        var valueStart: Int32
        var valueEnd: Int32
    }

    private var bytes: [UInt8] = []
    private var fields: [Field] = []

    public init(_ entries: [(name: String, value: String)] = []) {
        for (name, value) in entries { append(name: name, value: value) }
    }

    /// The number of fields, repeated names included.
    public var count: Int { fields.count }

    /// The first value of `name`, compared without regard to ASCII case.
    public subscript(name: String) -> String? {
        firstIndex(named: name).map(value(at:))
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.indices.filter { nameEquals(at: $0, name) }.map(value(at:))
    }

    public mutating func append(name: String, value: String) {
        var name = name
        var value = value
        name.withUTF8 { name in value.withUTF8 { append(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer($0)) } }
    }

    /// Appends a field from raw bytes (as libmicrohttpd hands them over).
    mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        // As typed buffers: appending those is one copy, a raw buffer's bytes go one by one.
        let nameStart = Int32(truncatingIfNeeded: bytes.count)
        bytes.append(contentsOf: name.assumingMemoryBound(to: UInt8.self))
        let valueStart = Int32(truncatingIfNeeded: bytes.count)
        bytes.append(contentsOf: value.assumingMemoryBound(to: UInt8.self))
        fields.append(Field(nameStart: nameStart, valueStart: valueStart, valueEnd: Int32(truncatingIfNeeded: bytes.count)))
    }

    /// Zeroes the names and values where they lie (a bearer token, a bundle passphrase), in the
    /// buffer this value shares with its copies: only for headers no other code reads again
    /// (a head the transport read, as it goes). Not `mutating`: a head's headers are a constant,
    /// whose reads then need no exclusivity check.
    func wipeInPlace() {
        bytes.withUnsafeBytes { bytes in
            WipedBytes.zero(UnsafeMutableRawBufferPointer(mutating: bytes))
        }
    }

    /// Reserves room for `fields` fields of `bytes` bytes in all.
    mutating func reserveCapacity(fields count: Int, bytes byteCount: Int) {
        fields.reserveCapacity(count)
        bytes.reserveCapacity(byteCount)
    }

    /// The name of field `index` (invalid UTF-8 read as U+FFFD).
    func name(at index: Int) -> String {
        let field = fields[index]
        return string(Int(field.nameStart)..<Int(field.valueStart))
    }

    /// The value of field `index` (invalid UTF-8 read as U+FFFD).
    func value(at index: Int) -> String {
        let field = fields[index]
        return string(Int(field.valueStart)..<Int(field.valueEnd))
    }

    /// Whether field `index` is named `name`, without regard to ASCII case.
    func nameEquals(at index: Int, _ name: String) -> Bool {
        let field = fields[index]
        let start = Int(field.nameStart)
        let count = Int(field.valueStart) - start
        guard name.utf8.count == count else { return false }
        var name = name
        return name.withUTF8 { expected in
            bytes.withUnsafeBufferPointer { all in
                for n in 0..<count where all[start + n].asciiLowercased != expected[n].asciiLowercased { return false }
                return true
            }
        }
    }

    func firstIndex(named name: String) -> Int? {
        fields.indices.first { nameEquals(at: $0, name) }
    }

    /// Whether field `index` is named `lowercased`, a lowercase ASCII literal, in any ASCII case:
    /// the transport's own lookups, compared without a `String`.
    func nameEquals(at index: Int, lowercased name: StaticString) -> Bool {
        let field = fields[index]
        let start = Int(field.nameStart)
        let count = Int(field.valueStart) - start
        guard name.utf8CodeUnitCount == count else { return false }
        let expected = name.utf8Start
        return bytes.withUnsafeBufferPointer { all in
            for n in 0..<count where all[start + n].asciiLowercased != expected[n] { return false }
            return true
        }
    }

    /// Calls `body` with the bytes of the first value of `name` (a lowercase ASCII literal,
    /// matched in any ASCII case), without making a `String` of them; `nil` without such a header.
    public func withFirstValue<R>(lowercased name: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        for index in fields.indices where nameEquals(at: index, lowercased: name) {
            let field = fields[index]
            return bytes.withUnsafeBufferPointer {
                body(UnsafeBufferPointer(rebasing: $0[Int(field.valueStart)..<Int(field.valueEnd)]))
            }
        }
        return nil
    }

    private func string(_ range: Range<Int>) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let headers: HTTPHeaders
        fileprivate var index = 0

        public mutating func next() -> (name: String, value: String)? {
            guard index < headers.count else { return nil }
            defer { index += 1 }
            return (headers.name(at: index), headers.value(at: index))
        }
    }

    public func makeIterator() -> Iterator { Iterator(headers: self) }
}

extension String {
    /// Equal but for ASCII case (header names are ASCII tokens), compared without allocating.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Through contiguous storage when both strings have it (native ones do): iterating a
        // UTF8View byte by byte is several times slower.
        let contiguous = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in Self.asciiCaseInsensitiveEqual(a, b) }
        }
        return (contiguous ?? nil) ?? Self.asciiCaseInsensitiveEqual(utf8, other.utf8)
    }

    private static func asciiCaseInsensitiveEqual(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Bool {
        !zip(a, b).contains { $0.asciiLowercased != $1.asciiLowercased }
    }
}

extension UInt8 {
    var asciiLowercased: UInt8 { self >= 0x41 && self <= 0x5A ? self | 0x20 : self }
}

/// What the server knows of a request once its headers have arrived, before any body byte.
///
/// Immutable, and a class: the server keeps it for the request's life and hands it to the
/// application, so passing it on costs one reference count. Its header bytes are zeroed when it
/// goes: they carry bearer tokens and passphrases.
public final class HTTPRequestHead: Sendable {
    /// The method as sent (`GET`, `POST`, …).
    public let method: String
    /// The path, percent-decoded, without the query string.
    public let path: String
    /// The path as sent, before percent-decoding, without the query string: what a proxy in
    /// front sees, and so what to route on (`/a%2Fb` is not `/a/b`).
    public let rawPath: String
    /// The query parameters in order, percent-decoded.
    public let queryItems: [(name: String, value: String)]
    public let headers: HTTPHeaders
    /// The peer's address (`127.0.0.1`, `::1`), without the port.
    public var remoteAddress: String { peer.text }
    let peer: PeerAddress
    /// Monotonic nanoseconds at which the headers were complete, for durations.
    public let receivedAt: UInt64
    /// Whether `deinit` zeroes the headers' bytes: a head the transport read, whose headers
    /// no other code holds (one made by an application may share its headers with others).
    private let wipesHeaders: Bool

    /// `rawPath` defaults to `path` (a path with nothing percent-encoded), `receivedAt` to now (a
    /// head made in a test then has a duration, where 0 made it the machine's uptime).
    public convenience init(
        method: String, path: String, rawPath: String? = nil, queryItems: [(name: String, value: String)] = [],
        headers: HTTPHeaders = HTTPHeaders(), remoteAddress: String = "127.0.0.1",
        receivedAt: UInt64 = HTTPRequestHead.monotonicNanoseconds()
    ) {
        self.init(
            method: method, path: path, rawPath: rawPath ?? path, queryItems: queryItems, headers: headers,
            peer: PeerAddress(text: remoteAddress), receivedAt: receivedAt, wipesHeaders: false)
    }

    init(
        method: String, path: String, rawPath: String, queryItems: [(name: String, value: String)], headers: HTTPHeaders,
        peer: PeerAddress, receivedAt: UInt64, wipesHeaders: Bool
    ) {
        self.wipesHeaders = wipesHeaders
        self.method = method
        self.path = path
        self.rawPath = rawPath
        self.queryItems = queryItems
        self.headers = headers
        self.peer = peer
        self.receivedAt = receivedAt
    }

    deinit {
        if wipesHeaders { headers.wipeInPlace() }
    }
}

/// A whole request: its head and its body.
public struct HTTPRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: [UInt8]
    /// The body, when it was written to a file as it arrived (`HTTPSpooledBody`); `body` is
    /// then empty.
    public var spooled: HTTPSpooledBody?

    public init(head: HTTPRequestHead, body: [UInt8] = [], spooled: HTTPSpooledBody? = nil) {
        self.head = head
        self.body = body
        self.spooled = spooled
    }

    /// Whether the request carries no body, held or spooled.
    public var hasNoBody: Bool { body.isEmpty && (spooled?.count ?? 0) == 0 }
}

/// A whole response. The server adds `Content-Length` (and `Connection`) itself, or chunks a
/// streamed body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// A body sent from an open file instead of `body` (which is then ignored): large answers
    /// that should not sit in memory.
    public var bodyFile: HTTPFileBody?
    /// A body made while it is sent, of a length not known beforehand, instead of `body` and
    /// `bodyFile` (which are then ignored): large answers made piece by piece. Sent once.
    public var bodyStream: HTTPStreamBody?
    /// Close the connection after this response (malformed framing, refused uploads).
    public var closeConnection: Bool
    /// What the request touched, as the application's ids (persistent refs), for its audit log;
    /// never sent.
    public var touched: [[UInt8]] = []
    /// Whether the body holds a secret: a hook that must see every secret leave (an audit log)
    /// treats the answer so. Never sent.
    public var carriesSecret = false
    /// Set on an answer that must wait (`held(_:)`): what gives the response to send.
    public var release: (@Sendable () -> HTTPResponse)?

    /// An answer that waits for the polling thread's next pass: answered on a polling thread,
    /// it is not queued; libmicrohttpd calls the access handler again on its next pass over
    /// the connections it has ready, having served the others in this one, and the server then
    /// sends what `release` gives. What the answer waits for (its audit line's `write`) is thus
    /// done once for every request of a pass. Answered anywhere else (a worker, a deferred
    /// reply), `release` is called at once.
    ///
    /// Built through the memberwise initializer: assigning `release` to a response built first
    /// copied it and dropped the copy, six retains and six releases every held answer.
    public static func held(_ release: @escaping @Sendable () -> HTTPResponse) -> HTTPResponse {
        HTTPResponse(
            status: 500, headers: [], body: [], bodyFile: nil, bodyStream: nil, closeConnection: false, touched: [],
            carriesSecret: false, release: release)
    }

    /// The response itself, or, for a held one, what its `release` gives now. Consuming: the
    /// response itself is moved out, not copied (a retain and a release per field, every answer).
    public consuming func resolved() -> HTTPResponse {
        guard let release else { return self }
        return release().resolved()
    }
}

extension HTTPResponse {
    /// Through the memberwise initializer, which builds the value at once
    /// (docs/performance.md#fewer-struct-copies).
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], closeConnection: Bool = false) {
        self.init(
            status: status, headers: headers, body: body, bodyFile: nil, bodyStream: nil, closeConnection: closeConnection,
            touched: [], carriesSecret: false, release: nil)
    }
}

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

/// Refusals the transport makes before the application sees a request.
public enum HTTPTransportError: Sendable, Equatable {
    /// `Content-Length` with `Transfer-Encoding`, two `Content-Length`, two `Host` headers, or an unparsable length.
    case malformedFraming(String)
    /// The body (declared or counted so far) exceeds `maxBodyBytes`, or preflight's lower limit.
    case bodyTooLarge(limit: Int)
    /// The serial worker already has `serialWorkerQueueLimit` requests waiting (each one, say,
    /// an Argon2id derivation): answered at once instead of queued.
    case serialWorkerBusy(queued: Int)
    /// The transfer worker already has `serialWorkerQueueLimit` requests waiting.
    case transferWorkerBusy(queued: Int)
    /// A large body could not be written to its spool file (a full disk): 503.
    case spoolFailed
    /// A part of the head that a proxy in front could read differently from this server, so
    /// refused (400) before any routing or authentication: `field` names the part ("method",
    /// "path", "request-line", "header", "Host", "Authorization"), `reason` says what is wrong.
    /// Neither holds a header value.
    case malformedHead(field: String, reason: String)
    /// The request target is longer than `maxRequestTargetBytes`, or its query has more than
    /// `maxQueryItems` parameters (414).
    case requestTargetTooLong(String)
    /// The client's address already holds `limit` connections, none of them idle: its new
    /// connection's first request is answered at once (503 with `Retry-After`), then closed.
    case tooManyConnections(limit: Int)
}

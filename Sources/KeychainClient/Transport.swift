import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOSSL

/// One request as the client sends it.
struct Request: Sendable {
    var method: HTTPMethod
    /// The path below the base URL, `/v1/items`.
    var path: String
    var query: [(name: String, value: String)] = []
    var body: [UInt8]?
    var contentType: String?
    var headers: [(name: String, value: String)] = []
    /// Safe to send twice: retried after a failure (``RetryPolicy``).
    var idempotent: Bool
    /// Sent without the bearer token (unlock, health).
    var anonymous = false
}

/// One answer: its status, the headers the client reads, and its body.
struct Response: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first(name: name) }
}

/// HTTP/1.1 with keep-alive over AsyncHTTPClient: a pool of connections per server, TLS with
/// the configured certificate authorities, no redirects followed (a redirect would carry the
/// token elsewhere).
final class Transport: Sendable {
    private let http: HTTPClient
    /// Event streams' connections: an idle stream reads a keep-alive line every 20 s at most, so
    /// its reads wait longer than a request's.
    private let streaming: HTTPClient
    private let base: String
    private let timeout: TimeAmount
    /// The largest body read from an answer: a page of a search is about 1 MiB, a bundle more.
    static let maxAnswerBytes = 512 << 20

    init(_ configuration: KeychainClientConfiguration) throws(KeychainError) {
        var base = configuration.url
        while base.hasSuffix("/") { base.removeLast() }
        guard base.hasPrefix("http://") || base.hasPrefix("https://") else {
            throw .param("url: \(configuration.url) is not an http:// or https:// URL")
        }
        self.base = base
        var tls = TLSConfiguration.makeClientConfiguration()
        if let file = configuration.certificateAuthorityFile {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file))
            } catch {
                throw .param("certificateAuthorityFile: \(file) is not a readable PEM file of certificates")
            }
        }
        var http = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(configuration.connectTimeout), read: TimeAmount(configuration.timeout)),
            connectionPool: .init(
                idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, configuration.maxConnections)))
        http.httpVersion = .http1Only
        // A refused connection fails at once; the client's own RetryPolicy decides what follows.
        http.connectionPool.retryConnectionEstablishment = false
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
        var streaming = http
        streaming.timeout.read = .seconds(Self.streamReadTimeoutSeconds)
        streaming.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 2
        self.streaming = HTTPClient(eventLoopGroupProvider: .singleton, configuration: streaming)
        self.timeout = TimeAmount(configuration.timeout)
    }

    /// How long an event stream may stay silent before it counts as lost.
    static let streamReadTimeoutSeconds: Int64 = 60

    deinit {
        // Not awaited: nothing else holds the client, so its connections only need closing.
        _ = http.shutdown()
        _ = streaming.shutdown()
    }

    /// `request` as AsyncHTTPClient sends it, with `token`.
    private func outgoing(_ request: Request, token: BearerToken?) -> HTTPClientRequest {
        var url = base + request.path
        if !request.query.isEmpty {
            url +=
                "?"
                + request.query.map { "\(Self.percentEncoded($0.name))=\(Self.percentEncoded($0.value))" }
                .joined(separator: "&")
        }
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = request.method
        if !request.anonymous, let token { outgoing.headers.add(name: "Authorization", value: "Bearer " + token.secret) }
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body {
            outgoing.headers.add(name: "Content-Type", value: request.contentType ?? "application/json")
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        return outgoing
    }

    /// Sends `request` (a GET of a stream) once with `token` and gives its body's bytes to
    /// `receive` as they come, until the server ends it or the task is cancelled; an answer
    /// other than 200 is thrown as the error it states.
    func stream(_ request: Request, token: BearerToken?, receive: ([UInt8]) -> Void) async throws(KeychainError) {
        let answer: HTTPClientResponse
        do {
            answer = try await streaming.execute(outgoing(request, token: token), timeout: timeout)
        } catch {
            throw .notAvailable("\(request.method.rawValue) \(base)\(request.path): no answer (\(Self.describe(error)))")
        }
        guard answer.status == .ok else {
            var body = (try? await answer.body.collect(upTo: 1 << 20)) ?? ByteBuffer()
            throw KeychainError(
                answer: Int(answer.status.code), body: body.readBytes(length: body.readableBytes) ?? [],
                retryAfter: answer.headers.first(name: "Retry-After").flatMap { Int($0) })
        }
        do {
            for try await var piece in answer.body { receive(piece.readBytes(length: piece.readableBytes) ?? []) }
        } catch {
            throw .notAvailable("\(request.method.rawValue) \(base)\(request.path): the stream broke (\(Self.describe(error)))")
        }
    }

    /// Sends `request` once with `token`; throws only when no answer came.
    func send(_ request: Request, token: BearerToken?) async throws(KeychainError) -> Response {
        let outgoing = outgoing(request, token: token)
        do {
            let answer = try await http.execute(outgoing, timeout: timeout)
            var buffer = try await answer.body.collect(upTo: Self.maxAnswerBytes)
            return Response(
                status: Int(answer.status.code), headers: answer.headers,
                body: buffer.readBytes(length: buffer.readableBytes) ?? [])
        } catch {
            throw .notAvailable("\(request.method.rawValue) \(base)\(request.path): no answer (\(Self.describe(error)))")
        }
    }

    func shutdown() async {
        try? await http.shutdown()
        try? await streaming.shutdown()
    }

    /// A transport error in a few words; never a header (the token is in one).
    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout, .deadlineExceeded: return "timed out"
            case .connectTimeout: return "connect timed out"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(error)"
            }
        }
        if error is NIOSSLError || error is BoringSSLError { return "TLS: \(error)" }
        return "\(error)"
    }

    private static let hex = Array("0123456789ABCDEF".unicodeScalars)

    /// RFC 3986's unreserved characters kept, every other byte as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

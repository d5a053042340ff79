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

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

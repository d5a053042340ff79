import MicroHTTP
import Synchronization
import Testing

/// `HTTPStreamBody`: a body made while it is sent (`MHD_create_response_from_callback`).
@Suite("Streamed response bodies")
struct HTTPStreamBodyTests {
    static let whole = ProbeResponder.streamPieces.flatMap { $0 }
    /// What `/stream-fail` sends before its producer throws.
    static let beforeFailure = ProbeResponder.streamPieces.prefix(3).flatMap { $0 }

    @Test func aStreamedBodyIsChunkedOverHTTP11AndTheConnectionServesTheNextRequest() throws {
        let (server, responder) = try makeServer()
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.header("Content-Length") == nil)
        #expect(response.header("Content-Type") == "application/octet-stream")
        #expect(!response.saysClose)
        #expect(!response.truncated, "the body ended with its last chunk")
        #expect(response.body == Self.whole)
        // The last chunk ended the body: the same connection answers again, and libmicrohttpd
        // has released the first response (and its stream) before reading the second request.
        try client.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().text.contains("path=/after"))
        #expect(responder.liveStreams == 0)
        server.shutdown()
    }

    @Test func aProducerThatThrowsCutsTheConnectionBeforeTheLastChunk() throws {
        let (server, responder) = try makeServer()
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /stream-fail HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.truncated, "a cut body must not end with the last chunk")
        #expect(response.body == Self.beforeFailure)
        #expect(client.isClosedByServer())
        server.shutdown()
        #expect(responder.liveStreams == 0, "the stream is released with its response")
    }

    @Test func anHTTP10ClientGetsTheBytesUntilTheServerCloses() throws {
        let (server, _) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /stream HTTP/1.0\r\n\r\n")
        let response = try client.readResponse(bodyUntilClose: true)
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == nil)
        #expect(response.header("Content-Length") == nil)
        #expect(response.body == Self.whole)
    }

    @Test func readAllGivesTheBytesThenWhatTheProducerThrew() throws {
        let whole = try #require(ProbeResponder.streamed(failing: false).bodyStream).readAll()
        #expect(whole.bytes == Self.whole)
        #expect(whole.failure == nil)
        let stream = try #require(ProbeResponder.streamed(failing: true).bodyStream)
        let cut = stream.readAll()
        #expect(cut.bytes == Self.beforeFailure)
        #expect(cut.failure is ProbeResponder.StreamFailure)
        // Ended for good: the producer is not asked again.
        let again = stream.readAll()
        #expect(again.bytes.isEmpty && again.failure is ProbeResponder.StreamFailure)
    }
}

/// Live bodies (`HTTPStreamBody(live:)`): a producer that waits holds its connection suspended
/// until woken, and the server's stop ends it.
@Suite("Live response bodies")
struct HTTPLiveBodyTests {
    /// Reads the head of `/live` and its first piece, `first`.
    private static func subscribe(_ server: HTTPServer, _ responder: ProbeResponder) throws -> (RawHTTPClient, RawResponse) {
        responder.push(Array("first".utf8))
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /live HTTP/1.1\r\nHost: t\r\n\r\n")
        var response = try client.readResponseHead()
        try client.readChunks(of: &response, atLeast: 5)
        return (client, response)
    }

    @Test func aWaitingBodyIsNotAskedAgainUntilWokenThenSendsWhatCame() throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        var (client, response) = try Self.subscribe(server, responder)
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.text == "first")
        // Asked for "first", then told to wait: a producer asked over and over would be a
        // polling thread spinning on a connection with nothing to send.
        #expect(eventually { responder.liveReads == 2 })
        responder.push(Array("second".utf8))
        try client.readChunks(of: &response, atLeast: 11)
        #expect(response.text == "firstsecond")
        #expect(responder.liveReads <= 4, "\(responder.liveReads) reads for two pieces")
        responder.push(nil)
        try client.readBody(of: &response)
        #expect(!response.truncated, "the body ends with its last chunk")
        #expect(response.text == "firstsecond")
        // The connection serves the next request.
        try client.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().text.contains("path=/after"))
        #expect(responder.liveStreams == 0)
    }

    @Test func stoppingTheServerEndsAWaitingBody() throws {
        let (server, responder) = try makeServer()
        var (client, response) = try Self.subscribe(server, responder)
        #expect(eventually { responder.liveReads == 2 })
        // Returns: no connection is left suspended for MHD_stop_daemon.
        server.shutdown()
        try client.readBody(of: &response)
        #expect(!response.truncated, "the body ends with its last chunk")
        #expect(response.text == "first")
        #expect(responder.liveStreams == 0)
    }

    @Test func aBodyWhoseClientLeftIsFreedWhenItNextSends() throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        var (client, _) = try Self.subscribe(server, responder)
        #expect(eventually { responder.liveReads == 2 })
        // The first client's socket closes as it is replaced.
        client = try RawHTTPClient(port: server.port)
        // While suspended the server cannot see the client gone; the next piece shows it.
        responder.push(Array(repeating: 0x78, count: 200_000))
        #expect(eventually { responder.liveStreams == 0 }, "the response and its body are freed")
        try client.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().text.contains("path=/after"))
    }

    @Test func readAllStopsWhereALiveProducerWaits() {
        let pieces = Mutex([Array("a".utf8), Array("b".utf8)])
        let body = HTTPStreamBody(live: {
            pieces.withLock { $0.isEmpty ? .wait : .piece($0.removeFirst()) }
        })
        #expect(body.isLive)
        #expect(body.readAll().bytes == Array("ab".utf8))
        pieces.withLock { $0.append(Array("c".utf8)) }
        #expect(body.readAll().bytes == Array("c".utf8))
    }
}

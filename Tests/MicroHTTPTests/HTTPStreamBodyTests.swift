import MicroHTTP
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

import Logging
import MicroHTTP
import Testing

/// Strict HTTP at the edge: what libmicrohttpd 0.9.75 accepts but a proxy in
/// front may read differently is refused with 400 before routing or authentication, and every
/// request over a limit is answered (414), never dropped.
@Suite("HTTPServer at the edge: heads a proxy could read differently")
struct HTTPServerEdgeTests {
    static let malformedHeads: [(String, String)] = [
        (
            "Authorization: given more than once",
            "GET /m HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n"
        ),
        // libmicrohttpd keeps the space in the name: the body would be framed by Content-Length.
        (
            #"header: name "Transfer-Encoding\x20" is not an RFC 9110 token"#,
            "POST /m HTTP/1.1\r\nHost: t\r\nTransfer-Encoding : chunked\r\nContent-Length: 3\r\n\r\nabc"
        ),
        // libmicrohttpd joins the folded line onto the NAME: `Transfer-Encodingchunked`.
        (
            "header: a field line continued on the next (obs-fold)",
            "POST /m HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding:\r\n chunked\r\n\r\nabc"
        ),
        (
            "header: a field line continued on the next (obs-fold)",
            "POST /m HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nX-A: b\r\n Transfer-Encoding: chunked\r\n\r\nabc"
        ),
        (#"header: name "X\x01C" is not an RFC 9110 token"#, "GET /m HTTP/1.1\r\nHost: t\r\nX\u{01}C: f\r\n\r\n"),
        // libmicrohttpd hands `b` for both, and `_n`'s size is strlen's.
        (
            "header: the value of Authorization holds a NUL, or its line does not end with CRLF",
            "GET /m HTTP/1.1\r\nAuthorization: Bearer b\0c\r\nHost: t\r\n\r\n"
        ),
        (
            "header: the value of X-A holds a NUL, or its line does not end with CRLF",
            "GET /m HTTP/1.1\r\nHost: t\r\nX-A: b\0c\r\n\r\n"
        ),
        (
            "header: the last field holds a NUL, or the head does not end with an empty line",
            "GET /m HTTP/1.1\r\nHost: t\r\nX-A: b\0\r\n\r\n"
        ),
        (
            "header: the last field holds a NUL, or the head does not end with an empty line",
            "GET /m HTTP/1.1\r\nHost: t\r\n\0x\r\n\r\n"
        ),
        ("header: the value of X-B holds a control byte (a bare CR, …)", "GET /m HTTP/1.1\r\nHost: t\r\nX-B: d\re\r\n\r\n"),
        ("method: holds a NUL", "GET\0 /m HTTP/1.1\r\nHost: t\r\n\r\n"),
        ("method: not an RFC 9110 token", "G\u{1b}[31mT /m HTTP/1.1\r\nHost: t\r\n\r\n"),
        ("method: not an RFC 9110 token", "GET{} /m HTTP/1.1\r\nHost: t\r\n\r\n"),
        ("request-line: more than one space after the method", "GET  /m HTTP/1.1\r\nHost: t\r\n\r\n"),
        ("request-target: holds a space, a control byte or a byte outside ASCII", "GET /m  HTTP/1.1\r\nHost: t\r\n\r\n"),
        // Where the target is read eight bytes at a time (not in its last few): a DEL, a byte
        // outside ASCII (é in UTF-8) and a control byte, in the path and in the query.
        (
            "request-target: holds a space, a control byte or a byte outside ASCII",
            "GET /abc\u{7F}defghijklmnop HTTP/1.1\r\nHost: t\r\n\r\n"
        ),
        (
            "request-target: holds a space, a control byte or a byte outside ASCII",
            "GET /abcdefghijklmn\u{e9}opqrstuvwxyz HTTP/1.1\r\nHost: t\r\n\r\n"
        ),
        (
            "request-target: holds a space, a control byte or a byte outside ASCII",
            "GET /m?abcdefghijklmn\u{01}opqrstuvwxyz HTTP/1.1\r\nHost: t\r\n\r\n"
        ),
        ("Host: missing from an HTTP/1.1 request", "GET /m HTTP/1.1\r\n\r\n"),
        // Decoded, the first is `/v1/keychain/lock`, the second `/v1/keychain/lock` cut at the NUL.
        (
            "path: holds %2F or %00, which a proxy and this server would read differently",
            "POST /v1/keychain%2flock HTTP/1.1\r\nHost: t\r\n\r\n"
        ),
        (
            "path: holds %2F or %00, which a proxy and this server would read differently",
            "POST /v1/keychain/lock%00x HTTP/1.1\r\nHost: t\r\n\r\n"
        ),
    ]

    @Test(arguments: malformedHeads)
    func aMalformedHeadIsRefusedBeforePreflight(reason: String, request: String) throws {
        try expectRefusedBeforePreflight(request, reason: reason)
    }

    /// HTTP/1.0 needs no `Host`, and `%2F` or `%00` in the query is no path.
    @Test func whatIsNotMalformedStillPasses() throws {
        let (server, _) = try makeServer()
        defer { server.shutdown() }
        let old = try RawHTTPClient(port: server.port)
        try old.send("GET /ten?a=%2F%00 HTTP/1.0\r\n\r\n")
        let response = try old.readResponse()
        #expect(response.status == 200)
        #expect(response.text.contains("path=/ten\n"))
        #expect(response.text.contains("query=a=/\0\n"))
        let folded = try RawHTTPClient(port: server.port)
        try folded.send("GET /tab HTTP/1.1\r\nHost:\tt \r\nX-Empty:\r\n\r\n")
        #expect(try folded.readResponse().status == 200)
    }

    /// libmicrohttpd keeps each query parameter in the connection's pool and, out of it, used to
    /// drop the connection without a word (500 parameters did): now past `maxQueryItems` (48)
    /// the answer is 414, up to the target the library can hold at all. (1,200 parameters are
    /// also over the 4 KiB target limit, which is checked first.)
    @Test(arguments: [
        (500, "more than the limit of 48 query parameters"), (1200, "longer than the limit of 4096 bytes"),
    ])
    func tooManyQueryParametersAre414(count: Int, reason: String) throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        let atLimit = try RawHTTPClient(port: server.port)
        let most = Array(repeating: "a=1", count: 48).joined(separator: "&")
        try atLimit.send("GET /q?\(most) HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try atLimit.readResponse().status == 200)

        let client = try RawHTTPClient(port: server.port)
        let query = Array(repeating: "a=1", count: count).joined(separator: "&")
        try client.send("GET /v1/items?\(query) HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 414)
        #expect(response.text == "transport: \(reason)")
        #expect(response.saysClose)
        #expect(client.isClosedByServer())
        #expect(responder.preflighted == ["/q"])
    }

    @Test func aTargetOverItsLengthLimitIs414() throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /\(String(repeating: "p", count: 4096)) HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 414)
        #expect(response.text == "transport: longer than the limit of 4096 bytes")
        #expect(responder.preflighted.isEmpty)
        // Past what the connection's pool can hold, libmicrohttpd answers 414 itself, in its own
        // HTML (the access handler never runs): still an answer, never a silent close.
        let huge = try RawHTTPClient(port: server.port)
        try huge.send("GET /v1/items?\(Array(repeating: "a=1", count: 20000).joined(separator: "&")) HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try huge.readResponse().status == 414)
        #expect(huge.readsToEndOfStream())
    }

    /// The connection's pool (14 KiB) holds a request at both target limits at once, a target of
    /// exactly 4,096 bytes with 48 parameters, beside 5 KB of headers, and twice on one
    /// connection (the pool is reset between). A head too large for the pool is answered 431 by
    /// libmicrohttpd itself: an answer, never a silent close.
    @Test func aRequestAtTheLimitsIsAnswered() throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        let parameters = (0..<48).map { "k\($0)=" }
        let filler = 4096 - "/q?".utf8.count - parameters.joined(separator: "&").utf8.count
        var query = parameters
        query[47] += String(repeating: "v", count: filler)
        let target = "/q?" + query.joined(separator: "&")
        #expect(target.utf8.count == 4096)
        let headers = (0..<10).map { "X-Pad-\($0): \(String(repeating: "h", count: 500))\r\n" }.joined()
        let client = try RawHTTPClient(port: server.port)
        for _ in 0..<2 {
            try client.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\(headers)\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text.contains("query=\(query.joined(separator: "&"))\n"))
            #expect(!response.saysClose)
        }
        #expect(responder.responded == ["/q", "/q"])

        let large = try RawHTTPClient(port: server.port)
        try large.send("GET /q HTTP/1.1\r\nHost: t\r\nX-Pad: \(String(repeating: "h", count: 16 * 1024))\r\n\r\n")
        #expect(try large.readResponse().status == 431)
        #expect(large.readsToEndOfStream())
        #expect(responder.responded == ["/q", "/q"])
    }

    /// A refusal by preflight (a 401, say) is answered without a `100 Continue` before it, so a
    /// client that waits for one never sends its body.
    @Test func aPreflightRefusalComesWithoutAContinue() throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("POST /deny HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 401)
        #expect(response.text == "denied")
        #expect(response.saysClose)
        #expect(client.isClosedByServer())
        #expect(responder.responded.isEmpty)
        // A request preflight lets through still gets its `100 Continue`.
        let accepted = try RawHTTPClient(port: server.port)
        try accepted.send("POST /ok HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        #expect(try accepted.readResponse().status == 100)
        try accepted.send("hello")
        #expect(try accepted.readResponse().text.contains("body=hello"))
    }

    /// The transport's refusal line carries the method escaped and bounded.
    @Test func aRefusedMethodIsLoggedEscapedAndBounded() throws {
        let store = RecordingLogHandler.Store()
        let (server, _) = try makeServer(logger: Logger(label: "t") { _ in RecordingLogHandler(store: store) })
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("G\u{1b}[2JT /m HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().status == 400)
        let lines = store.all
        #expect(lines.contains { $0.contains(#"http.method=G\x1B[2JT"#) }, "\(lines)")
        #expect(!lines.contains { $0.contains("\u{1b}") })
    }
}

@Suite("LogText: client text in log lines")
struct LogTextTests {
    @Test func plainTextIsKept() {
        #expect(LogText.sanitized("POST", maxBytes: 32) == "POST")
    }

    @Test func controlBytesSpacesAndBackslashesAreEscaped() {
        #expect(LogText.sanitized("a\u{1b}[0m b\\\r\n", maxBytes: 32) == #"a\x1B[0m\x20b\x5C\x0D\x0A"#)
        #expect(LogText.sanitized("é", maxBytes: 32) == #"\xC3\xA9"#)
    }

    @Test func longTextIsCutWithAMarker() {
        #expect(
            LogText.sanitized(String(repeating: "A", count: 5000), maxBytes: 32) == String(repeating: "A", count: 32)
                + "…[4968 bytes cut]")
    }
}

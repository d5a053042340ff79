import Dispatch
import Logging
import MicroHTTP
import Testing

@Suite("HTTPServer over a real socket")
struct HTTPServerTests {
    @Test func getRoundTripDecodesPathAndQuery() throws {
        let (server, _) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /echo/a%20b?x=1&y=%2Fz%26&x=2&plus=a+b&flag HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/plain")
        let lines = response.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("method=GET"))
        #expect(lines.contains("path=/echo/a b"))
        // Duplicates and order kept; %HH and `+` decoded; a bare name has an empty value.
        #expect(lines.contains("query=x=1&y=/z&&x=2&plus=a b&flag="))
        #expect(lines.contains("length=0"))
        #expect(lines.contains("remote=127.0.0.1"))
    }

    /// The usual methods and others reach the application as sent, and a path with nothing
    /// percent-encoded as it is.
    @Test(arguments: ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "GETS"])
    func methodAndPlainPathRoundTrip(method: String) throws {
        let (server, _) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("\(method) /v1/plain-path?a=b HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        let lines = response.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("method=\(method)"))
        #expect(lines.contains("path=/v1/plain-path"))
        #expect(lines.contains("query=a=b"))
    }

    @Test func postBodyRoundTrip() throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("POST /items HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello world")
        let response = try client.readResponse()
        #expect(response.status == 200)
        let lines = response.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("method=POST"))
        #expect(lines.contains("length=11"))
        #expect(lines.contains("body=hello world"))
        #expect(responder.preflighted == ["/items"])
    }

    @Test func chunkedBodyWithinTheLimitIsReassembled() throws {
        let (server, _) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("PUT /c HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text.contains("length=11\n"))
        #expect(response.text.contains("body=hello world"))
    }

    /// A held answer is not queued when the responder gives it: the server sends what its
    /// release gives on libmicrohttpd's next pass, once per request, and keeps the connection.
    @Test func aHeldAnswerIsSentAsReleasedAndTheConnectionKept() throws {
        let (server, responder) = try makeServer(threads: 1)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        for n in 1...3 {
            try client.send("GET /held/\(n) HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "released /held/\(n)")
            #expect(!response.saysClose)
        }
        #expect(responder.releases == 3)
        // From a worker, the answer is released there, at once.
        try client.send("GET /offheld HTTP/1.1\r\nHost: t\r\n\r\n")
        let pooled = try client.readResponse()
        #expect(pooled.status == 200)
        #expect(pooled.text == "released /offheld")
        #expect(responder.releases == 4)
    }

    @Test func twoRequestsOnOneKeepAliveConnection() throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /first HTTP/1.1\r\nHost: t\r\n\r\n")
        let first = try client.readResponse()
        #expect(first.status == 200)
        #expect(!first.saysClose)
        try client.send("POST /second HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc")
        let second = try client.readResponse()
        #expect(second.status == 200)
        #expect(second.text.contains("path=/second"))
        #expect(responder.responded == ["/first", "/second"])
    }

    @Test func preflightRefusalKeepsItsBodyAndStatus() throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /deny HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer nope\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 401)
        #expect(response.text == "denied")
        #expect(response.header("Content-Type") == "text/plain")
        #expect(responder.responded.isEmpty)
        // A refusal without a body to discard keeps the connection.
        #expect(!response.saysClose)
        try client.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().status == 200)
    }

    @Test func preflightRefusalDiscardsTheBody() throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("POST /deny HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        let response = try client.readResponse()
        #expect(response.status == 401)
        #expect(response.text == "denied")
        #expect(responder.responded.isEmpty)
    }

    @Test func headResponseHasNoBody() throws {
        let (server, _) = try makeServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("HEAD /h HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try client.readResponse(forHead: true)
        #expect(head.status == 200)
        #expect(Int(head.header("Content-Length") ?? "") ?? 0 > 0)
        // Were a body sent, it would be read here as the next status line and fail to parse.
        try client.send("GET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        let next = try client.readResponse()
        #expect(next.status == 200)
        #expect(next.text.contains("path=/next"))
    }

    @Test func bindsAnIPv6Literal() throws {
        let (server, _) = try makeServer(host: "::1")
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port, host: "::1")
        try client.send("GET /six HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text.contains("remote=::1\n"))
    }
}

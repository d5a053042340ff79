import Dispatch
import MicroHTTP
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The per-address connection limit: a client's own idle keep-alive connections make room for
/// its new ones, and a connection with nothing to make room is answered 503, not dropped.
@Suite("HTTPServer's per-address connection limit")
struct HTTPServerAddressLimitTests {
    /// `count` connections from 127.0.0.1, each with its request head begun and not finished.
    private static func midRequest(_ count: Int, on server: HTTPServer) throws -> [RawHTTPClient] {
        let clients = try (0..<count).map { _ in try RawHTTPClient(port: server.port) }
        for client in clients { try client.send("GET /held HTTP/1.1\r\n") }
        return clients
    }

    /// At its limit, a client's idle keep-alive connections are closed, longest idle first, so
    /// that each of its new connections is served (Apple's 64 threads finding items at once).
    @Test func idleKeepAliveConnectionsMakeRoomForTheSameAddress() throws {
        // One polling thread: an answer's completion (the connection idle) precedes the next accept.
        let (server, _) = try makeServer(threads: 1) { $0.perAddressConnectionLimit = 4 }
        defer { server.shutdown() }
        var idle: [RawHTTPClient] = []
        for _ in 0..<4 {
            let client = try RawHTTPClient(port: server.port)
            try client.send("GET /answered HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
            idle.append(client)
        }
        let newcomers = try (0..<4).map { _ in try RawHTTPClient(port: server.port) }
        for (n, client) in newcomers.enumerated() { try client.send("GET /new/\(n) HTTP/1.1\r\nHost: t\r\n\r\n") }
        for client in newcomers {
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(!response.saysClose)
        }
        for client in idle { #expect(client.readsToEndOfStream(), "an idle connection was kept past the limit") }
        #expect(eventually { server.openConnections == 4 })
    }

    /// With every connection of the address mid-request, none is cut: a new one's request is
    /// answered 503 with Retry-After at once, its body unread, and closed; those held finish.
    @Test func withNothingIdleANewConnectionIsAnswered503() throws {
        let (server, responder) = try makeServer(threads: 1) { $0.perAddressConnectionLimit = 3 }
        defer { server.shutdown() }
        let held = try Self.midRequest(3, on: server)
        try #require(eventually { server.openConnections == 3 })

        let refused = try RawHTTPClient(port: server.port)
        try refused.send("GET /refused HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try refused.readResponse()
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "1")
        #expect(response.text == "transport: 3 connections")
        #expect(response.saysClose)
        #expect(refused.isClosedByServer())

        // A declared body is not waited for.
        let upload = try RawHTTPClient(port: server.port)
        try upload.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
        #expect(try upload.readResponse().status == 503)
        #expect(upload.isClosedByServer())
        #expect(!responder.preflighted.contains("/refused") && !responder.preflighted.contains("/upload"))

        for client in held {
            try client.send("Host: t\r\n\r\n")
            #expect(try client.readResponse().status == 200, "a request under way was cut")
        }
        // Another address is not affected by this one's limit.
        let other = try RawHTTPClient(port: server.port, source: "127.0.0.3")
        try other.send("GET /other HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try other.readResponse().status == 200)
    }

    /// Connections kept only to be answered 503 are few (16 at a time, all addresses): past
    /// them a connection is closed unanswered, so one address cannot fill the server with them.
    @Test func connectionsKeptToBeRefusedAreCapped() throws {
        let (server, _) = try makeServer(threads: 1) { $0.perAddressConnectionLimit = 1 }
        defer { server.shutdown() }
        let held = try Self.midRequest(1, on: server)
        try #require(eventually { server.openConnections == 1 })
        let waiting = try (0..<16).map { _ in try RawHTTPClient(port: server.port) }
        try #require(eventually { server.openConnections == 17 })
        let past = try RawHTTPClient(port: server.port)
        #expect(past.readsToEndOfStream(), "a 17th connection over the limit was kept")
        #expect(server.openConnections == 17)
        try waiting[0].send("GET /w HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try waiting[0].readResponse().status == 503)
        try held[0].send("Host: t\r\n\r\n")
        #expect(try held[0].readResponse().status == 200)
    }

    /// The limit is the configuration's: the third connection mid-request is refused at 2 and
    /// served at 3.
    @Test(arguments: [(2, 503), (3, 200)])
    func theLimitIsASetting(limit: Int, thirdStatus: Int) throws {
        let (server, _) = try makeServer(threads: 1) { $0.perAddressConnectionLimit = limit }
        defer { server.shutdown() }
        let held = try Self.midRequest(2, on: server)
        try #require(eventually { server.openConnections == 2 })
        let third = try RawHTTPClient(port: server.port)
        try third.send("GET /third HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try third.readResponse().status == thirdStatus)
        try held[1].send("Host: t\r\n\r\n")
        #expect(try held[1].readResponse().status == 200)
    }
}

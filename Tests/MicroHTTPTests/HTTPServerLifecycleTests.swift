import Dispatch
import Logging
import MicroHTTP
import Testing

@Suite("HTTPServer offloading, start and shutdown")
struct HTTPServerLifecycleTests {
    @Test func offloadedRequestDoesNotStallOthers() throws {
        // One polling thread: a slow request run on it would block the fast one below.
        let (server, responder) = try makeServer(threads: 1)
        defer { server.shutdown() }
        let slow = try RawHTTPClient(port: server.port)
        try slow.send("POST /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi")
        // Hang guard only: the worker has started the slow request and is now blocked in it.
        try #require(responder.slowStarted.wait(timeout: .now() + 10) == .success)

        let fast = try RawHTTPClient(port: server.port)
        try fast.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
        let fastResponse = try fast.readResponse()
        #expect(fastResponse.status == 200)
        #expect(fastResponse.text.contains("path=/fast"))
        #expect(responder.responded == ["/slow", "/fast"])

        responder.slowGate.signal()
        let slowResponse = try slow.readResponse()
        #expect(slowResponse.status == 200)
        #expect(slowResponse.text == "slow done")
        #expect(!slowResponse.saysClose)
        // The resumed connection is still good for keep-alive.
        try slow.send("GET /again HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try slow.readResponse().status == 200)
    }

    @Test func pooledRequestsOverlapAndDoNotStallOthers() throws {
        let (server, responder) = try makeServer(threads: 1)
        defer { server.shutdown() }
        // Two pooled requests are both inside `respond` at once: the pool does not serialise them.
        let first = try RawHTTPClient(port: server.port)
        try first.send("POST /pooled/1 HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi")
        let second = try RawHTTPClient(port: server.port)
        try second.send("POST /pooled/2 HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi")
        for _ in 0..<2 { try #require(responder.slowStarted.wait(timeout: .now() + 10) == .success) }

        let fast = try RawHTTPClient(port: server.port)
        try fast.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try fast.readResponse().status == 200)

        responder.slowGate.signal()
        responder.slowGate.signal()
        #expect(try first.readResponse().text == "slow done")
        #expect(try second.readResponse().text == "slow done")
        #expect(Set(responder.responded) == ["/pooled/1", "/pooled/2", "/fast"])
    }

    /// A deferred request waits for its reply with its connection suspended: the one polling
    /// thread serves another connection meanwhile, and the reply, from another thread, resumes it.
    @Test func aDeferredRequestDoesNotStallOthersAndItsReplyResumesIt() throws {
        let (server, responder) = try makeServer(threads: 1)
        defer { server.shutdown() }
        let waiting = try RawHTTPClient(port: server.port)
        try waiting.send("GET /deferred HTTP/1.1\r\nHost: t\r\n\r\n")
        try #require(responder.deferredStarted.wait(timeout: .now() + 10) == .success)

        let fast = try RawHTTPClient(port: server.port)
        try fast.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try fast.readResponse().status == 200)

        responder.replyToDeferred()
        let response = try waiting.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "replied later")
        #expect(!response.saysClose)
        try waiting.send("GET /deferred-now HTTP/1.1\r\nHost: t\r\n\r\n")
        let atOnce = try waiting.readResponse()
        #expect(atOnce.text == "replied at once")
        #expect(!atOnce.saysClose)
        #expect(responder.responded == ["/deferred", "/fast", "/deferred-now"])
    }

    /// Shutdown waits for a deferred reply (libmicrohttpd must not stop with a suspended
    /// connection), and the reply still reaches its client; meanwhile a new connection is
    /// refused, with one polling thread (quiesced) and with a pool (its socket shut down).
    @Test(arguments: [1, 2]) func shutdownWaitsForADeferredReply(threads: Int) throws {
        // Shutdown drains in-flight requests for 1 s (the connection timeout), then stops.
        let (server, responder) = try makeServer(threads: threads, connectionTimeoutSeconds: 1)
        defer { server.shutdown() }
        let waiting = try RawHTTPClient(port: server.port)
        try waiting.send("GET /deferred HTTP/1.1\r\nHost: t\r\n\r\n")
        try #require(responder.deferredStarted.wait(timeout: .now() + 10) == .success)

        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.shutdown()
            stopped.signal()
        }
        // Past the drain's second, shutdown still waits for the reply.
        #expect(stopped.wait(timeout: .now() + 2) == .timedOut)
        #expect(RawHTTPClient.connectionRefused(port: server.port), "a connection while the server drains")
        responder.replyToDeferred()
        let response = try waiting.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "replied later")
        try #require(stopped.wait(timeout: .now() + 10) == .success)
    }

    @Test(arguments: [1, 2]) func shutdownStopsAcceptingAndIsIdempotent(threads: Int) throws {
        let (server, _) = try makeServer(threads: threads)
        defer { server.shutdown() }
        let port = server.port
        let client = try RawHTTPClient(port: port)
        try client.send("GET /before HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().status == 200)

        server.shutdown()
        #expect(RawHTTPClient.connectionRefused(port: port))
        #expect(client.isClosedByServer())
        server.shutdown()
    }

    @Test func shutdownLetsAnOffloadedRequestFinish() throws {
        let (server, responder) = try makeServer()
        defer { server.shutdown() }
        let slow = try RawHTTPClient(port: server.port)
        try slow.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        try #require(responder.slowStarted.wait(timeout: .now() + 10) == .success)

        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.shutdown()
            stopped.signal()
        }
        responder.slowGate.signal()
        let response = try slow.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "slow done")
        try #require(stopped.wait(timeout: .now() + 10) == .success)
        #expect(slow.isClosedByServer())
    }

    @Test func portZeroReportsTheBoundPort() throws {
        let (server, _) = try makeServer()
        defer { server.shutdown() }
        #expect(server.port > 0)
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /port HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().status == 200)
    }

    @Test func takenPortFailsToStart() throws {
        let (server, _) = try makeServer()
        defer { server.shutdown() }
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: server.port)
        configuration.threads = 1
        #expect(throws: HTTPServerError.startFailed) {
            try HTTPServer(configuration: configuration, responder: ProbeResponder(), logger: quietLogger)
        }
    }

    @Test(arguments: ["localhost", "127.0.0.1:80", "[::1]", ""])
    func hostMustBeAnIPLiteral(host: String) throws {
        let configuration = HTTPServerConfiguration(host: host, port: 0)
        #expect(throws: HTTPServerError.invalidConfiguration) {
            try HTTPServer(configuration: configuration, responder: ProbeResponder(), logger: quietLogger)
        }
    }
}

import Dispatch
import Foundation
import MicroHTTP
import Testing

/// Clients that hold connections without finishing their requests: a head or a body
/// that trickles in is cut at its deadline, one address holds a bounded number of connections,
/// and at the connection limit the longest-waiting incomplete head makes room for a new client.
@Suite("HTTPServer against slow clients")
struct HTTPServerSlowClientTests {
    /// Seconds since `start`, on the monotonic clock.
    private static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Sends `line` every 200 ms, as a trickling attacker does, until the server closes the
    /// connection or `limit` seconds pass; returns the seconds it took the server to close it.
    private static func trickle(_ client: RawHTTPClient, _ line: String, limit: Double) -> Double? {
        let start = DispatchTime.now().uptimeNanoseconds
        while seconds(since: start) < limit {
            if (try? client.send(line)) == nil || client.isClosedByServer(waitingMilliseconds: 200) {
                return seconds(since: start)
            }
        }
        return nil
    }

    @Test func aHeadThatTricklesIsCutAtItsDeadline() throws {
        let (server, responder) = try makeServer { $0.headTimeoutSeconds = 1 }
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /never HTTP/1.1\r\nHost: t\r\n")
        let closedAfter = try #require(Self.trickle(client, "X-Slow: a\r\n", limit: 6), "never cut off")
        #expect(closedAfter >= 0.8 && closedAfter < 3, "cut after \(closedAfter) s")
        #expect(responder.preflighted.isEmpty)
    }

    @Test func aBodyThatTricklesBelowTheMinimumRateIsCut() throws {
        let (server, responder) = try makeServer(maxBodyBytes: 1 << 20) {
            $0.headTimeoutSeconds = 1
            $0.minBodyBytesPerSecond = 1000
        }
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try client.send("POST /slow-body HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
        // 50 bytes every 200 ms: 250 bytes a second, a quarter of the minimum.
        let closedAfter = try #require(Self.trickle(client, String(repeating: "b", count: 50), limit: 8), "never cut off")
        #expect(closedAfter >= 0.8 && closedAfter < 4, "cut after \(closedAfter) s")
        #expect(responder.responded.isEmpty)
    }

    /// At the connection limit, a new client is accepted by cutting the connection that has
    /// waited longest for its request head; the others keep theirs.
    @Test func atTheConnectionLimitTheOldestIncompleteHeadMakesRoom() throws {
        // One polling thread accepts in the order the connections were made.
        let (server, _) = try makeServer(threads: 1) {
            $0.connectionLimit = 4
            $0.perAddressConnectionLimit = 100
        }
        defer { server.shutdown() }
        var waiting: [RawHTTPClient] = []
        for _ in 0..<4 {
            let client = try RawHTTPClient(port: server.port, source: "127.0.0.2")
            try client.send("GET /partial HTTP/1.1\r\n")
            waiting.append(client)
        }
        let prompt = try RawHTTPClient(port: server.port, source: "127.0.0.3")
        try prompt.send("GET /prompt HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try prompt.readResponse().status == 200)
        #expect(waiting[0].readsToEndOfStream(), "the oldest incomplete head was cut")
        try waiting[1].send("Host: t\r\n\r\n")
        #expect(try waiting[1].readResponse().status == 200)
    }

    /// At the connection limit, a keep-alive connection idle between requests is cut before any
    /// connection mid-request, even one whose head has waited longer: clients holding answered
    /// connections open cannot keep a new client out, and a request under way is not lost.
    /// From several addresses, so that no per-address limit is what makes the room.
    @Test func atTheConnectionLimitAnIdleKeepAliveConnectionGoesFirst() throws {
        // One polling thread: a connection's answer and its completion are handled before the
        // next accept, so an answered connection is idle by the time the next client arrives.
        let (server, _) = try makeServer(threads: 1) { $0.connectionLimit = 4 }
        defer { server.shutdown() }
        var midRequest: [RawHTTPClient] = []
        for _ in 0..<2 {
            let client = try RawHTTPClient(port: server.port, source: "127.0.0.2")
            try client.send("GET /partial HTTP/1.1\r\n")
            midRequest.append(client)
        }
        var idle: [RawHTTPClient] = []
        for _ in 0..<2 {
            let client = try RawHTTPClient(port: server.port, source: "127.0.0.3")
            try client.send("GET /answered HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
            idle.append(client)
        }
        let newcomer = try RawHTTPClient(port: server.port, source: "127.0.0.4")
        try newcomer.send("GET /new HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try newcomer.readResponse().status == 200)
        #expect(idle[0].readsToEndOfStream(), "the connection idle longest was cut")
        for client in midRequest {
            try client.send("Host: t\r\n\r\n")
            #expect(try client.readResponse().status == 200, "a request under way was cut")
        }
        try idle[1].send("GET /again HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try idle[1].readResponse().status == 200)
    }

    /// Trusted proxies (`unlimitedAddresses`) carry many clients: no per-address limit for them,
    /// also when written in their IPv4-mapped spelling.
    @Test(arguments: ["127.0.0.4", "::ffff:127.0.0.4"])
    func anUnlimitedAddressHoldsMoreThanTheLimit(spelling: String) throws {
        let (server, _) = try makeServer(threads: 1) {
            $0.perAddressConnectionLimit = 2
            $0.unlimitedAddresses = [spelling]
        }
        defer { server.shutdown() }
        // Mid-request, so that none is idle and could be cut to make room.
        let clients = try (0..<4).map { _ in try RawHTTPClient(port: server.port, source: "127.0.0.4") }
        for client in clients { try client.send("GET /proxied HTTP/1.1\r\n") }
        for client in clients {
            try client.send("Host: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
    }
}

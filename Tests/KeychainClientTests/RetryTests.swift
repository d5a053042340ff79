import Foundation
import KeychainClient
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A server on 127.0.0.1 that answers each request with the next of `answers` (the last one
/// repeats) and records the request lines it was sent.
final class ScriptedServer: Sendable {
    let port: Int
    private let listener: Int32
    private let requests = RequestLog()

    init(answers: [String]) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        let requests = self.requests
        Thread.detachNewThread {
            var served = 0
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                while let line = Self.readRequest(connection) {
                    requests.append(line)
                    let answer = answers[min(served, answers.count - 1)]
                    served += 1
                    _ = answer.utf8CString.withUnsafeBufferPointer { send(connection, $0.baseAddress, $0.count - 1, 0) }
                }
                close(connection)
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    var requestLines: [String] { requests.lines }

    final class RequestLog: Sendable {
        private let state = Mutex<[String]>([])
        func append(_ line: String) { state.withLock { $0.append(line) } }
        var lines: [String] { state.withLock { $0 } }
    }

    /// The request line of the next request on `connection`, its head and body read.
    private static func readRequest(_ connection: Int32) -> String? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = data.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                while data.count < end.upperBound + length {
                    let n = recv(connection, &buffer, buffer.count, 0)
                    if n <= 0 { return nil }
                    data += buffer[..<n]
                }
                return head.split(separator: "\r\n").first.map(String.init)
            }
            let n = recv(connection, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            data += buffer[..<n]
        }
    }

    static func answer(_ status: String, _ body: String, headers: String = "") -> String {
        "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\n\(headers)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }
}

/// Retries: idempotent requests only, after an answer that says "not now".
@Suite struct RetryTests {
    static let unavailable = ScriptedServer.answer(
        "503 Service Unavailable", #"{"status":-25291,"error":"errSecNotAvailable","message":"storage: unavailable"}"#)
    static let status = ScriptedServer.answer(
        "200 OK", #"{"state":"unlocked","status":7,"lockInterval":300}"#, headers: "X-Keychain-State: unlocked\r\n")

    private func client(_ server: ScriptedServer, attempts: Int) throws -> KeychainClient {
        var configuration = KeychainClientConfiguration(
            url: "http://127.0.0.1:\(server.port)", token: try BearerToken("kcd_test"))
        configuration.retry = RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
        return try KeychainClient(configuration)
    }

    @Test func aReadIsRetriedAfter503() async throws {
        let server = try ScriptedServer(answers: [Self.unavailable, Self.status])
        let client = try client(server, attempts: 3)
        #expect(try await client.status().state == "unlocked")
        #expect(server.requestLines == ["GET /v1/keychain HTTP/1.1", "GET /v1/keychain HTTP/1.1"])
    }

    @Test func retriesStopAtMaxAttempts() async throws {
        let server = try ScriptedServer(answers: [Self.unavailable])
        let client = try client(server, attempts: 3)
        #expect(await KeychainClientTests.status { _ = try await client.status() } == errSecNotAvailable)
        #expect(server.requestLines.count == 3)
    }

    @Test func anAddIsNeverRetried() async throws {
        let server = try ScriptedServer(answers: [Self.unavailable, Self.status])
        let client = try client(server, attempts: 3)
        let code = await KeychainClientTests.status {
            try await client.SecItemAdd([kSecClass: kSecClassGenericPassword, kSecAttrService: "s"])
        }
        #expect(code == errSecNotAvailable)
        #expect(server.requestLines == ["POST /v1/items HTTP/1.1"])
    }

    @Test func aProxysOwnPageIsStillAnOSStatus() async throws {
        let server = try ScriptedServer(answers: [
            "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\noops!"
        ])
        let client = try client(server, attempts: 1)
        do {
            _ = try await client.status()
            Issue.record("a 502 succeeded")
        } catch {
            #expect(error.status == errSecNotAvailable)
            #expect(error.httpStatus == 502)
        }
    }

    @Test func aServerThatIsNotThereIsErrSecNotAvailable() async throws {
        let port: Int
        do { port = try ScriptedServer(answers: [Self.status]).port }  // bound, then closed
        var configuration = KeychainClientConfiguration(url: "http://127.0.0.1:\(port)", token: try BearerToken("kcd_test"))
        configuration.retry = .never
        let client = try KeychainClient(configuration)
        let error = await #expect(throws: KeychainError.self) { _ = try await client.status() }
        #expect(error?.status == errSecNotAvailable)
        #expect(error?.message.contains("kcd_test") == false)
    }

    @Test func aRedirectIsNotFollowedAndTheTokenGoesNowhereElse() async throws {
        let elsewhere = try ScriptedServer(answers: [Self.status])
        let server = try ScriptedServer(answers: [
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:\(elsewhere.port)/v1/keychain\r\n"
                + "Content-Length: 0\r\n\r\n"
        ])
        let client = try client(server, attempts: 1)
        let error = await #expect(throws: KeychainError.self) { _ = try await client.status() }
        #expect(error?.httpStatus == 307)
        #expect(elsewhere.requestLines.isEmpty)
    }

    @Test func aTokenIsNeverInADescription() throws {
        let token = try BearerToken("kcd_supersecret")
        #expect(!"\(token)".contains("supersecret"))
        #expect(!String(reflecting: token).contains("supersecret"))
        #expect(throws: KeychainError.self) { try BearerToken("kcd_a\r\nX-Evil: 1") }
    }
}

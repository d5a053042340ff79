import KeychainLog
import Logging
import Synchronization
import TestSupport
import Testing

/// keychaind writes access lines straight into its log writer: the same line the logger would
/// write, in the same format, client text still sanitized.
@Suite struct AccessLineTests {
    @Test func accessLinesGoStraightIntoTheWriterInTheHandlersFormat() throws {
        let f = try APIFixture()
        let chunks = Mutex<[UInt8]>([])
        let writer = LogWriter(interval: .seconds(600)) { chunk in chunks.withLock { $0 += chunk } }
        defer { writer.stop() }
        var api = APIConfiguration()
        api.accessLogWriter = writer
        let client = InProcessClient(
            KeychainResponder(keychain: f.keychain, configuration: api, logger: Logger(label: "keychaind")))
        #expect(client.request("GET", "/v1/health").status == 200)
        #expect(client.request("GET\u{1B}[31m", "/v1/health").status == 405)
        writer.flush()
        let lines = String(decoding: chunks.withLock { $0 }, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(lines.first)
        #expect(
            first.wholeMatch(
                of:
                    /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000 info keychaind : \[KeychainAPI\] request http.method=GET http.route=\/v1\/health http.status=200 http.duration_us=\d+ token.id=- client.address=127.0.0.1/
            ) != nil, "\(first)")
        #expect(lines.last?.contains(#"http.method=GET\x1B[31m http.route"#) == true, "\(lines.last ?? "")")
    }
}

import Foundation
import MicroHTTP
import TestSupport
import Testing

@testable import KeychainCore

/// What the API answers to heads a proxy in front could read differently,
/// over the socket: refused before routing and authentication, in the error shape, and logged
/// without letting the client write into the log line.
@Suite struct EdgeRouteTests {
    /// The first `Authorization` used to win; a proxy that checked the last would have let
    /// another caller through.
    @Test func twoAuthorizationHeadersAreRefused() throws {
        let f = try APIFixture()
        let other = try f.token(groups: ["b"], capabilities: ["read"])
        let response = try f.socketCall("GET", "/v1/keychain", headers: f.auth + [("Authorization", "Bearer \(other)")])
        response.expectError(400, -50, naming: "Authorization")
        #expect(response.text.contains("given more than once"))
        #expect(!response.text.contains(other) && !response.text.contains(f.adminToken))
    }

    /// Routing is on the path as sent: an escaped slash or a `%00` no longer reaches the lock
    /// route behind a proxy rule written for `/v1/keychain/lock`, and an escape in a fixed
    /// segment is no route at all.
    @Test(arguments: ["/v1/keychain%2flock", "/v1/keychain%2Flock", "/v1/keychain/lock%00x"])
    func anEscapedSlashOrNULInThePathIsRefused(target: String) throws {
        let f = try APIFixture()
        try f.socketCall("POST", target).expectError(400, -50, naming: "path")
        #expect(f.keychain.state == .unlocked)
    }

    @Test func anEscapeInAFixedSegmentIsNoRoute() throws {
        let f = try APIFixture()
        try f.socketCall("POST", "/v1/keychain/%6cock").expectError(404, -4, naming: "path")
        #expect(f.keychain.state == .unlocked)
    }

    /// 500 query parameters used to get no answer at all (libmicrohttpd's pool ran out).
    @Test func tooManyQueryParametersAre414() throws {
        let f = try APIFixture()
        let query = Array(repeating: "service=x", count: 500).joined(separator: "&")
        try f.socketCall("GET", "/v1/items?\(query)").expectError(414, -50, naming: "request-target")
    }

    /// An unauthenticated upload that waits for `100 Continue` gets its 401 instead, first.
    @Test func anUnauthenticatedUploadIsRefusedWithoutAContinue() throws {
        let f = try APIFixture()
        let client = try f.client()
        try client.send("POST /v1/items HTTP/1.1\r\nHost: k\r\nContent-Length: 20\r\nExpect: 100-continue\r\n\r\n")
        let response = try client.readResponse()
        response.expectError(401, -25293, naming: "Authorization")
        #expect(client.isClosedByServer())
    }

    /// A 5,000-byte method and a forwarded address holding a forged field reach the access line
    /// bounded and escaped; an ESC in a method is refused at the edge, and logged escaped.
    @Test func clientTextInTheAccessLineIsEscapedAndBounded() throws {
        let f = try APIFixture(trustedProxies: ["127.0.0.1"])
        let long = String(repeating: "A", count: 5000)
        try f.socketCall(long, "/v1/health", headers: []).expectError(405, -4, naming: "method")
        _ = try f.socketCall("GET", "/v1/health", headers: [("X-Forwarded-For", "203.0.113.9 token.id=tok_forged")])
        let escape = try f.client()
        try escape.send("G\u{1b}[2JET /v1/health HTTP/1.1\r\nHost: k\r\n\r\n")
        try escape.readResponse().expectError(400, -50, naming: "method")

        let lines = f.logs.all
        #expect(lines.contains { $0.contains("http.method=\(String(repeating: "A", count: 32))…[4968 bytes cut] ") })
        #expect(!lines.contains { $0.contains(String(repeating: "A", count: 33)) })
        #expect(lines.contains { $0.contains(#"client.address=203.0.113.9\x20token.id=tok_forged"#) })
        #expect(!lines.contains { $0.contains(" token.id=tok_forged") })
        #expect(lines.contains { $0.contains(#"http.method=G\x1B[2JET "#) })
        #expect(!lines.contains { $0.contains("\u{1b}") })
    }
}

import Foundation
import KeychainCore
import KeychainCrypto
import MicroHTTP
import TestSupport
import Testing

@testable import KeychainAPI

/// `POST /v1/keychain/export` streams its bundle (chunked, no `Content-Length`), a batch of
/// items sealed at a time as the client reads; a lock meanwhile cuts it before its FINAL
/// message, and what the client holds then is refused by an import.
@Suite struct ExportStreamRouteTests {
    typealias Migration = MigrationRouteTests

    static var exportHeaders: [(String, String)] { [(Migration.passphraseHeader, Migration.bundlePassphrase)] }

    @Test func anExportStreamsChunkedOverASocketAndImportsWhole() throws {
        let (a, migratable, _) = try Migration.source()
        let client = try a.client()
        let exported = try client.request("POST", "/v1/keychain/export", headers: a.auth + Self.exportHeaders)
        #expect(exported.status == 200, "\(exported.text)")
        #expect(exported.header("Transfer-Encoding") == "chunked")
        #expect(exported.header("Content-Length") == nil)
        #expect(exported.header("Content-Type") == "application/octet-stream")
        #expect(exported.header("X-Keychain-Bundle-Items") == "3")
        #expect(!exported.truncated, "the body ends with its last chunk")
        #expect(Array(exported.body.prefix(8)) == Array("KCBUNDLE".utf8))
        // The connection stays open for the next request.
        #expect(try client.request("GET", "/v1/keychain", headers: a.auth).status == 200)

        let b = try APIFixture(passphrase: "another passphrase entirely")
        let imported = Migration.importBundle(b, exported.body)
        #expect(imported.status == 200, "\(imported.text)")
        #expect(imported.json["imported"] == .int(3))
        for (ref, secret) in migratable {
            #expect(try b.call("GET", "/v1/items/\(ref)?returnData=true").items.first?["valueData"]?.stringValue == secret)
        }
    }

    /// 240 items of 48,000 bytes: the manifest, then eleven batches of about 1 MiB (22 items),
    /// then FINAL. The client holds its receive window small, reads into the second batch, then
    /// locks the keychain: TCP flow control keeps the server from sealing more than the socket's
    /// send buffer holds (Linux autotunes it up to `tcp_wmem`'s 4 MiB) until the client reads
    /// on, so a later piece finds the keychain locked and the connection is cut before the FINAL
    /// message. (With 96 items, 4.6 MB, the send buffer could take the whole rest of the bundle
    /// before the lock, and the test then failed on a loaded machine.)
    @Test func aLockWhileTheBundleStreamsCutsItAndTheTruncatedBundleIsRefused() throws {
        let a = try APIFixture()
        for n in 0..<240 {
            try a.add(service: "large-\(n)", secret: Base64.encode(Sodium.randomBytes(48_000)))
        }
        let client = try RawHTTPClient(port: a.server.port, receiveBufferBytes: 16 * 1024)
        try client.send(
            "POST /v1/keychain/export HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(a.adminToken)\r\n"
                + "\(Migration.passphraseHeader): \(Migration.bundlePassphrase)\r\n\r\n")
        var response = try client.readResponseHead()
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.header("X-Keychain-Bundle-Items") == "240")
        try client.readChunks(of: &response, atLeast: 1_200_000)
        try a.keychain.lock()
        try client.readBody(of: &response)
        #expect(response.truncated, "the body must end without its last chunk")
        #expect(Array(response.body.prefix(8)) == Array("KCBUNDLE".utf8))
        // What was sealed before the lock arrived whole (the manifest and two batches at least);
        // at most what 1.2 MB read and 4 MiB of buffers held (seven batches), never the FINAL
        // message, the thirteenth.
        let messages = Self.wholeMessages(response.body)
        #expect(messages >= 3 && messages <= 8, "\(messages) messages")
        #expect(a.logs.all.contains { $0.contains("keychain export ended before its final message") })
        #expect(!a.logs.all.contains { $0.contains(Migration.bundlePassphrase) })

        let b = try APIFixture(passphrase: "another passphrase entirely")
        Migration.importBundle(b, response.body).expectError(401, -25293, naming: "truncated")
        #expect(try Migration.itemCount(b) == 0)
    }

    /// How many whole framed messages follow a bundle's header in `bytes`.
    static func wholeMessages(_ bytes: [UInt8]) -> Int {
        var offset = 65
        var count = 0
        while bytes.count - offset >= 4 {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard bytes.count - offset - 4 >= length else { break }
            offset += 4 + length
            count += 1
        }
        return count
    }

    /// In process: a lock between the answer and its first byte ends the body at once, with
    /// the lock's error, and nothing of the bundle.
    @Test func aLockBeforeTheBodyIsReadEndsItAtOnce() throws {
        let (a, _, _) = try Migration.source()
        let response = InProcessClient(a.responder).response("POST", "/v1/keychain/export", headers: a.auth + Self.exportHeaders)
        #expect(response.status == 200)
        #expect(response.carriesSecret)
        let stream = try #require(response.bodyStream)
        try a.keychain.lock()
        let read = stream.readAll()
        #expect(read.bytes.isEmpty)
        #expect((read.failure as? KeychainError)?.status == -25308)
    }
}

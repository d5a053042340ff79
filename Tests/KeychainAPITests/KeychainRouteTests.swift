import Dispatch
import Foundation
import KeychainCrypto
import MicroHTTP
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

@Suite struct KeychainRouteTests {
    @Test func statusMirrorsSecKeychainGetStatus() throws {
        let f = try APIFixture()
        try f.add(service: "db", group: "a")
        let unlocked = try f.call("GET", "/v1/keychain")
        #expect(unlocked.json["status"] == 7)
        #expect(unlocked.json["state"] == "unlocked")
        #expect(unlocked.json["lockInterval"] == 300)
        #expect(unlocked.json["items"] == 1)
        #expect(unlocked.json["replicas"] == .object(["live": 1, "unlocked": 1]), "on SQLite, this server alone")
        let other = try f.token(groups: ["b"])
        #expect(try f.call("GET", "/v1/keychain", headers: [("Authorization", "Bearer \(other)")]).json["items"] == 0)
        _ = try f.call("POST", "/v1/keychain/lock")
        #expect(try f.call("GET", "/v1/keychain").json["status"] == 6)
    }

    @Test func lockNeedsTheLockCapabilityAndUnlockNeedsNoToken() throws {
        let f = try APIFixture()
        let reader = try f.token(groups: ["*"], capabilities: ["read"])
        try f.call("POST", "/v1/keychain/lock", headers: [("Authorization", "Bearer \(reader)")]).expectError(
            403, -34018, naming: "lock")
        #expect(try f.call("POST", "/v1/keychain/lock").json["state"] == "locked")
        let unlocked = try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: [])
        #expect(unlocked.status == 200)
        #expect(unlocked.json["state"] == "unlocked")
        try f.call("POST", "/v1/keychain/unlock", json: #"{"pass":"x"}"#, headers: []).expectError(400, -50, naming: "pass")
    }

    /// An unlock or passphrase body over 4 KiB is refused with 413 before it is parsed (its
    /// passphrase never tried), and the keychain stays as it was; at 4 KiB it is read.
    @Test func passphraseBodiesOverFourKiBAreRefusedUnread() throws {
        let f = try APIFixture()
        _ = try f.call("POST", "/v1/keychain/lock")
        let padding = String(repeating: " ", count: 4096 - #"{"passphrase":""}"#.utf8.count - testPassphrase.utf8.count)
        let atLimit = #"{"passphrase":"\#(testPassphrase)"}"# + padding
        try f.call("POST", "/v1/keychain/unlock", json: atLimit + " ", headers: []).expectError(413, -25302, naming: "body")
        try f.call("POST", "/v1/keychain/passphrase", json: #"{"old":"\#(testPassphrase)","new":"x"}"# + padding + "  ")
            .expectError(413, -25302, naming: "body")
        #expect(try f.call("GET", "/v1/keychain").json["state"] == "locked")
        #expect(try f.call("POST", "/v1/keychain/unlock", json: atLimit, headers: []).status == 200)
    }

    /// The API's answer to a refusal the transport makes of `method` on `path`.
    static func transportAnswer(_ error: HTTPTransportError, _ method: String, _ path: String) throws -> RawResponse {
        let f = try APIFixture()
        let head = HTTPRequestHead(
            method: method, path: path, queryItems: [], headers: HTTPHeaders([]), remoteAddress: "127.0.0.1")
        let response = f.responder.transportError(error, head: head)
        return RawResponse(status: response.status, headers: response.headers, body: response.body)
    }

    /// Past the serial worker's queue limit, an unlock is answered at once: 429, errSecNotAvailable
    /// naming the passphrase, and a Retry-After for the derivations already waiting.
    @Test func aFullDerivationQueueAnswers429WithRetryAfter() throws {
        let raw = try Self.transportAnswer(.serialWorkerBusy(queued: 4), "POST", "/v1/keychain/unlock")
        raw.expectError(429, -25291, naming: "passphrase")
        #expect(raw.header("Retry-After") == "3")
    }

    /// A connection over its address's limit, with none of its others idle, is answered 503
    /// errSecNotAvailable naming the connection, with a Retry-After.
    @Test func aConnectionOverItsAddresssLimitAnswers503WithRetryAfter() throws {
        let raw = try Self.transportAnswer(.tooManyConnections(limit: 64), "GET", "/v1/items")
        raw.expectError(503, -25291, naming: "connection")
        #expect(raw.header("Retry-After") == "1")
        #expect(raw.text.hasPrefix(#"{"status":-25291,"error":"errSecNotAvailable","message":"connection: "#))
    }

    /// Access lines of requests without a token are at most the configured number a second
    /// (50 refused requests made well within two seconds write 5 to 10 lines); those with a
    /// token are all written.
    @Test func accessLinesOfAnonymousRequestsAreRateLimited() throws {
        let f = try APIFixture(anonymousLogLinesPerSecond: 5)
        for _ in 0..<50 {
            try f.call("GET", "/v1/items?service=x", headers: []).expectError(401, -25293, naming: "Authorization")
        }
        let anonymous = f.logs.all.filter { $0.contains("request http.method=GET") && $0.contains("token.id=-") }
        #expect((5...10).contains(anonymous.count), "\(anonymous.count) lines")
        for _ in 0..<50 { _ = try f.call("GET", "/v1/keychain") }
        #expect(f.logs.all.filter { $0.contains("http.route=/v1/keychain ") }.count == 50)
    }

    /// A passphrase is read from the body's bytes without a `String` (so it can be wiped):
    /// escapes decode as JSON says, and a body of the wrong shape is refused naming its key.
    @Test func passphrasesAreReadWithTheirEscapesAndWrongBodiesNameTheirKey() throws {
        let f = try APIFixture()
        let changed = try f.call(
            "POST", "/v1/keychain/passphrase", json: #"{"new":"caf\u00e9 \"q\" \\ \ud83d\ude00","old":"\#(testPassphrase)"}"#)
        #expect(changed.status == 204)
        _ = try f.call("POST", "/v1/keychain/lock")
        try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: []).expectError(
            401, -25293, naming: "passphrase")
        let unlocked = try f.call("POST", "/v1/keychain/unlock", json: "{\"passphrase\":\"café \\\"q\\\" \\\\ 😀\"}", headers: [])
        #expect(unlocked.status == 200)
        _ = try f.call("POST", "/v1/keychain/lock")
        // Each from an address of its own: every unlock attempt counts against its address.
        for (n, (body, key)) in [
            (#"{"passphrase":5}"#, "passphrase"), (#"{}"#, "passphrase"), (#"{"passphrase":"x","other":"y"}"#, "other"),
            (#"["x"]"#, "body"), (#"{"passphrase":"x","passphrase":"y"}"#, "body"), ("", "body"),
            (#"{"passphrase":"\q"}"#, "body"),
        ].enumerated() {
            try f.call("POST", "/v1/keychain/unlock", json: body, headers: [], remoteAddress: "10.0.0.\(n + 1)")
                .expectError(400, -50, naming: key)
        }
        try f.call("POST", "/v1/keychain/passphrase", json: #"{"old":"x"}"#).expectError(400, -50, naming: "new")
        #expect(try f.call("GET", "/v1/keychain").json["state"] == "locked")
    }

    @Test func passphraseChangeReWrapsKeys() throws {
        let f = try APIFixture()
        try f.add(service: "db")
        try f.call("POST", "/v1/keychain/passphrase", json: #"{"old":"wrong","new":"n"}"#).expectError(401, -25293, naming: "old")
        let changed = try f.call("POST", "/v1/keychain/passphrase", json: #"{"old":"\#(testPassphrase)","new":"new one"}"#)
        #expect(changed.status == 204)
        _ = try f.call("POST", "/v1/keychain/lock")
        #expect(try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"new one"}"#, headers: []).status == 200)
        #expect(try f.call("GET", "/v1/items?service=db&returnData=true").items[0]["valueData"] == "c2VjcmV0")
    }

    @Test func settingsReadAndWriteTheLockInterval() throws {
        let f = try APIFixture()
        #expect(try f.call("GET", "/v1/keychain/settings").json["lockInterval"] == 300)
        #expect(try f.call("PUT", "/v1/keychain/settings", json: #"{"lockInterval":0}"#).json["lockInterval"] == 0)
        try f.call("PUT", "/v1/keychain/settings", json: #"{"lockInterval":"soon"}"#).expectError(
            400, -50, naming: "lockInterval")
        try f.call("PUT", "/v1/keychain/settings", json: #"{"colour":1}"#).expectError(400, -50, naming: "colour")
        #expect(f.keychain.lockInterval == 0)
    }

    @Test func healthIs200Unlocked503LockedAndLockedcodeOverrides() throws {
        let f = try APIFixture()
        #expect(try f.call("GET", "/v1/health", headers: []).status == 200)
        // The transport sends no body for HEAD: over the socket.
        let head = try f.socketCall("HEAD", "/v1/health", headers: [])
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        _ = try f.call("POST", "/v1/keychain/lock")
        let locked = try f.call("GET", "/v1/health", headers: [])
        #expect(locked.status == 503)
        #expect(locked.json["state"] == "locked")
        #expect(try f.call("GET", "/v1/health?lockedcode=200", headers: []).status == 200)
        #expect(try f.call("HEAD", "/v1/health?lockedcode=429", headers: []).status == 429)
        // A status that cannot carry the health body is ignored.
        let bodiless = try f.call("GET", "/v1/health?lockedcode=204", headers: [])
        #expect(bodiless.status == 503)
        #expect(bodiless.json["state"] == "locked")
    }

    /// The replica's own view: a store it cannot read is 503, unlocked or not, `lockedcode` or not.
    @Test func healthIs503WhenTheStoreIsOutOfReach() throws {
        let f = try APIFixture()
        #expect(try f.call("GET", "/v1/health", headers: []).json["storage"] == "ok")
        f.keychain.store.close()
        let unreachable = try f.call("GET", "/v1/health?lockedcode=200", headers: [])
        #expect(unreachable.status == 503)
        #expect(unreachable.json["storage"] == "unavailable")
    }

    /// A year past 9999 used to wrap in the parser: `100000000-…` read as a past date.
    @Test(arguments: ["100000000-01-01T00:00:00Z", "200000000-01-01T00:00:00Z", "99999-12-31T00:00:00Z"])
    func anExpiryNoRFC3339DateCanHoldIsRefused(expiresAt: String) throws {
        let f = try APIFixture()
        try f.call(
            "POST", "/v1/tokens",
            json: #"{"name":"far","accessGroups":["a"],"capabilities":["read"],"expiresAt":"\#(expiresAt)"}"#
        )
        .expectError(400, -50, naming: "expiresAt")
        #expect(try f.call("GET", "/v1/tokens").json["tokens"]?.arrayValue?.count == 1)
    }

    @Test func tokensAreCreatedListedAndRevoked() throws {
        let f = try APIFixture()
        let created = try f.call(
            "POST", "/v1/tokens",
            json: #"{"name":"ci","accessGroups":["builds"],"capabilities":["read"],"expiresAt":"2099-01-01T00:00:00Z"}"#)
        #expect(created.status == 201)
        let secret = try #require(created.json["token"]?.stringValue)
        let id = try #require(created.json["id"]?.stringValue)
        #expect(created.json["expiresAt"] == "2099-01-01T00:00:00.000Z")
        let me = try f.call("GET", "/v1/tokens/self", headers: [("Authorization", "Bearer \(secret)")])
        #expect(me.json["id"] == .string(id))
        #expect(me.json["token"] == nil)
        let list = try f.call("GET", "/v1/tokens")
        #expect(list.json["tokens"]?.arrayValue?.count == 2)
        #expect(!list.text.contains(secret))
        #expect(try f.call("DELETE", "/v1/tokens/\(id)").status == 204)
        try f.call("GET", "/v1/tokens/self", headers: [("Authorization", "Bearer \(secret)")]).expectError(401, -25293)
        try f.call("DELETE", "/v1/tokens/\(id)").expectError(404, -25300)
        try f.call("POST", "/v1/tokens", json: #"{"name":"x","accessGroups":["a"],"capabilities":["fly"]}"#)
            .expectError(400, -50, naming: "capabilities")
    }

    /// Argon2id runs off the polling threads: while an unlock is deriving its key, searches on
    /// other connections are answered. (MODERATE limits: ~0.5 s of Argon2id against searches
    /// that take a millisecond; the order of events is asserted, not durations.)
    @Test func anUnlockInProgressDoesNotStallAConcurrentSearch() throws {
        let f = try APIFixture(kdf: .moderate)
        try f.add(service: "db")
        _ = try f.call("POST", "/v1/keychain/lock")
        let unlockDone = Atomic<Bool>(false)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let port = try f.server.port
        Thread.detachNewThread {
            let client = try? RawHTTPClient(port: port)
            try? client?.send(
                "POST /v1/keychain/unlock HTTP/1.1\r\nHost: x\r\nContent-Length: \(#"{"passphrase":"\#(testPassphrase)"}"#.utf8.count)\r\n\r\n"
                    + #"{"passphrase":"\#(testPassphrase)"}"#)
            started.signal()
            let status = (try? client?.readResponse())?.status
            unlockDone.store(status == 200, ordering: .sequentiallyConsistent)
            finished.signal()
        }
        started.wait()
        for _ in 0..<5 {
            #expect(try f.socketCall("GET", "/v1/items?service=db").status == 200)
        }
        let doneDuringSearches = unlockDone.load(ordering: .sequentiallyConsistent)
        #expect(doneDuringSearches == false, "the searches waited for the unlock")
        finished.wait()
        let doneAtEnd = unlockDone.load(ordering: .sequentiallyConsistent)
        #expect(doneAtEnd)
        #expect(f.keychain.state == .unlocked)
    }

    @Test func logsCarryNoSecretTokenOrQueryValue() throws {
        let f = try APIFixture()
        try f.add(service: "log-service-name", secret: "bG9nLXNlY3JldA==")
        _ = try f.call("GET", "/v1/items?service=log-service-name&returnData=true")
        _ = try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"log-passphrase"}"#, headers: [])
        let lines = f.logs.all
        #expect(lines.contains { $0.contains("http.route=/v1/items") && $0.contains("http.status=200") })
        for line in lines {
            for secret in [f.adminToken, "log-service-name", "bG9nLXNlY3JldA==", "log-passphrase"] {
                #expect(!line.contains(secret), "a log line holds a secret: \(line)")
            }
        }
    }

    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() throws {
        let trusted = try APIFixture(trustedProxies: ["127.0.0.1"])
        _ = try trusted.call("GET", "/v1/health", headers: [("X-Forwarded-For", "198.51.100.7, 10.0.0.2, 127.0.0.1")])
        #expect(trusted.logs.all.contains { $0.contains("client.address=10.0.0.2") })
        let untrusted = try APIFixture()
        _ = try untrusted.call("GET", "/v1/health", headers: [("X-Forwarded-For", "198.51.100.7")])
        #expect(untrusted.logs.all.contains { $0.contains("client.address=127.0.0.1") })
        #expect(!untrusted.logs.all.contains { $0.contains("198.51.100.7") })
    }
}

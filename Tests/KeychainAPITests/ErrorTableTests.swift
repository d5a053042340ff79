import Foundation
import KeychainCrypto
import KeychainStorage
import TestSupport
import Testing

@testable import KeychainCore

/// Every row of the error table (docs/semantics.md §5), over a real socket.
@Suite struct ErrorTableTests {
    @Test func errSecParam400ForInvalidJSONSaysWhere() throws {
        let f = try APIFixture()
        let response = try f.call("POST", "/v1/items", json: "{\"class\": \"genericPassword\",\n  \"service\": }")
        response.expectError(400, -50, naming: "line 2, column 14")
        try f.call("POST", "/v1/items", json: "[1]").expectError(400, -50, naming: "body")
        try f.call("POST", "/v1/items", json: #"{"class":"genericPassword","port":1}"#).expectError(400, -25303, naming: "port")
    }

    @Test func errSecNoSuchClass400() throws {
        let f = try APIFixture()
        try f.call("POST", "/v1/items", json: #"{"class":"wallet"}"#).expectError(400, -25306, naming: "class")
    }

    @Test func errSecAuthFailed401WithoutAValidToken() throws {
        let f = try APIFixture()
        try f.call("GET", "/v1/items?service=x", headers: []).expectError(401, -25293, naming: "Authorization")
        try f.call("GET", "/v1/items?service=x", headers: [("Authorization", "Bearer kcd_wrong")]).expectError(401, -25293)
        try f.call("GET", "/v1/items?service=x", headers: [("Authorization", "Basic abc")]).expectError(401, -25293)
        // Locked or not, a wrong passphrase is refused.
        try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"nope"}"#, headers: []).expectError(
            401, -25293, naming: "passphrase")
        #expect(try f.call("POST", "/v1/keychain/lock").status == 200)
        try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"nope"}"#, headers: []).expectError(
            401, -25293, naming: "passphrase")
    }

    @Test func errSecMissingEntitlement403() throws {
        let f = try APIFixture()
        let reader = try f.token(groups: ["a"], capabilities: ["list"])
        let auth = [("Authorization", "Bearer \(reader)")]
        try f.call("GET", "/v1/items?accessGroup=b", headers: auth).expectError(403, -34018, naming: "accessGroup")
        try f.call("GET", "/v1/items?service=x&returnData=true", headers: auth).expectError(403, -34018, naming: "returnData")
        try f.call("GET", "/v1/tokens", headers: auth).expectError(403, -34018, naming: "admin")
    }

    @Test func errSecItemNotFound404() throws {
        let f = try APIFixture()
        try f.call("GET", "/v1/items?service=none").expectError(404, -25300)
    }

    @Test func errSecDuplicateItem409NamesTheItem() throws {
        let f = try APIFixture()
        let ref = try f.add(service: "db")
        let response = try f.call("POST", "/v1/items", json: #"{"class":"genericPassword","service":"db","account":"u"}"#)
        response.expectError(409, -25299)
        #expect(response.json["persistentRef"] == .string(ref))
    }

    @Test func errSecDataTooLarge413() throws {
        let f = try APIFixture()
        let big = Base64.encode([UInt8](repeating: 1, count: 64 * 1024 + 1))
        try f.call("POST", "/v1/items", json: #"{"class":"genericPassword","valueData":"\#(big)"}"#).expectError(
            413, -25302, naming: "valueData")
        // A body over the limit is refused from its Content-Length, before it is read.
        let client = try f.client()
        try client.send(
            "POST /v1/items HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(f.adminToken)\r\nContent-Length: \(2 << 20)\r\n\r\n")
        let refused = try client.readResponse()
        refused.expectError(413, -25302, naming: "body")
    }

    @Test func aChunkedUploadOverTheLimitIs413() throws {
        let f = try APIFixture(maxBodyBytes: 64 * 1024)
        let client = try f.client()
        try client.send(
            "POST /v1/items HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(f.adminToken)\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = [UInt8](repeating: 0x20, count: 16 * 1024)
        for _ in 0..<5 { try client.send(Array("4000\r\n".utf8) + chunk + Array("\r\n".utf8)) }
        try client.send("0\r\n\r\n")
        try client.readResponse().expectError(413, -25302)
    }

    @Test(arguments: [
        "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", "Content-Length: 2\r\nContent-Length: 2\r\n",
        "Host: y\r\nContent-Length: 2\r\n",
    ])
    func malformedFramingIs400AndCloses(extra: String) throws {
        let f = try APIFixture()
        let client = try f.client()
        try client.send("POST /v1/items/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(f.adminToken)\r\n\(extra)\r\n{}")
        try client.readResponse().expectError(400, -50, naming: "framing")
        #expect(client.readsToEndOfStream())
    }

    @Test func preconditionFailed412() throws {
        let f = try APIFixture()
        let ref = try f.add(service: "db")
        try f.call("DELETE", "/v1/items/\(ref)", headers: f.auth + [("If-Match", "\"5\"")]).expectError(412, -25310)
    }

    @Test func errSecInteractionNotAllowed423WhenLocked() throws {
        let f = try APIFixture()
        try f.add(service: "db")
        #expect(try f.call("POST", "/v1/keychain/lock").json["state"] == "locked")
        try f.call("GET", "/v1/items?service=db&returnData=true").expectError(423, -25308, naming: "returnData")
        #expect(try f.call("GET", "/v1/items?service=db").status == 200)
    }

    @Test func throttledUnlockIs429WithRetryAfter() throws {
        let f = try APIFixture()
        _ = try f.call("POST", "/v1/keychain/lock")
        for _ in 0..<5 {
            try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"wrong"}"#, headers: []).expectError(401, -25293)
        }
        let throttled = try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: [])
        throttled.expectError(429, -25293, naming: "retry")
        #expect(throttled.header("Retry-After") == "60")
    }

    /// Failures are counted per client address: five anonymous wrong unlocks from one address
    /// make that address wait, and the right passphrase from another still unlocks.
    @Test func anotherAddressesFailuresDoNotLockOutTheRightPassphrase() throws {
        let f = try APIFixture()
        _ = try f.call("POST", "/v1/keychain/lock")
        for _ in 0..<5 {
            try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"wrong"}"#, headers: [], remoteAddress: "10.0.0.66")
                .expectError(401, -25293, naming: "passphrase")
        }
        let limited = try f.call(
            "POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: [], remoteAddress: "10.0.0.66")
        limited.expectError(429, -25293, naming: "retry")
        #expect(limited.header("Retry-After") == "60")
        let byTheOperator = try f.call(
            "POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: [], remoteAddress: "10.0.0.1")
        #expect(byTheOperator.status == 200)
        #expect(byTheOperator.json["state"] == "unlocked")
    }

    /// Past the keychain's budget, shared by every address, the network waits too; an address
    /// taken behind a trusted proxy is the forwarded one.
    @Test func theKeychainsBudgetIsSharedByEveryAddress() throws {
        let f = try APIFixture(trustedProxies: ["127.0.0.1"])
        _ = try f.call("POST", "/v1/keychain/lock")
        for n in 0...UnlockThrottle.freeFailures {
            try f.call(
                "POST", "/v1/keychain/unlock", json: #"{"passphrase":"wrong"}"#,
                headers: [("X-Forwarded-For", "192.0.2.\(n + 1)")]
            ).expectError(401, -25293, naming: "passphrase")
        }
        let throttled = try f.call(
            "POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#,
            headers: [("X-Forwarded-For", "198.51.100.7")])
        throttled.expectError(429, -25293, naming: "retry")
        #expect(throttled.header("Retry-After") == "60")
        try f.keychain.unlock(passphrase: SecureBytes(utf8: testPassphrase), from: .host)
        #expect(try f.call("GET", "/v1/keychain").json["state"] == "unlocked")
    }

    /// A wrong passphrase on an unlocked keychain is refused too.
    @Test func aWrongPassphraseOnAnUnlockedKeychainIs401() throws {
        let f = try APIFixture()
        try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"wrong"}"#, headers: []).expectError(
            401, -25293, naming: "passphrase")
        #expect(
            try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: []).status == 200)
    }

    /// On a full disk neither a wrong nor the right passphrase is tried: both are the same 503,
    /// and each still counts against the address.
    @Test func aFullDiskGivesNoUnlockOracleAndStillCounts() throws {
        let f = try APIFixture(faulty: true)
        _ = try f.call("POST", "/v1/keychain/lock")
        let store = try #require(f.faulty)
        store.failsWrites = true
        let wrong = try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"wrong"}"#, headers: [])
        let right = try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: [])
        wrong.expectError(503, -25291, naming: "storage")
        #expect(right.status == wrong.status)
        #expect(right.body == wrong.body)
        for _ in 0..<3 { _ = try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"wrong"}"#, headers: []) }
        store.failsWrites = false
        try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: []).expectError(
            429, -25293, naming: "retry")
        #expect(try f.call("GET", "/v1/keychain").json["state"] == "locked")
    }

    @Test func errSecDecode500ForTamperedCiphertext() throws {
        let f = try APIFixture()
        let victim = try f.add(service: "victim", secret: "dmljdGlt")
        let target = try f.add(service: "target")
        // Storage is untrusted: swap a secret's ciphertext onto another row behind the keychain.
        try f.keychain.store.write { writer in
            let rows = try writer.items(matching: ItemFilter())
            var row = try #require(rows.first { PersistentRef.encode($0.ref) == target })
            row.secret = rows.first { PersistentRef.encode($0.ref) == victim }?.secret
            row.lookups = []
            try writer.replace(row)
        }
        let response = try f.call("GET", "/v1/items/\(target)?returnData=true")
        response.expectError(500, -26275, naming: "valueData")
        #expect(!response.text.contains("dmljdGlt"))
    }

    @Test func errSecNotAvailable503WhenUninitialized() throws {
        let f = try APIFixture(initialize: false)
        try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"x"}"#, headers: []).expectError(503, -25291)
        let status = try f.call("GET", "/v1/keychain", headers: [])
        #expect(status.status == 200)
        #expect(status.json["state"] == "uninitialized")
        let health = try f.call("GET", "/v1/health", headers: [])
        #expect(health.status == 503)
        #expect(health.json["state"] == "uninitialized")
        #expect(health.json["storage"] == "ok", "the store answered; only a replica cut off from it is unavailable")
    }

    @Test func anIdentityAddWithoutItsCertificateIs400() throws {
        let f = try APIFixture()
        try f.call("POST", "/v1/items", json: #"{"class":"kSecClassIdentity"}"#).expectError(400, -50, naming: "certificateData")
    }

    @Test func unknownRoutes404AndWrongMethods405WithAllow() throws {
        let f = try APIFixture()
        try f.call("GET", "/v1/nothing").expectError(404, -4, naming: "path")
        try f.call("GET", "/").expectError(404, -4)
        let wrong = try f.call("PUT", "/v1/items")
        wrong.expectError(405, -4, naming: "PUT")
        #expect(wrong.header("Allow") == "GET, POST, PATCH, DELETE")
    }
}

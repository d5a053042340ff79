import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// What a black-box review tried and found held, kept as regressions.
@Suite struct HeldDefenceTests {
    /// Every shape of a bad or absent credential is the same 401, byte for byte.
    @Test func everyBadAuthorizationIsTheSame401() throws {
        let f = try APIFixture()
        let reference = try f.call("GET", "/v1/items?service=x", headers: [])
        reference.expectError(401, -25293, naming: "token")
        let shapes: [[(String, String)]] = [
            [("Authorization", "Bearer")], [("Authorization", "Bearer ")], [("Authorization", "Bearer  ")],
            [("Authorization", "Basic \(f.adminToken)")], [("Authorization", "Token \(f.adminToken)")],
            [("Authorization", "Bearer \(f.adminToken)x")], [("Authorization", "Bearer \(f.adminToken.dropLast())")],
            [("Authorization", "Bearer kcd_")], [("Authorization", String(repeating: "A", count: 4000))],
            [("Authorization", "\(f.adminToken)")], [("X-Authorization", "Bearer \(f.adminToken)")],
        ]
        for headers in shapes {
            let refused = try f.call("GET", "/v1/items?service=x", headers: headers)
            #expect(refused.status == 401)
            #expect(refused.body == reference.body, "\(headers.first!.0)")
        }
        // The token is never read from the URL.
        #expect(try f.call("GET", "/v1/items?service=x&token=\(f.adminToken)", headers: []).body == reference.body)
        // The scheme's case and surrounding spaces do not matter for a valid token.
        for value in ["bearer \(f.adminToken)", "BEARER \(f.adminToken)", "Bearer   \(f.adminToken)  "] {
            #expect(try f.call("GET", "/v1/keychain", headers: [("Authorization", value)]).status == 200)
        }
    }

    /// Neither If-Match nor a primary key tells a token that another group holds an item.
    @Test func noIfMatchOrDuplicateOracleAcrossGroups() throws {
        let f = try APIFixture()
        let hidden = try f.add(service: "db", account: "root", group: "theirs")
        let mine = [("Authorization", "Bearer \(try f.token(groups: ["mine"]))")]
        let missing = "AAAAAAAAAAAAAAAAAAAAAA"
        for ifMatch in ["\"1\"", "\"2\"", "*"] {
            let headers = mine + [("If-Match", ifMatch)]
            let a = try f.call("PATCH", "/v1/items/\(hidden)", json: #"{"label":"x"}"#, headers: headers)
            let b = try f.call("PATCH", "/v1/items/\(missing)", json: #"{"label":"x"}"#, headers: headers)
            a.expectError(404, -25300)
            #expect(a.body == b.body)
            let c = try f.call("DELETE", "/v1/items/\(hidden)", headers: headers)
            #expect(c.status == 404)
            #expect(c.body == b.body)
        }
        // The same primary key in the token's own group is a new item, not a 409 that would
        // reveal the other group's.
        let added = try f.call(
            "POST", "/v1/items", json: #"{"class":"genericPassword","service":"db","account":"root","accessGroup":"mine"}"#,
            headers: mine)
        #expect(added.status == 201)
        // Searches and deletes by the same attributes see only the token's own.
        let found = try f.call("GET", "/v1/items?service=db&account=root&matchLimit=all", headers: mine)
        #expect(found.items.count == 1)
        #expect(try f.call("DELETE", "/v1/items?service=db&account=root", headers: mine).json["deleted"] == .int(1))
        #expect(try f.call("GET", "/v1/items/\(hidden)").status == 200, "the other group's item is untouched")
    }

    /// Once a lock is acknowledged, no `whenUnlocked` secret is answered, on any route.
    @Test func noSecretAfterAnAcknowledgedLock() throws {
        let f = try APIFixture()
        let ref = try f.add(service: "db", secret: "c2VjcmV0")
        #expect(try f.call("POST", "/v1/keychain/lock").status == 200)
        try f.call("GET", "/v1/items?service=db&returnData=true").expectError(423, -25308, naming: "returnData")
        try f.call("GET", "/v1/items/\(ref)?returnData=true").expectError(423, -25308, naming: "returnData")
        try f.call("POST", "/v1/items/search", json: #"{"service":"db","returnData":true}"#).expectError(
            423, -25308, naming: "returnData")
        #expect(!(try f.call("GET", "/v1/items?service=db&matchLimit=all").text.contains("c2VjcmV0")))
    }
}

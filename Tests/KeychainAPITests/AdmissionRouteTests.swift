import Foundation
import MicroHTTP
import TestSupport
import Testing

@testable import KeychainCore

/// A token's capabilities are checked from the request's head, before its body is read or a key
/// derivation runs for it: a token that may not import learns nothing of a PKCS#12's password,
/// and one that may not import a bundle cannot make the server hold one in memory.
@Suite struct AdmissionRouteTests {
    typealias Material = IdentityRouteTests.Material
    static let header = IdentityRouteTests.passphraseHeader

    /// A wrong password used to be 401 to any token: the PBKDF2 ran before the capability check.
    @Test(arguments: [["metrics"], ["list"], ["read", "delete", "lock"]])
    func aTokenThatMayNotImportGetsNoAnswerAboutThePassword(capabilities: [String]) throws {
        let f = try APIFixture()
        let token = try f.token(groups: ["*"], capabilities: capabilities)
        let m = IdentityRouteTests.material
        for password in ["wrong", Material.password] {
            f.call(
                "POST", "/v1/items/import", body: m.p12, contentType: "application/x-pkcs12", headers: [(Self.header, password)],
                token: token
            )
            .expectError(403, -34018, naming: "write")
        }
        try f.call("POST", "/v1/items/search", json: #"{"matchLimit":"all"}"#).expectError(404, -25300)
    }

    /// A writer of some groups gets no answer about the password for a group it lacks either.
    @Test func aWriterImportingIntoAGroupItLacksIsRefusedBeforeThePassword() throws {
        let f = try APIFixture()
        let token = try f.token(groups: ["a"], capabilities: ["write", "read"])
        let m = IdentityRouteTests.material
        f.call(
            "POST", "/v1/items/import?accessGroup=b", body: m.p12, contentType: "application/x-pkcs12",
            headers: [(Self.header, "wrong")], token: token
        )
        .expectError(403, -34018, naming: "accessGroup")
        f.call(
            "POST", "/v1/items/import?accessGroup=a", body: m.p12, contentType: "application/x-pkcs12",
            headers: [(Self.header, "wrong")], token: token
        )
        .expectError(401, -25293, naming: Self.header)
    }

    /// Every route refuses a token lacking its capability in preflight: the in-process client
    /// gives the body to `respond` only when preflight proceeds, so these bodies are never read.
    @Test func everyCapabilityIsCheckedBeforeTheBody() throws {
        let f = try APIFixture()
        let metrics = try f.token(groups: ["*"], capabilities: ["metrics"])
        let cases: [(String, String, String)] = [
            ("POST", "/v1/items", "write"), ("PATCH", "/v1/items", "write"), ("DELETE", "/v1/items", "delete"),
            ("GET", "/v1/items", "read"), ("POST", "/v1/items/search", "read"), ("POST", "/v1/keychain/lock", "lock"),
            ("POST", "/v1/keychain/passphrase", "admin"), ("PUT", "/v1/keychain/settings", "admin"),
            ("POST", "/v1/keychain/export", "admin"), ("POST", "/v1/keychain/import", "admin"),
            ("POST", "/v1/keychain/backup", "admin"), ("POST", "/v1/tokens", "admin"), ("GET", "/v1/tokens", "admin"),
            ("DELETE", "/v1/tokens/tok_0000000000000000", "admin"),
        ]
        for (method, path, capability) in cases {
            let response = f.call(
                method, path, body: Array("not even JSON".utf8), contentType: "application/json", token: metrics)
            #expect(response.expectError(403, -34018, naming: capability), "\(method) \(path)")
        }
        let reader = try f.token(groups: ["*"], capabilities: ["read"])
        f.call("GET", "/metrics", body: [], contentType: "text/plain", token: reader).expectError(403, -34018, naming: "metrics")
        #expect(f.keychain.state == .unlocked)
    }

    /// A bundle upload from a token that may not import one is refused before `100 Continue`,
    /// and its connection closed: not a byte of its 250 MB is read or held.
    @Test(arguments: [true, false])
    func aBundleUploadFromANonAdminIsRefusedBeforeItsBody(expectsContinue: Bool) throws {
        let f = try APIFixture()
        let list = try f.token(groups: ["*"], capabilities: ["list", "read", "write"])
        let client = try f.client()
        let expect = expectsContinue ? "Expect: 100-continue\r\n" : ""
        try client.send(
            "POST /v1/keychain/import HTTP/1.1\r\nHost: k\r\nAuthorization: Bearer \(list)\r\n"
                + "X-Keychain-Bundle-Passphrase: p\r\nContent-Length: 250000000\r\n\(expect)\r\n")
        let response = try client.readResponse()
        response.expectError(403, -34018, naming: "admin")
        #expect(client.isClosedByServer())
    }
}

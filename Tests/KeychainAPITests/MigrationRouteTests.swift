import Foundation
import KeychainCore
import MicroHTTP
import TestSupport
import Testing

@testable import KeychainAPI

/// `POST /v1/keychain/export` and `/import` between two instances, each with
/// its own passphrase and instance key.
@Suite struct MigrationRouteTests {
    static let bundlePassphrase = "the bundle's own passphrase"
    static let passphraseHeader = "X-Keychain-Bundle-Passphrase"

    /// Instance A with items in two groups, of both classes, and ThisDeviceOnly ones.
    static func source() throws -> (APIFixture, migratable: [String: String], deviceOnly: [String]) {
        let a = try APIFixture()
        var migratable: [String: String] = [:]
        for (service, secret, group) in [("one", "c2VjcmV0LW9uZQ==", "g1"), ("two", "c2VjcmV0LXR3bw==", "g2")] {
            migratable[try a.add(service: service, secret: secret, group: group)] = secret
        }
        let inet = try a.call(
            "POST", "/v1/items",
            json: #"""
                {"class":"internetPassword","server":"db.example.com","account":"app","protocol":"https","port":5432,
                 "accessGroup":"g2","accessible":"always","valueData":"aW5ldC1zZWNyZXQ=","returnPersistentRef":true}
                """#)
        #expect(inet.status == 201, "\(inet.text)")
        migratable[try #require(inet.items.first?["persistentRef"]?.stringValue)] = "aW5ldC1zZWNyZXQ="
        var deviceOnly: [String] = []
        for accessible in ["whenUnlockedThisDeviceOnly", "alwaysThisDeviceOnly"] {
            let response = try a.call(
                "POST", "/v1/items",
                json: #"""
                    {"class":"genericPassword","service":"\#(accessible)","accessGroup":"g1","accessible":"\#(accessible)",
                     "valueData":"ZGV2aWNlLW9ubHk=","returnPersistentRef":true}
                    """#)
            #expect(response.status == 201, "\(response.text)")
            deviceOnly.append(try #require(response.items.first?["persistentRef"]?.stringValue))
        }
        return (a, migratable, deviceOnly)
    }

    static func export(_ f: APIFixture, passphrase: String = bundlePassphrase, token: String? = nil) throws -> RawResponse {
        try f.call(
            "POST", "/v1/keychain/export",
            headers: [
                ("Authorization", "Bearer \(token ?? f.adminToken)"), (passphraseHeader, passphrase),
            ])
    }

    static func importBundle(
        _ f: APIFixture, _ bundle: [UInt8], conflict: String? = nil, passphrase: String = bundlePassphrase,
        token: String? = nil, query: String = ""
    ) -> RawResponse {
        InProcessClient(f.responder).request(
            "POST", "/v1/keychain/import" + (conflict.map { "?conflict=\($0)" } ?? (query.isEmpty ? "" : "?" + query)),
            headers: [
                ("Authorization", "Bearer \(token ?? f.adminToken)"), (passphraseHeader, passphrase),
                ("Content-Type", "application/octet-stream"),
            ],
            body: bundle)
    }

    static func itemCount(_ f: APIFixture) throws -> Int64? { try f.call("GET", "/v1/keychain").json["items"]?.intValue }

    @Test func exportFromOneInstanceImportsIntoAnotherWithRefsAndValues() throws {
        let (a, migratable, deviceOnly) = try Self.source()
        let exported = try Self.export(a)
        #expect(exported.status == 200, "\(exported.text)")
        #expect(exported.header("Content-Type") == "application/octet-stream")
        #expect(exported.header("X-Keychain-Bundle-Items") == "3")
        #expect(!exported.truncated, "the streamed bundle was read to its end")
        let bundle = exported.body
        #expect(Array(bundle.prefix(8)) == Array("KCBUNDLE".utf8))

        let b = try APIFixture(passphrase: "another passphrase entirely")
        let imported = Self.importBundle(b, bundle)
        #expect(imported.status == 200, "\(imported.text)")
        #expect(imported.json["imported"] == .int(3))
        #expect(imported.json["skipped"] == .int(0))
        #expect(imported.json["replaced"] == .int(0))
        let manifest = try #require(imported.json["manifest"]?.objectValue)
        #expect(manifest["itemCount"] == .int(3))
        #expect(manifest["classes"] == .object(["genericPassword": .int(2), "internetPassword": .int(1)]))
        #expect(manifest["groups"] == .object(["g1": .int(1), "g2": .int(2)]))
        #expect(manifest["leftBehind"] == .object(["alwaysThisDeviceOnly": .int(1), "whenUnlockedThisDeviceOnly": .int(1)]))
        #expect(try Self.itemCount(b) == 3)
        for (ref, secret) in migratable {
            let original = try a.call("GET", "/v1/items/\(ref)?returnData=true&returnAttributes=true")
            let moved = try b.call("GET", "/v1/items/\(ref)?returnData=true&returnAttributes=true")
            #expect(moved.status == 200, "GET /v1/items/{ref} on B: \(moved.text)")
            #expect(moved.items.first?["valueData"]?.stringValue == secret)
            #expect(moved.items.first?["attributes"] == original.items.first?["attributes"])
        }
        for ref in deviceOnly {
            try b.call("GET", "/v1/items/\(ref)").expectError(404, -25300)
        }
    }

    @Test func aTamperedOrTruncatedBundleOrAWrongPassphraseIsRefusedAndChangesNothing() throws {
        let (a, _, _) = try Self.source()
        let bundle = try Self.export(a).body
        let b = try APIFixture(passphrase: "another passphrase entirely")
        try b.add(service: "already.here")
        var middle = bundle
        middle[bundle.count / 2] ^= 0x01
        var header = bundle
        header[40] ^= 0x01
        Self.importBundle(b, middle).expectError(401, -25293, naming: "bundle")
        Self.importBundle(b, header).expectError(401, -25293)
        Self.importBundle(b, Array(bundle.dropLast(20))).expectError(401, -25293, naming: "truncated")
        let wrong = Self.importBundle(b, bundle, passphrase: "not it")
        wrong.expectError(401, -25293, naming: Self.passphraseHeader)
        #expect(!wrong.text.contains("not it"))
        Self.importBundle(b, Array("not a bundle at all".utf8)).expectError(500, -26275, naming: "KCBUNDLE")
        #expect(try Self.itemCount(b) == 1)
    }

    @Test func eachConflictPolicyOverTheAPI() throws {
        let (a, _, _) = try Self.source()
        let bundle = try Self.export(a).body
        let b = try APIFixture(passphrase: "another passphrase entirely")
        #expect(Self.importBundle(b, bundle).json["imported"] == .int(3))
        Self.importBundle(b, bundle).expectError(409, -25299, naming: "import")
        Self.importBundle(b, bundle, conflict: "fail").expectError(409, -25299)
        let skipped = Self.importBundle(b, bundle, conflict: "skip")
        #expect(skipped.status == 200 && skipped.json["skipped"] == .int(3) && skipped.json["imported"] == .int(0))
        let replaced = Self.importBundle(b, bundle, conflict: "replace")
        #expect(replaced.status == 200 && replaced.json["replaced"] == .int(3) && replaced.json["imported"] == .int(0))
        Self.importBundle(b, bundle, conflict: "merge").expectError(400, -50, naming: "conflict")
        #expect(try Self.itemCount(b) == 3)
    }

    @Test func onlyAnAdminOfEveryGroupMayExportOrImport() throws {
        let (a, _, _) = try Self.source()
        let bundle = try Self.export(a).body
        let scopedAdmin = try a.token(groups: ["g1"], capabilities: ["read", "list", "write", "admin"])
        let reader = try a.token(groups: ["*"], capabilities: ["read", "list", "write", "delete"])
        for token in [scopedAdmin, reader] {
            try Self.export(a, token: token).expectError(403, -34018)
            Self.importBundle(a, bundle, conflict: "replace", token: token).expectError(403, -34018)
        }
        try a.call("POST", "/v1/keychain/export", headers: [(Self.passphraseHeader, Self.bundlePassphrase)])
            .expectError(401, -25293)
    }

    @Test func aLockedKeychainIs423() throws {
        let (a, _, _) = try Self.source()
        let bundle = try Self.export(a).body
        #expect(try a.call("POST", "/v1/keychain/lock").status == 200)
        try Self.export(a).expectError(423, -25308)
        Self.importBundle(a, bundle, conflict: "skip").expectError(423, -25308)
    }

    @Test func theBundlePassphraseIsRequiredAndNeverLoggedOrAudited() throws {
        let (a, _, _) = try Self.source()
        try a.call("POST", "/v1/keychain/export").expectError(400, -50, naming: Self.passphraseHeader)
        try Self.export(a, passphrase: "").expectError(400, -50, naming: Self.passphraseHeader)
        let bundle = try Self.export(a).body
        _ = Self.importBundle(a, bundle, conflict: "skip")
        _ = Self.importBundle(a, bundle, passphrase: "a-wrong-one")
        for line in a.logs.all {
            #expect(!line.contains(Self.bundlePassphrase) && !line.contains("a-wrong-one"), "a log line holds the passphrase")
        }
        #expect(a.logs.all.contains { $0.contains("http.route=/v1/keychain/export") })
        // The audit line names the operation and the conflict policy, never the passphrase or the bundle.
        let head = HTTPRequestHead(
            method: "POST", path: "/v1/keychain/import", queryItems: [(name: "conflict", value: "skip")],
            headers: HTTPHeaders([(name: Self.passphraseHeader, value: Self.bundlePassphrase)]))
        let audited = KeychainResponder.auditedQuery(head, body: bundle, route: .importBundle)
        #expect(audited.map(\.name) == ["conflict"])
        #expect(Route.importBundle.operation(method: "POST") == "import")
        #expect(Route.exportBundle.operation(method: "POST") == "export")
        #expect(
            Route.importBundle.runsKDF(method: "POST") && Route.exportBundle.runsKDF(method: "POST"),
            "Argon2id runs on the serial worker")
    }

    @Test func anImportBodyMayExceedTheServersBodyLimitUpToTheBundleLimit() throws {
        let f = try APIFixture(maxBodyBytes: 64 * 1024, maxBundleBytes: 256 * 1024)
        let headers = f.auth + [(Self.passphraseHeader, Self.bundlePassphrase)]
        // Over the server's body limit, within the bundle limit: read and judged (not a bundle).
        let large = [UInt8](repeating: 0x41, count: 128 * 1024)
        try f.client().request("POST", "/v1/keychain/import", headers: headers, body: large).expectError(500, -26275)
        // Over the bundle limit: 413 before any of it is read.
        let tooLarge = [UInt8](repeating: 0x41, count: 256 * 1024 + 1)
        try f.client().request("POST", "/v1/keychain/import", headers: headers, body: tooLarge).expectError(413, -25302)
        // Every other route keeps the server's limit.
        try f.client().request("POST", "/v1/items", headers: f.auth, body: large).expectError(413, -25302)
        // An unauthenticated large upload is refused at once.
        try f.client().request("POST", "/v1/keychain/import", headers: [(Self.passphraseHeader, "x")], body: large)
            .expectError(401, -25293)
    }

    /// A bundle larger than the server's body limit, uploaded over the socket, is spooled to a
    /// file without a name in the data directory and imported from it whole; nothing is left.
    @Test func aLargeBundleIsImportedFromItsSpoolFile() throws {
        let a = try APIFixture()
        for n in 0..<400 {
            try a.add(service: "spool-\(n)", secret: Base64.encode(Array(repeating: UInt8(n % 251), count: 200)))
        }
        let headers = [(Self.passphraseHeader, Self.bundlePassphrase)]
        let bundle = try a.call("POST", "/v1/keychain/export", headers: a.auth + headers)
        #expect(bundle.status == 200)
        #expect(bundle.body.count > 64 * 1024)

        let b = try APIFixture(maxBodyBytes: 64 * 1024, passphrase: "another passphrase")
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: b.directory.path))
        let imported = try b.client().request("POST", "/v1/keychain/import", headers: b.auth + headers, body: bundle.body)
        #expect(imported.status == 200, "\(imported.text)")
        #expect(imported.json["imported"] == .int(400))
        let found = try b.call("GET", "/v1/items?service=spool-7&returnData=true")
        #expect(found.items.first?["valueData"]?.stringValue == Base64.encode(Array(repeating: 7, count: 200)))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: b.directory.path)) == before, "no spool file is left")
    }
}

import Foundation
import KeychainCrypto
import Logging
import MicroHTTP
import TestSupport
import Testing

@testable import KeychainAPI
@testable import KeychainAudit
@testable import KeychainCore

/// Every request that reaches the API gives one sealed audit line, refused ones too; no secret,
/// token or passphrase reaches the log; an answer that would carry a secret is refused when its
/// line cannot be written.
@Suite struct AuditRouteTests {
    struct Scene {
        let f: APIFixture
        let keys: AuditKeys
        let path: String
        let log: AuditLog
        let client: InProcessClient

        /// `disk`: the log's file is written through it, to fill it and free it again.
        init(destination: AuditLog.Destination? = nil, disk: LimitedDisk? = nil) throws {
            f = try APIFixture()
            keys = try AuditKeys(instanceKey: KeychainConfiguration.testing(f.directory.path).readInstanceKey())
            path = f.directory.path + "/audit.log"
            log =
                if let disk {
                    try AuditLog(destination: destination ?? .file(path), keys: keys, write: disk.write)
                } else {
                    try AuditLog(destination: destination ?? .file(path), keys: keys)
                }
            var api = APIConfiguration()
            api.auditLog = log
            client = InProcessClient(KeychainResponder(keychains: f.keychains, configuration: api, logger: Logger(label: "test")))
        }

        func call(_ method: String, _ target: String, json: String? = nil, headers: [(String, String)]? = nil) -> RawResponse {
            client.request(method, target, headers: headers ?? f.auth, body: json.map { Array($0.utf8) })
        }

        /// The log's lines, once written, as JSON objects.
        func lines() throws -> [JSONObject] {
            log.close()
            let bytes = Array(FileManager.default.contents(atPath: path) ?? Data())
            #expect(AuditVerifier.verify(bytes, keys: keys).problem == nil, "the chain holds")
            return try bytes.split(separator: 0x0A).map { try #require(JSON.parse(Array($0)).objectValue) }
        }
    }

    /// Request ids count in decimal after the prefix, across every change of their number of digits.
    @Test func requestIDsCountAfterOnePrefix() {
        let ids = RequestIDs()
        let all = (1...1_001).map { _ in ids.next().description }
        let prefix = String(all[0].dropLast())
        #expect(prefix.hasSuffix("-") && prefix.count >= 2 && prefix.count <= 9)
        #expect(all == (1...1_001).map { prefix + String($0) })
    }

    /// A key's use is a line naming the operation, the key and the algorithm (in clear): never
    /// the data signed, the signature, or a generated key.
    @Test func aKeysUseIsALineWithTheKeyAndTheAlgorithmAndNoData() throws {
        let s = try Scene()
        let made = s.call("POST", "/v1/keys", json: #"{"keyType":"ed25519","privateKeyAttrs":{"isPermanent":true}}"#)
        #expect(made.status == 201, "\(made.text)")
        let ref = try #require(made.json["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue)
        let data = "c2lnbiB0aGlzIG1lc3NhZ2U="
        let signed = s.call(
            "POST", "/v1/keys/sign",
            json: #"{"persistentRef":"\#(ref)","algorithm":"edDSASignatureMessageCurve25519SHA512","data":"\#(data)"}"#)
        #expect(signed.status == 200, "\(signed.text)")
        let signature = try #require(signed.json["signature"]?.stringValue)
        let lines = try s.lines()
        #expect(lines.map { $0["operation"]?.stringValue } == ["generateKey", "sign"])
        #expect(lines[1]["refs"]?.arrayValue == [.string(ref)])
        let query = try #require(lines[1]["query"]?.objectValue)
        #expect(query["algorithm"]?.stringValue == "edDSASignatureMessageCurve25519SHA512")
        #expect(query["persistentRef"] != nil)
        #expect(query["data"] == nil)
        let text = String(decoding: FileManager.default.contents(atPath: s.path) ?? Data(), as: UTF8.self)
        #expect(!text.contains(data) && !text.contains(signature))
    }

    /// "Always Allow" is a line of its own, naming the item and the token; the passphrase is in
    /// no line.
    @Test func alwaysAllowIsALineAndThePassphraseIsInNone() throws {
        let s = try Scene()
        let made = s.call("POST", "/v1/tokens", json: #"{"name":"other","accessGroups":["default"],"capabilities":["read"]}"#)
        let other = try #require(made.json["token"]?.stringValue, "\(made.text)")
        let otherID = try #require(made.json["id"]?.stringValue)
        let access = #"{"entries":[{"authorizations":["decrypt"],"tokens":[],"prompt":true}]}"#
        let added = s.call(
            "POST", "/v1/items", json: #"{"class":"genericPassword","service":"s","valueData":"eA==","access":\#(access)}"#)
        let ref = try #require(added.items.first?["persistentRef"]?.stringValue, "\(added.text)")
        let read = s.call(
            "GET", "/v1/items/\(ref)?returnData=true",
            headers: [
                ("Authorization", "Bearer \(other)"), ("X-Keychain-Prompt-Passphrase", testPassphrase),
                ("X-Keychain-Prompt", "alwaysAllow"),
            ])
        #expect(read.status == 200, "\(read.text)")
        let lines = try s.lines()
        #expect(lines.map { $0["operation"]?.stringValue } == ["createToken", "add", "alwaysAllow", "search"])
        #expect(lines[2]["refs"]?.arrayValue == [.string(ref)])
        #expect(lines[2]["token"]?.objectValue?["id"]?.stringValue == otherID)
        let text = String(decoding: FileManager.default.contents(atPath: s.path) ?? Data(), as: UTF8.self)
        #expect(!text.contains(testPassphrase))
    }

    @Test func eachRouteGivesOneLineWithWhoWhatAndTheOutcome() throws {
        let s = try Scene()
        let secret = "c3VwZXItc2VjcmV0LXZhbHVl"  // base64 of "super-secret-value"
        let added = s.call(
            "POST", "/v1/items",
            json: #"{"class":"genericPassword","service":"payroll-db","account":"alice","valueData":"\#(secret)"}"#)
        #expect(added.status == 201)
        let ref = try #require(added.items.first?["persistentRef"]?.stringValue)
        #expect(
            s.call(
                "GET", "/v1/items?service=payroll-db&returnData=true",
                headers: s.f.auth + [("X-Keychain-Reason", "rotating the db password")]
            ).status == 200)
        #expect(s.call("PATCH", "/v1/items/\(ref)", json: #"{"label":"L"}"#).status == 200)
        #expect(s.call("GET", "/v1/items?service=x", headers: [("Authorization", "Bearer kcd_wrong-token-value")]).status == 401)
        #expect(
            s.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"not the passphrase at all"}"#, headers: []).status == 401
        )
        #expect(s.call("DELETE", "/v1/items/\(ref)").status == 200)
        let lines = try s.lines()
        #expect(lines.map { $0["operation"]?.stringValue } == ["add", "search", "update", "search", "unlock", "delete"])
        #expect(lines.map { $0["httpStatus"]?.intValue } == [201, 200, 200, 401, 401, 200])
        #expect(lines.map { $0["status"]?.intValue } == [0, 0, 0, -25293, -25293, 0])
        let adminID = try #require(s.f.keychain.authenticate(bearer: s.f.adminToken).id)
        #expect(lines[0]["token"]?.objectValue?["id"]?.stringValue == adminID)
        #expect(lines[3]["token"] == .null)
        #expect(lines[0]["refs"]?.arrayValue == [.string(ref)])
        #expect(lines[1]["refs"]?.arrayValue == [.string(ref)])
        #expect(lines[5]["refs"]?.arrayValue == [.string(ref)])
        #expect(lines[1]["reason"]?.stringValue == "rotating the db password")
        #expect(lines[1]["query"]?.objectValue?["service"]?.stringValue == s.keys.hash("payroll-db"))
        #expect(lines[0]["query"]?.objectValue?["account"]?.stringValue == s.keys.hash("alice"))
        #expect(lines[0]["query"]?.objectValue?["valueData"] == nil)
        #expect(lines.allSatisfy { $0["client"]?.stringValue == "127.0.0.1" })
        // Request ids: the process's prefix and a count, one apart from line to line.
        let ids = lines.map { ($0["request"]?.stringValue ?? "").split(separator: "-", omittingEmptySubsequences: false) }
        #expect(ids.allSatisfy { $0.count == 2 && (1...8).contains($0[0].count) && $0[0].allSatisfy(\.isHexDigit) })
        #expect(Set(ids.map { $0.first ?? "" }).count == 1, "one prefix")
        let counts = ids.compactMap { $0.last.flatMap { UInt64($0) } }
        #expect(counts.count == 6 && counts == Array(counts[0]..<counts[0] + 6))
        // No secret, token or passphrase, in clear or base64, anywhere in the file.
        let text = String(decoding: FileManager.default.contents(atPath: s.path) ?? Data(), as: UTF8.self)
        for forbidden in [
            secret, "super-secret-value", s.f.adminToken, "kcd_wrong-token-value", "not the passphrase at all", testPassphrase,
            "payroll-db", "alice",
        ] {
            #expect(!text.contains(forbidden), "\(forbidden) is in the audit log")
        }
    }

    /// A query option's word (`class`, a match limit, a return key, in any of its spellings) is
    /// written as given: it says what was asked, of no item. Everything else is hashed: every
    /// attribute's value, a word or not, and an option's value that is not a short word.
    @Test func anOptionsWordIsWrittenInClearEverythingElseHashed() throws {
        let s = try Scene()
        let add = #"{"class":"genericPassword","service":"true","account":"alice","valueData":"c2VjcmV0"}"#
        #expect(s.call("POST", "/v1/items", json: add).status == 201)
        #expect(s.call("GET", "/v1/items?service=true&kSecReturnData=true&m_Limit=all").status == 200)
        #expect(s.call("GET", "/v1/items?service=true&returnAttributes=yes%22%7D%2C%22x%22%3A%22").status == 400)
        #expect(s.call("GET", "/v1/items?class=internetPassword&matchHostOrSubdomainOfHost=localhost").status == 404)
        let lines = try s.lines()
        let added = try #require(lines[0]["query"]?.objectValue)
        let searched = try #require(lines[1]["query"]?.objectValue)
        let refused = try #require(lines[2]["query"]?.objectValue)
        #expect(added["class"]?.stringValue == "genericPassword")
        #expect(added["service"]?.stringValue == s.keys.hash("true"), "an attribute's value is hashed, a word too")
        #expect(added["account"]?.stringValue == s.keys.hash("alice"))
        #expect(searched["kSecReturnData"]?.stringValue == "true")
        #expect(searched["m_Limit"]?.stringValue == "all")
        #expect(searched["service"]?.stringValue == s.keys.hash("true"))
        #expect(refused["returnAttributes"]?.stringValue == s.keys.hash(#"yes"},"x":""#), "not a word: hashed")
        #expect(refused.entries.map(\.key) == ["service", "returnAttributes"], "no key injected into the line")
        let matched = try #require(lines[3]["query"]?.objectValue)
        #expect(matched["class"]?.stringValue == "internetPassword")
        #expect(matched["matchHostOrSubdomainOfHost"]?.stringValue == s.keys.hash("localhost"), "a value to match is hashed")
    }

    /// A parameter given twice, by a client without a token or with one, is refused (errSecParam
    /// or 401) and recorded with both values, hashed; the chain still verifies after it.
    @Test func aRepeatedParameterIsRecordedAndTheChainHolds() throws {
        let s = try Scene()
        #expect(s.call("GET", "/v1/items?service=a&service=b", headers: []).status == 401)
        #expect(s.call("GET", "/v1/items?service=a&service=b").status == 400)
        #expect(s.call("GET", "/v1/items?service=c").status == 404)
        s.log.close()
        let bytes = Array(FileManager.default.contents(atPath: s.path) ?? Data())
        let report = AuditVerifier.verify(bytes, keys: s.keys)
        #expect(report.problem == nil)
        #expect(report.lines == 3)
        let first = try #require(JSON.parse(Array(bytes.split(separator: 0x0A)[0]), allowingDuplicateKeys: true).objectValue)
        #expect(first["query"]?.objectValue?.entries.map(\.key) == ["service", "service"])
        #expect(first["query"]?.objectValue?.entries.map(\.value) == [.string(s.keys.hash("a")), .string(s.keys.hash("b"))])
    }

    /// A body of a thousand keys is refused, and its line holds the first `maxQueryEntries` of
    /// them, hashed, and the count of the others: a few kilobytes, not the body's size again.
    @Test func aBodyOfManyKeysMakesABoundedLine() throws {
        let s = try Scene()
        let keys = (0..<1_000).map { #""key\#($0)":"value-\#($0)""# }.joined(separator: ",")
        let answer = s.call("POST", "/v1/items", json: #"{"class":"genericPassword",\#(keys)}"#)
        #expect(answer.status == 400)
        #expect(answer.json["status"]?.intValue == -50)
        let lines = try s.lines()
        let query = try #require(lines.first?["query"]?.objectValue)
        #expect(query.entries.count == AuditRecord.maxQueryEntries)
        #expect(query["class"]?.stringValue == "genericPassword")
        #expect(query["key0"]?.stringValue == s.keys.hash("value-0"))
        #expect(lines.first?["queryLeftOut"]?.intValue == Int64(1_001 - AuditRecord.maxQueryEntries))
        let size = (FileManager.default.contents(atPath: s.path) ?? Data()).count
        #expect(size < 8_192, "\(size) bytes")
    }

    /// The client's address is bounded as in the access line: a trusted proxy forwards what the
    /// client wrote, and 5,000 bytes of it used to reach the audit line whole.
    @Test func aForwardedClientIsBoundedInTheLine() throws {
        let s = try Scene()
        var api = APIConfiguration()
        api.auditLog = s.log
        api.trustedProxies = ["127.0.0.1"]
        let client = InProcessClient(KeychainResponder(keychain: s.f.keychain, configuration: api, logger: Logger(label: "test")))
        let forged = String(repeating: "A", count: 5_000) + "\u{1b}"
        #expect(client.request("GET", "/v1/keychain", headers: s.f.auth + [("X-Forwarded-For", forged)]).status == 200)
        #expect(client.request("GET", "/v1/keychain", headers: s.f.auth + [("X-Forwarded-For", "203.0.113.7")]).status == 200)
        let lines = try s.lines()
        #expect(
            lines.map { $0["client"]?.stringValue } == [
                String(repeating: "A", count: LogText.maxAddressBytes) + "…[4937 bytes cut]", "203.0.113.7",
            ])
    }

    /// Every other route gives its line too, under its own operation, the refused ones with their
    /// OSStatus. (Backups and migration bundles: `BackupRouteTests`, `MigrationRouteTests`.)
    /// A keychain's route names its keychain (`*` for a bundle of every keychain); an item of a
    /// keychain other than the default is named by its ref, which names its keychain.
    @Test func aLineNamesTheKeychainItActedOn() throws {
        let s = try Scene()
        #expect(s.call("POST", "/v1/keychains", json: #"{"name":"team-a","passphrase":"team a"}"#).status == 201)
        let body = #"{"class":"genericPassword","service":"s","valueData":"c2VjcmV0","useKeychain":"team-a"}"#
        let added = s.call("POST", "/v1/items", json: body)
        #expect(added.status == 201)
        let ref = try #require(added.items.first?["persistentRef"]?.stringValue)
        let bundle = [("X-Keychain-Bundle-Passphrase", "bundle passphrase")]
        #expect(s.call("POST", "/v1/keychain/export?keychain=*", headers: s.f.auth + bundle).status == 200)
        #expect(s.call("POST", "/v1/keychains/team-a/lock").status == 200)
        #expect(s.call("POST", "/v1/keychain/lock").status == 200)
        let lines = try s.lines()
        #expect(lines.map { $0["operation"]?.stringValue } == ["createKeychain", "add", "export", "lock", "lock"])
        #expect(lines.map { $0["keychain"]?.stringValue } == [nil, nil, "*", "team-a", "default"])
        #expect(lines[1]["refs"] == .array([.string(ref)]) && ref.hasPrefix("team-a."))
        #expect(!lines.contains { String(decoding: JSON.object($0).serialized(), as: UTF8.self).contains("team a") })
    }

    @Test func everyOtherRouteGivesItsOperation() throws {
        let s = try Scene()
        let created = s.call("POST", "/v1/tokens", json: #"{"name":"ci","accessGroups":["default"],"capabilities":["read"]}"#)
        #expect(created.status == 201)
        let id = try #require(created.json["id"]?.stringValue)
        let calls: [(method: String, target: String, json: String?, status: Int, operation: String)] = [
            ("GET", "/v1/tokens", nil, 200, "listTokens"),
            ("GET", "/v1/tokens/self", nil, 200, "readOwnToken"),
            ("DELETE", "/v1/tokens/\(id)", nil, 204, "revokeToken"),
            ("GET", "/v1/keychain", nil, 200, "status"),
            ("GET", "/v1/keychain/settings", nil, 200, "readSettings"),
            ("PUT", "/v1/keychain/settings", #"{"lockInterval":600}"#, 200, "changeSettings"),
            ("POST", "/v1/items/search", #"{"service":"none"}"#, 404, "search"),
            ("PATCH", "/v1/items", #"{"query":{"service":"none"},"attributesToUpdate":{"label":"L"}}"#, 404, "update"),
            ("DELETE", "/v1/items?service=none", nil, 404, "delete"),
            ("GET", "/metrics", nil, 200, "readMetrics"),
            ("GET", "/v1/health", nil, 200, "health"),
            ("GET", "/v1/nowhere", nil, 404, "none"),
            ("POST", "/v1/keychain/lock", nil, 200, "lock"),
            ("POST", "/v1/keychain/unlock", #"{"passphrase":"\#(testPassphrase)"}"#, 200, "unlock"),
            (
                "POST", "/v1/keychain/passphrase", #"{"old":"\#(testPassphrase)","new":"another passphrase entirely"}"#, 204,
                "changePassphrase"
            ),
        ]
        for call in calls {
            let answer = s.call(call.method, call.target, json: call.json)
            #expect(
                answer.status == call.status, "\(call.method) \(call.target): \(String(decoding: answer.body, as: UTF8.self))")
        }
        let lines = try s.lines().dropFirst()  // the first: createToken
        #expect(lines.map { $0["operation"]?.stringValue } == calls.map(\.operation))
        #expect(lines.map { $0["httpStatus"]?.intValue } == calls.map { Int64($0.status) })
        #expect(lines.map { $0["status"]?.intValue == 0 } == calls.map { $0.status < 300 })
        #expect(
            lines.map { $0["route"]?.stringValue } == [
                "/v1/tokens", "/v1/tokens/self", "/v1/tokens/{id}", "/v1/keychain", "/v1/keychain/settings",
                "/v1/keychain/settings",
                "/v1/items/search", "/v1/items", "/v1/items", "/metrics", "/v1/health", "-", "/v1/keychain/lock",
                "/v1/keychain/unlock", "/v1/keychain/passphrase",
            ])
        let text = String(decoding: FileManager.default.contents(atPath: s.path) ?? Data(), as: UTF8.self)
        for forbidden in [testPassphrase, "another passphrase entirely", s.f.adminToken] {
            #expect(!text.contains(forbidden), "\(forbidden) is in the audit log")
        }
    }

    /// Vault's KV routes write the lines the native ones do: each operation, the item's ref, and
    /// nothing of the data written (each value of it is the secret), not even a keyed hash.
    @Test func theKVRoutesGiveTheirOperationsAndNoSecret() throws {
        let s = try Scene()
        let vault = [("X-Vault-Token", s.f.adminToken)]
        let calls: [(method: String, target: String, json: String?, status: Int, operation: String)] = [
            ("POST", "/v1/secret/data/app/db", #"{"data":{"password":"kv-secret-one"},"options":{"cas":0}}"#, 200, "kvWrite"),
            ("GET", "/v1/secret/data/app/db", nil, 200, "kvRead"),
            ("PATCH", "/v1/secret/data/app/db", #"{"data":{"password":"kv-secret-two"}}"#, 200, "kvPatch"),
            ("LIST", "/v1/secret/metadata/app", nil, 200, "kvList"),
            ("GET", "/v1/secret/metadata/app?list=true", nil, 200, "kvList"),
            ("GET", "/v1/secret/metadata/app/db", nil, 200, "kvReadMetadata"),
            ("GET", "/v1/sys/mounts", nil, 200, "kvMounts"),
            ("GET", "/v1/sys/internal/ui/mounts/secret/app/db", nil, 200, "kvMounts"),
            ("GET", "/v1/auth/token/lookup-self", nil, 200, "readOwnToken"),
            ("DELETE", "/v1/secret/data/app/db", nil, 204, "kvDelete"),
        ]
        for call in calls {
            let answer = s.call(call.method, call.target, json: call.json, headers: vault)
            #expect(answer.status == call.status, "\(call.method) \(call.target): \(answer.text)")
        }
        let lines = try s.lines()
        #expect(lines.map { $0["operation"]?.stringValue } == calls.map(\.operation))
        let refs = lines.map { $0["refs"]?.arrayValue?.count ?? -1 }
        #expect(refs == [1, 1, 1, 0, 0, 1, 0, 0, 0, 1], "a write, read, patch, metadata read and delete name the item")
        #expect(lines[0]["query"]?.objectValue?.keys.sorted() == ["options.cas"])
        #expect(lines[2]["query"] == .object([:]))
        let text = String(decoding: FileManager.default.contents(atPath: s.path) ?? Data(), as: UTF8.self)
        for forbidden in ["kv-secret-one", "kv-secret-two", "password", s.f.adminToken] {
            #expect(!text.contains(forbidden), "\(forbidden) is in the audit log")
        }
    }

    /// Fail closed: with the log unwritable (here /dev/full), an answer that would carry a
    /// secret is 503, and one that would not is answered. The add, made before any write had
    /// failed, is 503 too: made, but not audited, and its answer says so.
    @Test func aSecretIsNotAnsweredWhenItsAuditLineCannotBeWritten() throws {
        let s = try Scene(destination: .file("/dev/full"))
        defer { s.log.close() }
        let added = s.call("POST", "/v1/items", json: #"{"class":"genericPassword","service":"db","valueData":"eA=="}"#)
        added.expectError(503, -25291, naming: "audit")
        #expect(added.json["message"]?.stringValue?.contains("may have been made but could not be audited") == true)
        s.call("GET", "/v1/items?service=db&returnData=true").expectError(503, -25291, naming: "audit")
        #expect(s.call("GET", "/v1/items?service=db").status == 200)
        #expect(s.log.isFailing)
    }

    /// The changes `aChangeIsRefusedBeforeItIsMadeWhileTheAuditLogFails` makes.
    enum Change: String, CaseIterable, Sendable {
        case update, delete, settings, lock, tokenCreate, itemsImport, bundleImport
    }

    /// `change`'s request through the audited responder, its success status and its operation.
    func make(_ change: Change, _ s: Scene, ref: String, bundle: [UInt8]) throws
        -> (answer: RawResponse, status: Int, operation: String)
    {
        switch change {
        case .update:
            return (s.call("PATCH", "/v1/items/\(ref)", json: #"{"valueData":"bmV3"}"#), 200, "update")
        case .delete:
            return (s.call("DELETE", "/v1/items/\(ref)"), 200, "delete")
        case .settings:
            return (s.call("PUT", "/v1/keychain/settings", json: #"{"lockInterval":777}"#), 200, "changeSettings")
        case .lock:
            return (s.call("POST", "/v1/keychain/lock"), 200, "lock")
        case .tokenCreate:
            let body = #"{"name":"ci","accessGroups":["default"],"capabilities":["read"]}"#
            return (s.call("POST", "/v1/tokens", json: body), 201, "createToken")
        case .itemsImport:
            let pem = try TestCertificates.read(IdentityRouteTests.material.ca.certificatePath)
            let headers = s.f.auth + [("Content-Type", "application/x-pem-file")]
            return (s.client.request("POST", "/v1/items/import", headers: headers, body: pem), 201, "importItems")
        case .bundleImport:
            let headers =
                s.f.auth + [
                    (MigrationRouteTests.passphraseHeader, MigrationRouteTests.bundlePassphrase),
                    ("Content-Type", "application/octet-stream"),
                ]
            return (s.client.request("POST", "/v1/keychain/import", headers: headers, body: bundle), 200, "import")
        }
    }

    /// What every change would alter, read past the audit log (the fixture's own responder): the
    /// item's secret, the keychain's state and item count, its settings, its tokens.
    func state(_ s: Scene) throws -> [String] {
        try ["/v1/items?service=db&returnData=true", "/v1/keychain", "/v1/keychain/settings", "/v1/tokens"].map {
            try s.f.call("GET", $0).text
        }
    }

    /// Fail closed for changes too: while the audit log is known to be failing, a change is
    /// refused before it runs (503 errSecNotAvailable naming `audit`, `Retry-After`) and nothing
    /// changes; once the file can be written again, the same request is made and its line is in
    /// the file.
    @Test(arguments: Change.allCases)
    func aChangeIsRefusedBeforeItIsMadeWhileTheAuditLogFails(_ change: Change) throws {
        let disk = LimitedDisk()
        let s = try Scene(disk: disk)
        let ref = try s.f.add(service: "db", secret: "b2xk")
        let other = try APIFixture()
        try other.add(service: "migrated")
        let bundle = try MigrationRouteTests.export(other).body
        disk.fill()
        s.call("GET", "/v1/items?service=db&returnData=true").expectError(503, -25291, naming: "audit")
        #expect(s.log.isFailing)
        let before = try state(s)
        let refused = try make(change, s, ref: ref, bundle: bundle).answer
        refused.expectError(503, -25291, naming: "audit")
        #expect(refused.json["message"]?.stringValue?.contains("no change is made") == true, "\(refused.text)")
        #expect(refused.header("Retry-After") == "1")
        #expect(try state(s) == before, "nothing changed")
        disk.free()
        let made = try make(change, s, ref: ref, bundle: bundle)
        #expect(made.answer.status == made.status, "\(made.answer.text)")
        #expect(try state(s) != before, "made once the log is writable")
        let last = try #require(try s.lines().last)
        #expect(last["operation"]?.stringValue == made.operation)
        #expect(last["httpStatus"]?.intValue == Int64(made.status))
    }

    /// A change made before any write failed whose line then cannot be written (the disk filled
    /// meanwhile) is answered 503 saying it may have been made but could not be audited; the
    /// next change is refused before it runs.
    @Test func aChangeWhoseLineCannotBeWrittenIsAnswered503() throws {
        let disk = LimitedDisk()
        let s = try Scene(disk: disk)
        disk.fill()
        let answer = s.call("PUT", "/v1/keychain/settings", json: #"{"lockInterval":777}"#)
        answer.expectError(503, -25291, naming: "audit")
        #expect(answer.json["message"]?.stringValue?.contains("the change may have been made but could not be audited") == true)
        #expect(answer.header("Retry-After") == nil, "a retry could make it twice")
        #expect(try s.f.call("GET", "/v1/keychain/settings").json["lockInterval"]?.intValue == 777, "made")
        let next = s.call("PUT", "/v1/keychain/settings", json: #"{"lockInterval":778}"#)
        #expect(next.json["message"]?.stringValue?.contains("no change is made") == true, "\(next.text)")
        #expect(try s.f.call("GET", "/v1/keychain/settings").json["lockInterval"]?.intValue == 777, "not made")
        s.log.close()
    }

    /// A new token's bearer secret is a credential: with the audit log failing, its creation is
    /// answered 503 without the secret, as a secret item's is; the listing still answers.
    @Test func aNewTokensSecretIsNotAnsweredWhenItsAuditLineCannotBeWritten() throws {
        let s = try Scene(destination: .file("/dev/full"))
        defer { s.log.close() }
        let created = s.call("POST", "/v1/tokens", json: #"{"name":"ci","accessGroups":["g"],"capabilities":["read"]}"#)
        created.expectError(503, -25291, naming: "audit")
        #expect(!String(decoding: created.body, as: UTF8.self).contains("kcd_"))
        let listed = s.call("GET", "/v1/tokens")
        #expect(listed.status == 200)
        #expect(listed.json["tokens"]?.arrayValue?.contains { $0.objectValue?["name"] == "ci" } == true, "created, to revoke")
    }
}

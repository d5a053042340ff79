import Foundation
import KeychainCore
import KeychainCrypto
import KeychainJSON
import TestSupport
import Testing

/// Several keychains on one server (docs/keychains.md): each with its own passphrase, lock and
/// throttles; tokens' search lists; references that name their keychain; and a keychain a
/// token may not use answering exactly as a missing one.
@Suite struct KeychainsRouteTests {
    let fixture: APIFixture
    static let teamPassphrase = "team a's own passphrase"

    init() throws {
        fixture = try APIFixture()
        let created = try fixture.call(
            "POST", "/v1/keychains", json: #"{"name":"team-a","passphrase":"\#(Self.teamPassphrase)"}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.header("Location") == "/v1/keychains/team-a")
        #expect(created.json["name"] == .string("team-a") && created.json["state"] == .string("unlocked"))
    }

    /// A token over `groups` whose search list is `keychains`.
    func token(keychains: [String], groups: [String] = ["*"], capabilities: [String] = ["read", "write", "delete", "lock"])
        throws -> String
    {
        let body =
            #"{"name":"t","accessGroups":\#(jsonArray(groups)),"keychains":\#(jsonArray(keychains)),"capabilities":\#(jsonArray(capabilities))}"#
        let response = try fixture.call("POST", "/v1/tokens", json: body)
        #expect(response.status == 201, "\(response.text)")
        #expect(response.json["keychains"] == .array(keychains.map { .string($0) }))
        return try #require(response.json["token"]?.stringValue)
    }

    func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    /// Adds a generic password to `keychain` (the token's default when `nil`); returns its ref.
    func add(service: String, secret: String, keychain: String?, token: String? = nil) throws -> String {
        var body = #"{"class":"genericPassword","service":"\#(service)","account":"u","valueData":"\#(secret)""#
        if let keychain { body += #","useKeychain":"\#(keychain)""# }
        let response = try fixture.call("POST", "/v1/items", json: body + "}", headers: token.map(bearer))
        #expect(response.status == 201, "\(response.text)")
        return try #require(response.items.first?["persistentRef"]?.stringValue)
    }

    func secrets(_ target: String, token: String? = nil) throws -> [String] {
        let response = try fixture.call("GET", target, headers: token.map(bearer))
        #expect(response.status == 200, "\(response.text)")
        return response.items.compactMap { $0["valueData"]?.stringValue }
    }

    @Test func eachKeychainHasItsOwnPassphraseAndLock() throws {
        let inDefault = try add(service: "db", secret: "ZGVm", keychain: nil)
        let inTeam = try add(service: "db", secret: "dGVhbQ==", keychain: "team-a")
        #expect(PersistentRef.parse(inDefault)?.keychain == "default" && !inDefault.contains("."))
        #expect(inTeam.hasPrefix("team-a.") && PersistentRef.parse(inTeam)?.keychain == "team-a")

        // Locking team-a leaves the default keychain readable.
        let locked = try fixture.call("POST", "/v1/keychains/team-a/lock")
        #expect(locked.status == 200 && locked.json["state"] == .string("locked"))
        #expect(try secrets("/v1/items/\(inDefault)?returnData=true") == ["ZGVm"])
        try fixture.call("GET", "/v1/items/\(inTeam)?returnData=true").expectError(423, -25308)
        #expect(try fixture.call("GET", "/v1/keychain").json["state"] == .string("unlocked"))

        // The default's passphrase does not open team-a; its own does.
        try fixture.call("POST", "/v1/keychains/team-a/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#)
            .expectError(401, -25293, naming: "passphrase")
        let unlocked = try fixture.call(
            "POST", "/v1/keychains/team-a/unlock", json: #"{"passphrase":"\#(Self.teamPassphrase)"}"#)
        #expect(unlocked.status == 200 && unlocked.json["state"] == .string("unlocked"), "\(unlocked.text)")
        #expect(try secrets("/v1/items/\(inTeam)?returnData=true") == ["dGVhbQ=="])

        // A passphrase change of team-a leaves the default's passphrase as it was.
        let changed = try fixture.call(
            "POST", "/v1/keychains/team-a/passphrase", json: #"{"old":"\#(Self.teamPassphrase)","new":"another one"}"#)
        #expect(changed.status == 204, "\(changed.text)")
        _ = try fixture.call("POST", "/v1/keychain/lock")
        #expect(try fixture.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#).status == 200)

        // Settings are the keychain's own.
        let settings = try fixture.call("PUT", "/v1/keychains/team-a/settings", json: #"{"lockInterval":60}"#)
        #expect(settings.json["lockInterval"] == .int(60))
        #expect(try fixture.call("GET", "/v1/keychain/settings").json["lockInterval"] == .int(300))
    }

    @Test func eachKeychainsThrottleCountsOnlyItsOwnFailures() throws {
        _ = try fixture.call("POST", "/v1/keychains/lock-all")
        // From one address: the address's budget for team-a runs out, the default's does not.
        var last = try fixture.call("POST", "/v1/keychains/team-a/unlock", json: #"{"passphrase":"wrong"}"#)
        for _ in 0..<10 where last.status != 429 {
            last = try fixture.call("POST", "/v1/keychains/team-a/unlock", json: #"{"passphrase":"wrong"}"#)
        }
        last.expectError(429, -25293)
        let opened = try fixture.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: [])
        #expect(opened.status == 200, "\(opened.text)")
        // From many addresses: team-a's own throttle, kept with team-a, refuses; the default's is untouched.
        var address = 0
        repeat {
            address += 1
            last = try fixture.call(
                "POST", "/v1/keychains/team-a/unlock", json: #"{"passphrase":"wrong"}"#, remoteAddress: "10.0.0.\(address)")
        } while last.status != 429 && address < 60
        last.expectError(429, -25293)
        #expect(try fixture.keychains.keychain(named: "team-a")!.unlockBudget().retryAfterSeconds > 0)
        #expect(try fixture.keychain.unlockBudget().failures == 0)
        _ = try fixture.call("POST", "/v1/keychain/lock")
        let again = try fixture.call(
            "POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#, headers: [], remoteAddress: "10.1.0.1")
        #expect(again.status == 200, "\(again.text)")
    }

    @Test func aSearchSpansTheTokensSearchListInOrderAndAnAddGoesToItsFirst() throws {
        let teamFirst = try token(keychains: ["team-a", "default"])
        let added = try add(service: "api", secret: "dGVhbQ==", keychain: nil, token: teamFirst)
        #expect(added.hasPrefix("team-a."), "an add goes to the first keychain of the search list")
        _ = try add(service: "api", secret: "ZGVm", keychain: "default", token: teamFirst)
        let query = "/v1/items?class=genericPassword&service=api&returnData=true"
        #expect(try secrets(query, token: teamFirst) == ["dGVhbQ=="], "matchLimit one: the first keychain's")
        #expect(try secrets(query + "&matchLimit=all", token: teamFirst) == ["dGVhbQ==", "ZGVm"])
        let defaultFirst = try token(keychains: ["default", "team-a"])
        #expect(try secrets(query + "&matchLimit=all", token: defaultFirst) == ["ZGVm", "dGVhbQ=="])
        #expect(try secrets(query + "&matchLimit=all&matchSearchList=team-a", token: defaultFirst) == ["dGVhbQ=="])
        #expect(try secrets(query + "&matchLimit=all&useKeychain=default", token: teamFirst) == ["ZGVm"])
        // A locked keychain late in the list does not stop a search the first one answers.
        _ = try fixture.call("POST", "/v1/keychain/lock")
        #expect(try secrets(query, token: teamFirst) == ["dGVhbQ=="])
        try fixture.call("GET", query + "&matchLimit=all", headers: bearer(teamFirst)).expectError(423, -25308)
        #expect(try fixture.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#).status == 200)

        // Update and delete span the list too; each keychain's item is changed where it is.
        let update = #"{"query":{"class":"genericPassword","service":"api"},"attributesToUpdate":{"label":"both"}}"#
        let updated = try fixture.call("PATCH", "/v1/items", json: update, headers: bearer(teamFirst))
        #expect(updated.items.map { $0["persistentRef"]?.stringValue?.hasPrefix("team-a.") } == [true, false])
        let deleted = try fixture.call("DELETE", "/v1/items?class=genericPassword&service=api", headers: bearer(teamFirst))
        #expect(deleted.json["deleted"] == .int(2))
        try fixture.call("GET", query, headers: bearer(teamFirst)).expectError(404, -25300)
    }

    @Test func pagesOfASearchGoOnFromKeychainToKeychain() throws {
        let fixture = try APIFixture { $0.maxAnswerItems = 2 }
        _ = try fixture.call("POST", "/v1/keychains", json: #"{"name":"b","passphrase":"b's passphrase"}"#)
        var expected: [String] = []
        for (keychain, n) in [("default", 3), ("b", 2)] {
            for k in 0..<n {
                let secret = Data("\(keychain)\(k)".utf8).base64EncodedString()
                let body =
                    #"{"class":"genericPassword","service":"s\#(k)","account":"u","valueData":"\#(secret)","useKeychain":"\#(keychain)"}"#
                #expect(try fixture.call("POST", "/v1/items", json: body).status == 201)
                expected.append(secret)
            }
        }
        var seen: [String] = []
        var next: String? = nil
        var pages = 0
        repeat {
            var body = #"{"class":"genericPassword","matchLimit":"all","returnData":true"#
            if let next { body += #","pageAfter":"\#(next)""# }
            let page = try fixture.call("POST", "/v1/items/search", json: body + "}")
            #expect(page.status == 200, "\(page.text)")
            seen += page.items.compactMap { $0["valueData"]?.stringValue }
            next = page.json["next"]?.stringValue
            pages += 1
        } while next != nil && pages < 10
        #expect(seen == expected)
        #expect(pages == 2, "a page goes on into the next keychain while it holds less than a page")
        // matchLimit counts across keychains and pages.
        let four = try fixture.call("POST", "/v1/items/search", json: #"{"class":"genericPassword","matchLimit":4}"#)
        let cursor = try #require(four.json["next"]?.stringValue)
        let rest = try fixture.call(
            "POST", "/v1/items/search", json: #"{"class":"genericPassword","matchLimit":4,"pageAfter":"\#(cursor)"}"#)
        #expect(four.items.count + rest.items.count == 4 && rest.json["next"] == nil, "\(rest.text)")
    }

    @Test func aKeychainTheTokenMayNotUseAnswersAsAMissingOne() throws {
        let teamRef = try add(service: "db", secret: "dGVhbQ==", keychain: "team-a")
        let outsider = try token(keychains: ["default"], capabilities: ["read", "write", "delete", "lock", "list"])
        let missingRef = "other." + String(teamRef.dropFirst("team-a.".count))
        let pairs: [(String, String, String?)] = [
            ("GET", "/v1/keychains/team-a", nil), ("POST", "/v1/keychains/team-a/lock", nil),
            ("POST", "/v1/keychains/team-a/unlock", #"{"passphrase":"\#(Self.teamPassphrase)"}"#),
            ("GET", "/v1/keychains/team-a/settings", nil),
            ("GET", "/v1/items?class=genericPassword&useKeychain=team-a", nil),
            ("GET", "/v1/items/\(teamRef)", nil), ("DELETE", "/v1/items/\(teamRef)", nil),
            ("PATCH", "/v1/items/\(teamRef)", #"{"label":"x"}"#),
        ]
        for (method, target, body) in pairs {
            let refused = try fixture.call(method, target, json: body, headers: bearer(outsider))
            let missingTarget = target.replacingOccurrences(of: teamRef, with: missingRef)
                .replacingOccurrences(of: "team-a", with: "other")
            let missing = try fixture.call(method, missingTarget, json: body, headers: bearer(outsider))
            #expect(refused.status == 404 && refused.status == missing.status, "\(method) \(target): \(refused.text)")
            #expect(refused.body == missing.body, "\(method) \(target)")
        }
        let list = try fixture.call("GET", "/v1/keychains", headers: bearer(outsider))
        #expect(list.json["keychains"] == .array([.object(["name": "default", "state": "unlocked"])]))
        // Its searches never look in team-a.
        try fixture.call("GET", "/v1/items?class=genericPassword&service=db", headers: bearer(outsider))
            .expectError(404, -25300)
        // Nor may it make a token for team-a, or create or delete keychains.
        let body = #"{"name":"t","accessGroups":["*"],"keychains":["team-a"],"capabilities":["read"]}"#
        let admin = try token(keychains: ["default"], capabilities: ["admin", "read"])
        try fixture.call("POST", "/v1/tokens", json: body, headers: bearer(admin)).expectError(403, -34018, naming: "keychains")
        try fixture.call("POST", "/v1/keychains", json: #"{"name":"x","passphrase":"p"}"#, headers: bearer(admin))
            .expectError(403, -34018)
        try fixture.call("DELETE", "/v1/keychains/team-a?confirm=team-a", headers: bearer(admin)).expectError(404, -25294)
        #expect(try fixture.call("GET", "/v1/tokens", headers: bearer(admin)).json["tokens"]?.arrayValue?.count == 2)
    }

    @Test func deletingAKeychainNeedsItsNameRepeatedAndRemovesItsItems() throws {
        let ref = try add(service: "db", secret: "dGVhbQ==", keychain: "team-a")
        let directory = fixture.directory.path + "/keychains/team-a"
        #expect(FileManager.default.fileExists(atPath: directory + "/keychain.db"))
        try fixture.call("DELETE", "/v1/keychains/team-a").expectError(400, -50, naming: "confirm")
        try fixture.call("DELETE", "/v1/keychains/default?confirm=default").expectError(400, -50, naming: "name")
        #expect(try fixture.call("DELETE", "/v1/keychains/team-a?confirm=team-a").status == 204)
        #expect(!FileManager.default.fileExists(atPath: directory))
        try fixture.call("GET", "/v1/items/\(ref)").expectError(404, -25300)
        try fixture.call("GET", "/v1/keychains/team-a").expectError(404, -25294)
        // The name is free again, and the new keychain is empty.
        _ = try fixture.call("POST", "/v1/keychains", json: #"{"name":"team-a","passphrase":"new"}"#)
        try fixture.call("GET", "/v1/items?class=genericPassword&useKeychain=team-a").expectError(404, -25300)
    }

    @Test func namesAreCheckedAndCreationIsOnce() throws {
        for name in ["", "Team", "a/b", "a.b", "lock-all", String(repeating: "a", count: 49), "é"] {
            let body = JSON.object(["name": .string(name), "passphrase": "p"]).serialized()
            let response = fixture.call("POST", "/v1/keychains", body: body, contentType: "application/json")
            response.expectError(400, -50, naming: "name")
        }
        try fixture.call("POST", "/v1/keychains", json: #"{"name":"team-a","passphrase":"p"}"#).expectError(409, -25296)
        try fixture.call("POST", "/v1/keychains", json: #"{"name":"default","passphrase":"p"}"#).expectError(409, -25296)
    }

    @Test func keychainsOpenAgainAfterARestart() throws {
        let ref = try add(service: "db", secret: "dGVhbQ==", keychain: "team-a")
        fixture.keychains.close()
        let keychain = try Keychain.open(.testing(fixture.directory.path))
        let keychains = try Keychains.onSQLite(keychain)
        defer { keychains.close() }
        #expect(keychains.names == ["default", "team-a"])
        let team = try #require(keychains.keychain(named: "team-a"))
        #expect(team.state == .locked)
        try team.unlock(passphrase: SecureBytes(utf8: Self.teamPassphrase))
        let admin = try keychain.authenticate(bearer: fixture.adminToken)
        var query = ItemQuery()
        query.returnData = true
        query.persistentRef = PersistentRef.parse(ref)?.bytes
        query.keychain = "team-a"
        #expect(try keychains.searchPage(query, token: admin).items.first?.secret == Array("team".utf8))
    }

    /// `?keychain=` names the keychain a bundle, a backup or an import is of; without it, the
    /// token's default keychain. A keychain the token may not use is 404 before anything runs.
    @Test func bundlesBackupsAndImportsNameTheirKeychain() throws {
        _ = try add(service: "db", secret: "dGVhbQ==", keychain: "team-a")
        let passphrase = ("X-Keychain-Bundle-Passphrase", "the bundle's own passphrase")
        let exported = try fixture.call("POST", "/v1/keychain/export?keychain=team-a", headers: fixture.auth + [passphrase])
        #expect(exported.status == 200 && exported.header("X-Keychain-Bundle-Items") == "1", "\(exported.text)")
        let imported = fixture.inProcess.request(
            "POST", "/v1/keychain/import?keychain=default&conflict=fail",
            headers: fixture.auth + [passphrase, ("Content-Type", "application/octet-stream")], body: exported.body)
        #expect(imported.status == 200 && imported.json["imported"] == .int(1), "\(imported.text)")
        let query = "/v1/items?class=genericPassword&service=db&matchLimit=all&returnData=true"
        #expect(try secrets(query + "&useKeychain=default") == ["dGVhbQ=="])
        #expect(try secrets(query) == ["dGVhbQ==", "dGVhbQ=="], "one in each keychain")
        let backup = try fixture.call("POST", "/v1/keychain/backup?keychain=team-a")
        #expect(backup.status == 200 && backup.body.starts(with: Array("SQLite format 3".utf8)))
        let outsider = try token(keychains: ["default"], capabilities: ["admin", "read", "write"])
        for (method, target) in [
            ("POST", "/v1/keychain/export?keychain=team-a"), ("POST", "/v1/keychain/backup?keychain=team-a"),
        ] {
            try fixture.call(method, target, headers: bearer(outsider) + [passphrase]).expectError(404, -25294)
        }
        let pem = fixture.call(
            "POST", "/v1/items/import?keychain=team-a", body: Array("x".utf8), contentType: "application/x-pem-file",
            token: outsider)
        pem.expectError(404, -25294)
    }

    /// `?keychain=*`: a bundle of every keychain, each item named by its keychain, and an
    /// import putting each item back into the keychain of its name. Refused with nothing
    /// written: a keychain the bundle names that the server lacks, a collision in any keychain
    /// under `fail`, a bundle of several keychains imported into one; a server admin's alone.
    @Test func aBundleOfEveryKeychainGoesBackKeychainByKeychain() throws {
        _ = try add(service: "d", secret: "ZGVm", keychain: nil)
        _ = try add(service: "t", secret: "dGVhbQ==", keychain: "team-a")
        let passphrase = ("X-Keychain-Bundle-Passphrase", "the bundle's own passphrase")
        let exported = try fixture.call("POST", "/v1/keychain/export?keychain=*", headers: fixture.auth + [passphrase])
        #expect(exported.status == 200 && exported.header("X-Keychain-Bundle-Items") == "2", "\(exported.text)")
        let bundle = exported.body

        let other = try APIFixture(passphrase: "the other server's passphrase")
        func importInto(_ target: String) -> RawResponse {
            other.call("POST", target, body: bundle, contentType: "application/octet-stream", headers: [passphrase])
        }
        func count(_ keychain: String) throws -> Int {
            let response = try other.call("GET", "/v1/items?class=genericPassword&matchLimit=all&useKeychain=\(keychain)")
            return response.status == 404 ? 0 : response.items.count
        }
        importInto("/v1/keychain/import?keychain=*").expectError(404, -25294, naming: "team-a")
        #expect(try count("default") == 0, "nothing written while a keychain is missing")
        #expect(try other.call("POST", "/v1/keychains", json: #"{"name":"team-a","passphrase":"b's team a"}"#).status == 201)
        importInto("/v1/keychain/import").expectError(400, -50, naming: "keychain=*")
        #expect(try count("default") == 0, "a bundle of two keychains is not merged into one")

        let imported = importInto("/v1/keychain/import?keychain=*")
        #expect(imported.status == 200 && imported.json["imported"] == .int(2), "\(imported.text)")
        #expect(imported.json["manifest"]?.objectValue?["keychains"] == .object(["default": .int(1), "team-a": .int(1)]))
        let query = "/v1/items?class=genericPassword&matchLimit=all&returnData=true&useKeychain="
        #expect(try other.call("GET", query + "team-a").items.compactMap { $0["valueData"]?.stringValue } == ["dGVhbQ=="])
        #expect(try other.call("GET", query + "default").items.compactMap { $0["valueData"]?.stringValue } == ["ZGVm"])

        // A collision in the second keychain keeps the first keychain's share out too.
        let refs = try other.call("GET", query + "default&returnPersistentRef=true").items
        let first = try #require(refs.first?["persistentRef"]?.stringValue)
        #expect(try other.call("DELETE", "/v1/items/\(first)").status == 200)
        importInto("/v1/keychain/import?keychain=*&conflict=fail").expectError(409, -25299, naming: "primary key")
        #expect(try count("default") == 0 && count("team-a") == 1)

        let teamAdmin = try token(keychains: ["default", "team-a"], capabilities: ["admin", "read", "write"])
        try fixture.call("POST", "/v1/keychain/export?keychain=*", headers: bearer(teamAdmin) + [passphrase])
            .expectError(403, -34018, naming: "every keychain")
        #expect(try fixture.call("POST", "/v1/keychains/team-a/lock").status == 200)
        try fixture.call("POST", "/v1/keychain/export?keychain=*", headers: fixture.auth + [passphrase])
            .expectError(423, -25308, naming: "team-a")
    }

    @Test func lockAllLocksEveryKeychainOfTheToken() throws {
        let response = try fixture.call("POST", "/v1/keychains/lock-all")
        #expect(response.status == 200)
        #expect(
            response.json["keychains"]
                == .array([.object(["name": "default", "state": "locked"]), .object(["name": "team-a", "state": "locked"])]))
    }
}

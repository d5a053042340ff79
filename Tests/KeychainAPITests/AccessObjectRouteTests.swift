import ExtrasBase64
import Foundation
import KeychainJSON
import KeychainX509
import TestSupport
import Testing

/// Access objects on items (SecAccess, SecACL): trusted tokens, authorization tags, the owner's
/// entry and the prompt answered with the keychain's passphrase, over HTTP.
@Suite struct AccessObjectRouteTests {
    struct Token {
        let id: String
        let secret: String
        var bearer: [(String, String)] { [("Authorization", "Bearer \(secret)")] }

        func with(_ headers: [(String, String)]) -> [(String, String)] { bearer + headers }
    }

    static func token(_ f: APIFixture, groups: [String] = ["default"], capabilities: [String]) throws -> Token {
        let made = try f.call(
            "POST", "/v1/tokens",
            json: #"{"name":"t","accessGroups":\#(Self.array(groups)),"capabilities":\#(Self.array(capabilities))}"#)
        #expect(made.status == 201, "\(made.text)")
        return Token(
            id: try #require(made.json["id"]?.stringValue, "\(made.text)"),
            secret: try #require(made.json["token"]?.stringValue))
    }

    static func array(_ values: [String]) -> String { "[" + values.map { #""\#($0)""# }.joined(separator: ",") + "]" }

    static let passphrase = [("X-Keychain-Prompt-Passphrase", testPassphrase)]
    static let wrongPassphrase = [("X-Keychain-Prompt-Passphrase", "not the passphrase")]
    static let alwaysAllow = passphrase + [("X-Keychain-Prompt", "alwaysAllow")]

    /// A generic password whose access object is SecAccessCreate's, trusting `trusted`; its ref.
    static func addGuarded(_ f: APIFixture, trusted: [Token], service: String = "db") throws -> String {
        let made = try f.call(
            "POST", "/v1/access", json: #"{"description":"db password","trustedTokens":\#(array(trusted.map(\.id)))}"#)
        #expect(made.status == 200, "\(made.text)")
        let access = String(decoding: try #require(made.json["access"]).serialized(), as: UTF8.self)
        let added = try f.call(
            "POST", "/v1/items",
            json:
                #"{"class":"genericPassword","service":"\#(service)","account":"app","valueData":"aHVudGVyMg==","access":\#(access)}"#
        )
        #expect(added.status == 201, "\(added.text)")
        return try #require(added.items.first?["persistentRef"]?.stringValue, "\(added.text)")
    }

    static func read(_ f: APIFixture, _ ref: String, _ headers: [(String, String)]) throws -> RawResponse {
        try f.call("GET", "/v1/items/\(ref)?returnData=true", headers: headers)
    }

    @Test func theStandardAccessObjectIsApplesSecAccessCreate() throws {
        let f = try APIFixture()
        let trusted = try Self.token(f, capabilities: ["read"])
        let made = try f.call("POST", "/v1/access", json: #"{"description":"d","trustedTokens":["\#(trusted.id)"]}"#)
        let list = try #require(made.json["access"]?.objectValue?["entries"]?.arrayValue, "\(made.text)")
        let entries = list.compactMap(\.objectValue)
        #expect(entries.count == 3)
        #expect(entries[0]["authorizations"] == .array(["changeACL"]))
        #expect(entries[0]["tokens"] == .array([]))
        #expect(entries[0]["prompt"] == .bool(true))
        #expect(entries[1]["authorizations"] == .array(["encrypt"]))
        #expect(entries[1]["tokens"] == .string("any"))
        #expect(entries[2]["authorizations"] == .array(["decrypt", "sign", "derive", "export"]))
        #expect(entries[2]["tokens"] == .array([.string(trusted.id)]))
        #expect(entries.allSatisfy { $0["description"] == .string("d") })
        try f.call("POST", "/v1/access", json: #"{"trustedTokens":["admin"]}"#).expectError(400, -50, naming: "trustedTokens")
    }

    @Test func aTrustedTokenReadsAndAnotherNeedsThePassphrase() throws {
        let f = try APIFixture()
        let trusted = try Self.token(f, capabilities: ["read", "list"])
        let other = try Self.token(f, capabilities: ["read", "list"])
        let ref = try Self.addGuarded(f, trusted: [trusted])

        let allowed = try Self.read(f, ref, trusted.bearer)
        #expect(allowed.items.first?["valueData"] == "aHVudGVyMg==", "\(allowed.text)")
        // Listing is free: attributes answer to any token of the group.
        let listed = try f.call("GET", "/v1/items/\(ref)?returnAttributes=true", headers: other.bearer)
        #expect(listed.status == 200, "\(listed.text)")

        try Self.read(f, ref, other.bearer).expectError(403, -25315, naming: "X-Keychain-Prompt-Passphrase")
        try Self.read(f, ref, other.with(Self.wrongPassphrase)).expectError(401, -25293, naming: "X-Keychain-Prompt-Passphrase")
        // "Allow Once": this request, then the prompt again.
        let once = try Self.read(f, ref, other.with(Self.passphrase))
        #expect(once.items.first?["valueData"] == "aHVudGVyMg==", "\(once.text)")
        try Self.read(f, ref, other.bearer).expectError(403, -25315)
        // "Always Allow": the token joins the entry.
        let always = try Self.read(f, ref, other.with(Self.alwaysAllow))
        #expect(always.items.first?["valueData"] == "aHVudGVyMg==", "\(always.text)")
        #expect(try Self.read(f, ref, other.bearer).items.first?["valueData"] == "aHVudGVyMg==")
        let access = try f.call("GET", "/v1/items/\(ref)/access", headers: other.bearer)
        let entries = try #require(access.json["access"]?.objectValue?["entries"]?.arrayValue, "\(access.text)")
        #expect(entries[2].objectValue?["tokens"] == .array([.string(trusted.id), .string(other.id)]))
    }

    @Test func anEntryWithoutAPromptRefusesWhatItDoesNotList() throws {
        let f = try APIFixture()
        let trusted = try Self.token(f, capabilities: ["read", "write", "delete"])
        let other = try Self.token(f, capabilities: ["read", "write", "delete"])
        let ref = try f.add(service: "s")
        let access = #"""
            {"entries":[{"authorizations":["changeACL","update","delete","decrypt"],"tokens":["\#(trusted.id)"]}]}
            """#
        let set = try f.call("PUT", "/v1/items/\(ref)/access", json: access)
        #expect(set.status == 200, "\(set.text)")
        try Self.read(f, ref, other.with(Self.passphrase)).expectError(403, -34018, naming: "access")
        try f.call("PATCH", "/v1/items/\(ref)", json: #"{"label":"x"}"#, headers: other.bearer).expectError(403, -34018)
        try f.call("DELETE", "/v1/items/\(ref)", headers: other.bearer).expectError(403, -34018)
        try f.call("PUT", "/v1/items/\(ref)/access", json: access, headers: other.bearer).expectError(403, -34018)
        // Nothing changed: the trusted token still reads the same item, then updates and deletes it.
        #expect(try Self.read(f, ref, trusted.bearer).items.first?["valueData"] == "c2VjcmV0")
        #expect(try f.call("PATCH", "/v1/items/\(ref)", json: #"{"label":"x"}"#, headers: trusted.bearer).status == 200)
        #expect(try f.call("DELETE", "/v1/items/\(ref)", headers: trusted.bearer).status == 200)
    }

    @Test func theOwnersEntryDecidesWhoChangesTheAccessObject() throws {
        let f = try APIFixture()
        let writer = try Self.token(f, capabilities: ["read", "write"])
        let reader = try Self.token(f, capabilities: ["read"])
        let ref = try Self.addGuarded(f, trusted: [])
        let open = #"{"entries":[{"authorizations":["any"],"tokens":"any"}]}"#
        // The standard owner trusts no token: the passphrase, or nothing.
        try f.call("PUT", "/v1/items/\(ref)/access", json: open, headers: writer.bearer).expectError(403, -25315)
        try f.call("DELETE", "/v1/items/\(ref)/access", headers: writer.bearer).expectError(403, -25315)
        try f.call("PUT", "/v1/items/\(ref)/access", json: open, headers: reader.with(Self.passphrase))
            .expectError(403, -34018, naming: "token")
        let changed = try f.call("PUT", "/v1/items/\(ref)/access", json: open, headers: writer.with(Self.passphrase))
        #expect(changed.status == 200, "\(changed.text)")
        #expect(try Self.read(f, ref, reader.bearer).items.first?["valueData"] == "aHVudGVyMg==")
        let removed = try f.call("DELETE", "/v1/items/\(ref)/access", headers: writer.bearer)
        #expect(removed.json["access"] == .null, "\(removed.text)")
        #expect(try f.call("GET", "/v1/items/\(ref)/access").json["access"] == .null)
        #expect(try Self.read(f, ref, reader.bearer).items.first?["valueData"] == "aHVudGVyMg==")
    }

    @Test func aLockedKeychainRefusesFirstAndOtherGroupsSeeNothing() throws {
        let f = try APIFixture()
        let other = try Self.token(f, capabilities: ["read", "list"])
        let stranger = try Self.token(f, groups: ["elsewhere"], capabilities: ["read", "list", "write"])
        let ref = try Self.addGuarded(f, trusted: [])
        let missing = String(ref.dropLast(4)) + "AAAA"
        let hidden = try f.call("GET", "/v1/items/\(ref)/access", headers: stranger.bearer)
        let none = try f.call("GET", "/v1/items/\(missing)/access", headers: stranger.bearer)
        hidden.expectError(404, -25300)
        #expect(hidden.body == none.body)
        try f.call(
            "PUT", "/v1/items/\(ref)/access", json: #"{"entries":[{"authorizations":["any"],"tokens":"any"}]}"#,
            headers: stranger.with(Self.passphrase)
        ).expectError(404, -25300)
        #expect(try f.call("POST", "/v1/keychain/lock").status == 200)
        try Self.read(f, ref, other.with(Self.passphrase)).expectError(423, -25308)
    }

    @Test func badAccessObjectsAreRefusedNamingTheKey() throws {
        let f = try APIFixture()
        let cases: [(String, String)] = [
            (#"{"entries":[]}"#, "access.entries"),
            (#"{"entries":[{"authorizations":["read"],"tokens":"any"}]}"#, "access.entries[0].authorizations"),
            (#"{"entries":[{"authorizations":["decrypt"]}]}"#, "access.entries[0].tokens"),
            (#"{"entries":[{"authorizations":["decrypt"],"tokens":["someone"]}]}"#, "access.entries[0].tokens"),
            (#"{"entries":[{"authorizations":["decrypt"],"tokens":"any","prompt":"yes"}]}"#, "access.entries[0].prompt"),
            (#"{"entries":[{"authorizations":["decrypt"],"tokens":"any"}],"owner":1}"#, "access.owner"),
        ]
        for (access, key) in cases {
            try f.call(
                "POST", "/v1/items",
                json: #"{"class":"genericPassword","service":"s","account":"a","valueData":"eA==","access":\#(access)}"#
            ).expectError(400, -50, naming: key)
        }
        let ref = try f.add(service: "t")
        try f.call("PATCH", "/v1/items/\(ref)", json: #"{"access":{"entries":[{"authorizations":["any"],"tokens":"any"}]}}"#)
            .expectError(400, -50, naming: "access")
        // Nothing was added.
        try f.call("POST", "/v1/items/search", json: #"{"class":"genericPassword","service":"s"}"#).expectError(404, -25300)
    }

    @Test func aKeysAccessObjectGuardsItsUseInPlace() throws {
        let f = try APIFixture()
        let signer = try Self.token(f, capabilities: ["use"])
        let other = try Self.token(f, capabilities: ["use"])
        let access = #"{"entries":[{"authorizations":["sign"],"tokens":["\#(signer.id)"],"prompt":true}]}"#
        let made = try f.call(
            "POST", "/v1/keys", json: #"{"keyType":"ed25519","privateKeyAttrs":{"isPermanent":true,"access":\#(access)}}"#)
        let ref = try #require(made.json["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue, "\(made.text)")
        let sign = #"{"persistentRef":"\#(ref)","algorithm":"edDSASignatureMessageCurve25519SHA512","data":"eA=="}"#
        #expect(try f.call("POST", "/v1/keys/sign", json: sign, headers: signer.bearer).status == 200)
        try f.call("POST", "/v1/keys/sign", json: sign, headers: other.bearer).expectError(403, -25315)
        #expect(try f.call("POST", "/v1/keys/sign", json: sign, headers: other.with(Self.passphrase)).status == 200)
        // Its public key is no secret: copied by any token with `use`.
        #expect(try f.call("POST", "/v1/keys/public", json: #"{"persistentRef":"\#(ref)"}"#, headers: other.bearer).status == 200)
    }

    /// A wrong passphrase in the prompt is a wrong unlock: counted against the address and the
    /// keychain, the address's sixth attempt throttled, for an unlock as well.
    @Test func wrongPromptsCountAsWrongUnlocks() throws {
        let f = try APIFixture()
        let other = try Self.token(f, capabilities: ["read"])
        let ref = try Self.addGuarded(f, trusted: [])
        for _ in 1...5 { try Self.read(f, ref, other.with(Self.wrongPassphrase)).expectError(401, -25293) }
        let throttled = try Self.read(f, ref, other.with(Self.passphrase))
        throttled.expectError(429, -25293)
        #expect(throttled.header("Retry-After") != nil)
        #expect(try f.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"x"}"#, headers: []).status == 429)
        let samples = try PrometheusText(f.call("GET", "/metrics").text)
        #expect(samples.value("keychaind_unlock_failures_total", [:]) == 5)
    }

    /// A certificate's bytes leave under `export`, by a search, by match keys and as PEM.
    @Test func aCertificatesAccessObjectGuardsItsExport() throws {
        let f = try APIFixture()
        let other = try Self.token(f, capabilities: ["read", "list"])
        let ca = try TestCertificates().makeCA("guarded", subject: "/CN=Guarded CA/O=Acme")
        let access = #"{"entries":[{"authorizations":["export"],"tokens":[],"prompt":true}]}"#
        let added = try f.call(
            "POST", "/v1/items",
            json: #"{"class":"certificate","valueData":"\#(Base64.encode(ca.der))","access":\#(access)}"#)
        #expect(added.status == 201, "\(added.text)")
        let search = #"{"class":"certificate","matchSubjectContains":"Guarded","returnData":true}"#
        try f.call("POST", "/v1/items/search", json: search, headers: other.bearer).expectError(403, -25315)
        let found = try f.call("POST", "/v1/items/search", json: search, headers: other.with(Self.passphrase))
        #expect(found.items.first?["valueData"] == .string(Base64.encode(ca.der)), "\(found.text)")
        let pem = try f.call(
            "GET", "/v1/items?class=certificate", headers: other.with(Self.passphrase) + [("Accept", "application/x-pem-file")])
        #expect(pem.status == 200 && pem.text.hasPrefix("-----BEGIN CERTIFICATE-----"), "\(pem.text)")
        // Matching by subject without answering the bytes asks for nothing.
        let listed = try f.call(
            "POST", "/v1/items/search", json: #"{"class":"certificate","matchSubjectContains":"Guarded"}"#, headers: other.bearer)
        #expect(listed.status == 200, "\(listed.text)")
    }

    /// An identity's access object is on both its rows: its PKCS#12 and PEM answers and its
    /// private key's bytes ask for `export`.
    @Test func anIdentitysAccessObjectGuardsItsPKCS12AndPEM() throws {
        let f = try APIFixture()
        let other = try Self.token(f, groups: ["*"], capabilities: ["read", "list"])
        let access = #"{"entries":[{"authorizations":["export"],"tokens":[],"prompt":true}]}"#
        #expect(try IdentityRouteTests.addIdentity(f, extra: #","label":"guarded","access":\#(access)"#).status == 201)
        let p12 = [("Accept", "application/x-pkcs12"), (IdentityRouteTests.passphraseHeader, "p12 out")]
        let pem = [("Accept", "application/x-pem-file")]
        let path = "/v1/items?class=identity&label=guarded"
        try f.call("GET", path, headers: other.with(p12)).expectError(403, -25315)
        try f.call("GET", path, headers: other.with(pem)).expectError(403, -25315)
        try f.call("POST", "/v1/items/search", json: #"{"class":"key","returnData":true}"#, headers: other.bearer)
            .expectError(403, -25315)
        let exported = try f.call("GET", path, headers: other.with(p12 + Self.passphrase))
        #expect(exported.status == 200, "\(exported.text)")
        #expect(try PKCS12.parse(exported.body, password: "p12 out").key.external == IdentityRouteTests.material.leafKey)
        let answered = try f.call("GET", path, headers: other.with(pem + Self.passphrase))
        #expect(answered.status == 200 && answered.text.contains("-----BEGIN PRIVATE KEY-----"), "\(answered.text)")
    }

    /// A migration bundle carries an item's access object. Imported where its tokens exist (a
    /// restore), it trusts them still; elsewhere their ids are dropped, and the prompt stands.
    @Test func aMigrationBundleCarriesAccessObjects() throws {
        let a = try APIFixture()
        let trusted = try Self.token(a, capabilities: ["read"])
        let ref = try Self.addGuarded(a, trusted: [trusted])
        let original = try a.call("GET", "/v1/items/\(ref)/access").json["access"]
        let exported = try MigrationRouteTests.export(a)
        #expect(exported.status == 200, "\(exported.text)")

        #expect(try a.call("DELETE", "/v1/items/\(ref)", headers: a.auth + Self.passphrase).status == 200)
        let restored = MigrationRouteTests.importBundle(a, exported.body)
        #expect(restored.status == 200, "\(restored.text)")
        #expect(try a.call("GET", "/v1/items/\(ref)/access").json["access"] == original)
        #expect(try Self.read(a, ref, trusted.bearer).items.first?["valueData"] == "aHVudGVyMg==")

        let b = try APIFixture()
        let imported = MigrationRouteTests.importBundle(b, exported.body)
        #expect(imported.status == 200, "\(imported.text)")
        let entries = try b.call("GET", "/v1/items/\(ref)/access").json["access"]?.objectValue?["entries"]?.arrayValue
        #expect(entries?.count == 3)
        #expect(entries?[2].objectValue?["tokens"] == .array([]), "another instance's token ids are dropped")
        let reader = try Self.token(b, capabilities: ["read"])
        try Self.read(b, ref, reader.bearer).expectError(403, -25315)
        #expect(try Self.read(b, ref, reader.with(Self.passphrase)).items.first?["valueData"] == "aHVudGVyMg==")
    }

    /// `tokenMap=tok_old:tok_new` on import: an entry trusting the bundle's token trusts this
    /// server's instead. A map naming no token here, or one id twice, imports nothing.
    @Test func anImportMapsTokenIDsItIsGiven() throws {
        let a = try APIFixture()
        let trusted = try Self.token(a, capabilities: ["read"])
        let ref = try Self.addGuarded(a, trusted: [trusted])
        let bundle = try MigrationRouteTests.export(a).body

        let b = try APIFixture()
        let successor = try Self.token(b, capabilities: ["read"])
        let unknown = "tok_0123456789abcdef"
        let refusals: [(String, String)] = [
            ("tokenMap=\(trusted.id):\(unknown)", "is no token of this server"),
            ("tokenMap=\(trusted.id)", "expected tok_old:tok_new"),
            ("tokenMap=\(trusted.id):\(successor.id)&tokenMap=\(trusted.id):\(successor.id)", "is mapped twice"),
        ]
        for (query, message) in refusals {
            let refused = MigrationRouteTests.importBundle(b, bundle, query: query)
            refused.expectError(400, -50, naming: "tokenMap")
            #expect(refused.json["message"]?.stringValue?.contains(message) == true, "\(refused.text)")
        }
        try b.call("GET", "/v1/items/\(ref)/access").expectError(404, -25300)

        let mapped = MigrationRouteTests.importBundle(b, bundle, query: "tokenMap=\(trusted.id):\(successor.id)")
        #expect(mapped.status == 200, "\(mapped.text)")
        let entries = try b.call("GET", "/v1/items/\(ref)/access").json["access"]?.objectValue?["entries"]?.arrayValue
        #expect(entries?[2].objectValue?["tokens"] == .array([.string(successor.id)]))
        #expect(try Self.read(b, ref, successor.bearer).items.first?["valueData"] == "aHVudGVyMg==")
    }

    @Test func aRevokedTokenLeavesEveryEntry() throws {
        let f = try APIFixture()
        let kept = try Self.token(f, capabilities: ["read"])
        let revoked = try Self.token(f, capabilities: ["read"])
        let first = try Self.addGuarded(f, trusted: [kept, revoked], service: "one")
        let second = try Self.addGuarded(f, trusted: [revoked], service: "two")
        let untouched = try Self.addGuarded(f, trusted: [kept], service: "three")
        let before = try f.call("GET", "/v1/items/\(untouched)/access").json["access"]
        #expect(try f.call("DELETE", "/v1/tokens/\(revoked.id)").status == 204)
        func tokens(_ ref: String) throws -> JSON? {
            try f.call("GET", "/v1/items/\(ref)/access").json["access"]?.objectValue?["entries"]?.arrayValue?[2]
                .objectValue?["tokens"]
        }
        #expect(try tokens(first) == .array([.string(kept.id)]))
        #expect(try tokens(second) == .array([]))
        #expect(try f.call("GET", "/v1/items/\(untouched)/access").json["access"] == before)
        #expect(try Self.read(f, first, kept.bearer).items.first?["valueData"] == "aHVudGVyMg==")
    }

    /// Each key operation asks its own tag: `decrypt`, `derive`, and `encrypt` (for encrypting and
    /// verifying) on the public key's item.
    @Test func eachKeyOperationAsksItsTag() throws {
        let f = try APIFixture()
        let user = try Self.token(f, capabilities: ["use"])
        func only(_ tag: String) -> String { #"{"entries":[{"authorizations":["\#(tag)"],"tokens":"any"}]}"# }
        let made = try f.call(
            "POST", "/v1/keys",
            json: #"""
                {"keyType":"ec","privateKeyAttrs":{"isPermanent":true,"access":\#(only("derive"))},
                 "publicKeyAttrs":{"isPermanent":true,"access":\#(only("decrypt"))}}
                """#)
        let privateRef = try #require(made.json["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue, "\(made.text)")
        let publicRef = try #require(made.json["publicKeyItem"]?.objectValue?["persistentRef"]?.stringValue)
        let publicKey = try #require(made.json["publicKey"]?.stringValue)
        let ecies = "eciesEncryptionCofactorVariableIVX963SHA256AESGCM"
        // The private key derives (its entry allows it) but neither signs nor decrypts.
        let derived = try f.call(
            "POST", "/v1/keys/exchange",
            json: #"{"persistentRef":"\#(privateRef)","algorithm":"ecdhKeyExchangeStandard","peerPublicKey":"\#(publicKey)"}"#,
            headers: user.bearer)
        #expect(derived.status == 200, "\(derived.text)")
        try f.call(
            "POST", "/v1/keys/sign",
            json: #"{"persistentRef":"\#(privateRef)","algorithm":"ecdsaSignatureMessageX962SHA256","data":"eA=="}"#,
            headers: user.bearer
        ).expectError(403, -34018, naming: "access")
        // The public key's entry allows decrypt only: encrypting and verifying with it are refused.
        try f.call(
            "POST", "/v1/keys/encrypt", json: #"{"persistentRef":"\#(publicRef)","algorithm":"\#(ecies)","plaintext":"eA=="}"#,
            headers: user.bearer
        ).expectError(403, -34018, naming: "access")
        try f.call(
            "POST", "/v1/keys/verify",
            json: #"""
                {"persistentRef":"\#(publicRef)","algorithm":"ecdsaSignatureMessageX962SHA256","data":"eA==","signature":"MAA="}
                """#, headers: user.bearer
        ).expectError(403, -34018, naming: "access")
        // A ciphertext made with the key given in the request: the private key may not decrypt it.
        let sealed = try f.call(
            "POST", "/v1/keys/encrypt",
            json: #"{"publicKey":"\#(publicKey)","keyType":"ec","algorithm":"\#(ecies)","plaintext":"eA=="}"#,
            headers: user.bearer)
        let ciphertext = try #require(sealed.json["ciphertext"]?.stringValue, "\(sealed.text)")
        try f.call(
            "POST", "/v1/keys/decrypt",
            json: #"{"persistentRef":"\#(privateRef)","algorithm":"\#(ecies)","ciphertext":"\#(ciphertext)"}"#,
            headers: user.bearer
        ).expectError(403, -34018, naming: "access")
    }

    /// The standard object names no `update` or `delete`: its owner allows them, with the passphrase.
    @Test func anUpdateOrDeleteNoEntryNamesIsTheOwners() throws {
        let f = try APIFixture()
        let trusted = try Self.token(f, capabilities: ["read", "write", "delete"])
        let ref = try Self.addGuarded(f, trusted: [trusted])
        try f.call("PATCH", "/v1/items/\(ref)", json: #"{"label":"x"}"#, headers: trusted.bearer).expectError(403, -25315)
        try f.call("DELETE", "/v1/items/\(ref)", headers: trusted.bearer).expectError(403, -25315)
        let updated = try f.call("PATCH", "/v1/items/\(ref)", json: #"{"label":"x"}"#, headers: trusted.with(Self.passphrase))
        #expect(updated.status == 200, "\(updated.text)")
        #expect(try f.call("DELETE", "/v1/items/\(ref)", headers: trusted.with(Self.passphrase)).status == 200)
        try f.call("GET", "/v1/items/\(ref)").expectError(404, -25300)
    }

    /// An edit is read, changed and put back: `If-Match` with the ETag the read gave keeps a
    /// concurrent change from being lost.
    @Test func anEditNamesTheVersionItRead() throws {
        let f = try APIFixture()
        let ref = try f.add(service: "edited")
        let read = try f.call("GET", "/v1/items/\(ref)/access")
        #expect(read.header("ETag") == "\"1\"", "\(read.text)")
        let open = #"{"entries":[{"authorizations":["any"],"tokens":"any"}]}"#
        let first = try f.call("PUT", "/v1/items/\(ref)/access", json: open, headers: f.auth + [("If-Match", "\"1\"")])
        #expect(first.status == 200 && first.header("ETag") == "\"2\"", "\(first.text)")
        let closed = #"{"entries":[{"authorizations":["any"],"tokens":[]}]}"#
        try f.call("PUT", "/v1/items/\(ref)/access", json: closed, headers: f.auth + [("If-Match", "\"1\"")])
            .expectError(412, -25310, naming: "If-Match")
        #expect(
            try f.call("GET", "/v1/items/\(ref)/access").json["access"]?.objectValue?["entries"]?.arrayValue?.first?
                .objectValue?["tokens"] == .string("any"))
    }
}

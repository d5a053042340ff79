import KeychainJSON
import TestSupport
import Testing

/// Vault's KV version 2 on the API port: the shapes Vault's clients read, the mapping onto
/// generic passwords, `cas`, and Vault's errors (docs/vault-kv.md).
@Suite struct VaultKVRouteTests {
    let fixture: APIFixture
    var vaultAuth: [(String, String)] { [("X-Vault-Token", fixture.adminToken)] }

    init() throws {
        fixture = try APIFixture()
    }

    private func kv(_ method: String, _ target: String, json: String? = nil, token: String? = nil) throws -> RawResponse {
        try fixture.call(method, target, json: json, headers: [("X-Vault-Token", token ?? fixture.adminToken)])
    }

    @Test func aWriteReadsBackInVaultsShapeAndNativelyAsAGenericPassword() throws {
        let written = try kv("POST", "/v1/secret/data/app/db", json: #"{"data":{"user":"app","password":"hunter2"}}"#)
        #expect(written.status == 200, "\(written.text)")
        #expect(written.json["data"]?.objectValue?["version"] == .int(1))
        let read = try kv("GET", "/v1/secret/data/app/db")
        #expect(read.status == 200)
        let data = try #require(read.json["data"]?.objectValue)
        #expect(data["data"] == .object(["user": "app", "password": "hunter2"]))
        #expect(data["metadata"]?.objectValue?["version"] == .int(1))
        #expect(data["metadata"]?.objectValue?["destroyed"] == .bool(false))
        #expect(read.json["lease_duration"] == .int(0))
        // The same item through the native API: service = the path, account empty, group default.
        let native = try fixture.call("GET", "/v1/items?service=app/db&account=&accessGroup=default&returnData=true")
        #expect(native.status == 200)
        let secret = try #require(native.items.first?["valueData"]?.stringValue)
        #expect(try JSON.parse(try #require(Base64.decode(secret))) == .object(["user": "app", "password": "hunter2"]))
    }

    /// A KV secret's access object holds on Vault's path: a token it does not trust reads
    /// nothing, in Vault's shape, and a new version keeps the object.
    @Test func anAccessObjectHoldsOnTheKVPath() throws {
        _ = try kv("POST", "/v1/secret/data/guarded", json: #"{"data":{"password":"hunter2"}}"#)
        let found = try fixture.call("GET", "/v1/items?service=guarded&account=&accessGroup=default")
        let ref = try #require(found.items.first?["persistentRef"]?.stringValue, "\(found.text)")
        let access = #"{"entries":[{"authorizations":["decrypt","update","changeACL"],"tokens":[],"prompt":true}]}"#
        #expect(try fixture.call("PUT", "/v1/items/\(ref)/access", json: access).status == 200)
        let reader = try fixture.token(groups: ["default"], capabilities: ["read", "write", "list"])
        let refused = try kv("GET", "/v1/secret/data/guarded", token: reader)
        #expect(refused.status == 403, "\(refused.text)")
        #expect(refused.json["errors"]?.arrayValue?.isEmpty == false)
        let prompted = try fixture.call(
            "GET", "/v1/secret/data/guarded",
            headers: [("X-Vault-Token", reader), ("X-Keychain-Prompt-Passphrase", testPassphrase)])
        #expect(prompted.json["data"]?.objectValue?["data"] == .object(["password": "hunter2"]), "\(prompted.text)")
        let write = #"{"data":{"password":"rotated"}}"#
        let unwritten = try kv("POST", "/v1/secret/data/guarded", json: write, token: reader)
        #expect(unwritten.status == 403, "\(unwritten.text)")
        let written = try fixture.call(
            "POST", "/v1/secret/data/guarded", json: write,
            headers: [("X-Vault-Token", reader), ("X-Keychain-Prompt-Passphrase", testPassphrase)])
        #expect(written.status == 200, "\(written.text)")
        #expect(try kv("GET", "/v1/secret/data/guarded", token: reader).status == 403)
    }

    @Test func casWritesOnlyOverTheVersionItNames() throws {
        #expect(try kv("POST", "/v1/secret/data/c", json: #"{"data":{"a":"1"},"options":{"cas":0}}"#).status == 200)
        let again = try kv("POST", "/v1/secret/data/c", json: #"{"data":{"a":"2"},"options":{"cas":0}}"#)
        #expect(again.status == 400)
        #expect(again.json["errors"] == .array(["check-and-set parameter did not match the current version"]))
        let second = try kv("PUT", "/v1/secret/data/c", json: #"{"data":{"a":"2"},"options":{"cas":1}}"#)
        #expect(second.json["data"]?.objectValue?["version"] == .int(2))
        #expect(try kv("POST", "/v1/secret/data/c", json: #"{"data":{"a":"3"},"options":{"cas":1}}"#).status == 400)
        // Only the current version is kept: it answers by number, another is missing.
        #expect(try kv("GET", "/v1/secret/data/c?version=2").status == 200)
        #expect(try kv("GET", "/v1/secret/data/c?version=1").status == 404)
    }

    @Test func patchMergesAndNullRemoves() throws {
        _ = try kv("POST", "/v1/secret/data/p", json: #"{"data":{"keep":"k","drop":"d","nested":{"a":"1"}}}"#)
        let patched = try fixture.call(
            "PATCH", "/v1/secret/data/p", body: Array(#"{"data":{"drop":null,"nested":{"b":"2"},"new":"n"}}"#.utf8),
            contentType: "application/merge-patch+json", headers: vaultAuth)
        #expect(patched.status == 200, "\(patched.text)")
        let data = try kv("GET", "/v1/secret/data/p").json["data"]?.objectValue?["data"]
        #expect(data == .object(["keep": "k", "nested": .object(["a": "1", "b": "2"]), "new": "n"]))
        #expect(try kv("PATCH", "/v1/secret/data/missing", json: #"{"data":{"a":"1"}}"#).status == 404)
    }

    @Test func listNamesKeysAndFoldersUnderAPath() throws {
        for path in ["app/db", "app/cache", "app/sub/x", "other"] {
            _ = try kv("POST", "/v1/secret/data/\(path)", json: #"{"data":{"v":"1"}}"#)
        }
        let listed = try kv("LIST", "/v1/secret/metadata/app/")
        #expect(listed.json["data"]?.objectValue?["keys"] == .array(["cache", "db", "sub/"]))
        #expect(
            try kv("GET", "/v1/secret/metadata/app?list=true").json["data"]?.objectValue?["keys"]
                == listed.json["data"]?.objectValue?["keys"])
        #expect(try kv("LIST", "/v1/secret/metadata/").json["data"]?.objectValue?["keys"] == .array(["app/", "other"]))
        #expect(try kv("LIST", "/v1/secret/metadata/nothing/").status == 404)
    }

    @Test func metadataAndDelete() throws {
        _ = try kv("POST", "/v1/secret/data/m", json: #"{"data":{"v":"1"}}"#)
        _ = try kv("POST", "/v1/secret/data/m", json: #"{"data":{"v":"2"}}"#)
        let metadata = try kv("GET", "/v1/secret/metadata/m").json["data"]?.objectValue
        #expect(metadata?["current_version"] == .int(2))
        #expect(metadata?["versions"]?.objectValue?["2"] != nil)
        #expect(try kv("DELETE", "/v1/secret/data/m").status == 204)
        let missing = try kv("GET", "/v1/secret/data/m")
        #expect(missing.status == 404)
        #expect(missing.json["errors"] == .array([]))
        #expect(try kv("DELETE", "/v1/secret/metadata/m").status == 204)
    }

    @Test func refusalsAreVaults() throws {
        _ = try kv("POST", "/v1/secret/data/r", json: #"{"data":{"v":"1"}}"#)
        let lister = try fixture.token(groups: ["default"], capabilities: ["list"])
        let denied = try kv("GET", "/v1/secret/data/r", token: lister)
        #expect(denied.status == 403)
        #expect(denied.json["errors"] == .array(["permission denied"]))
        let invalid = try kv("GET", "/v1/secret/data/r", token: "kcd_not_a_token")
        #expect(invalid.status == 403)
        #expect(invalid.json["errors"] == .array(["permission denied"]))
        // A token of another group: the path is as missing as one never written, byte for byte.
        let other = try fixture.token(groups: ["other"], capabilities: ["read"])
        let hidden = try kv("GET", "/v1/secret/data/r", token: other)
        let never = try kv("GET", "/v1/secret/data/never-written", token: other)
        #expect(hidden.status == 404)
        #expect(hidden.body == never.body)
        let unknown = try kv("GET", "/v1/nomount/data/x")
        #expect(unknown.status == 404)
        #expect(unknown.json["errors"]?.arrayValue?.first?.stringValue?.hasPrefix("no handler for route") == true)
    }

    @Test func aLockedKeychainIsASealedVault() throws {
        _ = try fixture.call("POST", "/v1/keychain/lock")
        for (method, target) in [("GET", "/v1/secret/data/x"), ("LIST", "/v1/secret/metadata/"), ("GET", "/v1/sys/mounts")] {
            let sealed = try kv(method, target)
            #expect(sealed.status == 503)
            #expect(sealed.json == ["errors": .array(["Vault is sealed"])])
        }
    }

    @Test func mountsAndTheTokenAsVaultDescribesThem() throws {
        let mounts = try kv("GET", "/v1/sys/mounts")
        #expect(mounts.json["secret/"]?.objectValue?["type"] == "kv")
        #expect(mounts.json["data"]?.objectValue?["secret/"]?.objectValue?["options"] == .object(["version": "2"]))
        let ui = try kv("GET", "/v1/sys/internal/ui/mounts/secret/app/db")
        #expect(ui.json["data"]?.objectValue?["path"] == "secret/")
        #expect(ui.json["data"]?.objectValue?["options"] == .object(["version": "2"]))
        let me = try kv("GET", "/v1/auth/token/lookup-self")
        #expect(me.status == 200)
        // As Vault: `id` is the token presented (Vault Agent reads it there), `accessor` its id.
        let data = try #require(me.json["data"]?.objectValue)
        #expect(data["id"]?.stringValue == fixture.adminToken)
        #expect(data["accessor"]?.stringValue?.hasPrefix("tok_") == true)
        #expect(data["renewable"] == false)
        // Authorization: Bearer works as well, and the token it carries is the one answered.
        let bearer = try fixture.call("GET", "/v1/auth/token/lookup-self")
        #expect(bearer.status == 200)
        #expect(bearer.json["data"]?.objectValue?["id"]?.stringValue == fixture.adminToken)
        #expect(try fixture.call("GET", "/v1/auth/token/lookup-self", headers: [("X-Vault-Token", "kcd_unknown")]).status == 403)
    }
}

@Suite struct KVMountSettingTests {
    @Test func mountsAreOneFreeSegmentEachWithAGroup() throws {
        #expect(try APIConfiguration.kvMounts(["secret=default", "team=apps"]).get() == ["secret": "default", "team": "apps"])
        for bad in ["items=x", "sys=x", "keys=x", "keychains=x", "a/b=x", "=x", "x=", "x", "secret=a"] {
            let entries = bad == "secret=a" ? ["secret=default", bad] : [bad]
            #expect(throws: KVMountError.self, "\(bad)") { try APIConfiguration.kvMounts(entries).get() }
        }
        #expect(APIConfiguration.reservedMountNames == "items, keychain, keychains, tokens, health, events, sys, auth or keys")
    }
}

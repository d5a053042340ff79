import KeychainCore
import KeychainCrypto
import KeychainJSON
import MicroHTTP

/// Vault's KV version 2 over the keychain (docs/vault-kv.md): a path under a mount is the
/// generic password of that service, account empty, in the mount's access group; its secret
/// is the KV data object as JSON, and its version the item's (the `ETag` counter).
extension KeychainResponder {
    /// The access group a mount stands for; an unknown mount is Vault's "no handler". A token
    /// without the group reads nothing there, as if the path did not exist (404), and may write
    /// nothing (403).
    func kvGroup(_ mount: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> String {
        guard let group = kvMounts[mount] else { throw Self.noHandler(request) }
        guard token.grants(group: group) else {
            let reads = request.head.method == "GET" || request.head.method == "LIST"
            throw reads ? .itemNotFound : Keychain.lacksGroup(group)
        }
        return group
    }

    /// Vault's answer to a path under no mount.
    static func noHandler(_ request: HTTPRequest) -> KeychainError {
        .unimplemented("no handler for route \"\(request.head.rawPath.dropFirst(4).prefix(200))\". route entry not found.")
    }

    // MARK: data

    func kvData(_ mount: String, _ rawPath: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError)
        -> HTTPResponse
    {
        let group = try kvGroup(mount, request, token)
        let path = try Self.kvPath(rawPath)
        switch request.head.method {
        case "GET": return try kvRead(group, path, request, token)
        case "PATCH": return try kvPatch(group, path, request, token)
        case "DELETE": return try kvDelete(group, path, token)
        default: return try kvWrite(group, path, request, token)
        }
    }

    /// The item a KV path names: the generic password of that service, account empty, in the
    /// group; a search returns its attributes, and its secret too when `data`.
    static func kvQuery(_ group: String, _ path: String, search: Bool = true, data: Bool = false) throws(KeychainError)
        -> ItemQuery
    {
        var object: JSONObject = [
            "class": "genericPassword", "service": .string(path), "account": "", "accessGroup": .string(group),
        ]
        if search { object["returnAttributes"] = true }
        if data { object["returnData"] = true }
        return try QueryParser.parse(object)
    }

    /// The one item of a path, with its secret when `data`; errSecItemNotFound when there is none.
    func kvItem(_ group: String, _ path: String, _ token: AccessToken, data: Bool) throws(KeychainError) -> ItemResult {
        guard
            let item = try keychains.defaultKeychain(for: token).search(Self.kvQuery(group, path, data: data), token: token).first
        else {
            throw .itemNotFound
        }
        return item
    }

    private func kvRead(_ group: String, _ path: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError)
        -> HTTPResponse
    {
        let item = try kvItem(group, path, token, data: true)
        // Only the current version is kept: another is as missing as a path never written.
        if let asked = request.head.queryItems.last(where: { $0.name == "version" })?.value, asked != "0",
            Int64(asked) != item.version
        {
            throw .itemNotFound
        }
        var response = Self.vault(["data": .object(Self.kvData(item.secret ?? [])), "metadata": .object(Self.kvVersion(item))])
        response.touched = [item.ref]
        response.carriesSecret = true
        return response
    }

    /// A write: `{"data": {…}, "options": {"cas": n}}`. `cas` 0 writes only a new path, n only over
    /// version n (`If-Match`); without it, the path is created or replaced.
    private func kvWrite(_ group: String, _ path: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError)
        -> HTTPResponse
    {
        let (data, cas) = try Self.kvBody(request)
        return Self.kvStored(try kvStore(group, path, JSON.object(data).serialized(), cas: cas, token))
    }

    /// A write's answer: the version's metadata, touching the item.
    static func kvStored(_ result: ItemResult) -> HTTPResponse {
        var response = vault(.object(kvVersion(result)))
        response.touched = [result.ref]
        return response
    }

    /// Writes `secret` to the path: an add when `cas` is 0 or the path is new, else an update
    /// expecting version `cas` when given.
    private func kvStore(_ group: String, _ path: String, _ secret: [UInt8], cas: Int64?, _ token: AccessToken)
        throws(KeychainError) -> ItemResult
    {
        if cas == nil || cas == 0 {
            var add = try Self.kvQuery(group, path, search: false)
            add.valueData = secret
            do {
                return try keychains.defaultKeychain(for: token).add(add, token: token)
            } catch  where error.status == KeychainError.duplicateItem(persistentRef: nil).status {
                if cas == 0 { throw Self.casMismatch }
            }
        }
        var changes = ItemQuery()
        changes.valueData = secret
        let results: [ItemResult]
        do {
            results = try keychains.defaultKeychain(for: token).update(
                Self.kvQuery(group, path, search: false), attributesToUpdate: changes, token: token, expectedVersion: cas)
        } catch  where cas != nil && (error.status == KeychainError.itemNotFound.status || error.status == Self.wrongVersion) {
            throw Self.casMismatch
        }
        guard let result = results.first else { throw cas == nil ? .itemNotFound : Self.casMismatch }
        return result
    }

    /// `PATCH`: the data merged into the secret (RFC 7396: `null` removes a key), written over
    /// the version it was read at.
    private func kvPatch(_ group: String, _ path: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError)
        -> HTTPResponse
    {
        let (patch, cas) = try Self.kvBody(request)
        let item = try kvItem(group, path, token, data: true)
        if let cas, cas != item.version { throw Self.casMismatch }
        let merged = Self.mergePatch(Self.kvData(item.secret ?? []), patch)
        return Self.kvStored(try kvStore(group, path, JSON.object(merged).serialized(), cas: item.version, token))
    }

    /// `DELETE data/…` and `DELETE metadata/…`: the path's one version goes; 204 whether or not
    /// there was one, as Vault answers.
    func kvDelete(_ group: String, _ path: String, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        var touched: [[UInt8]] = []
        do {
            touched = try keychains.defaultKeychain(for: token).deleteItems(
                Self.kvQuery(group, path, search: false), token: token)
        } catch  where error.status == KeychainError.itemNotFound.status {}
        var response = HTTPResponse(status: 204)
        response.touched = touched
        return response
    }

    // MARK: metadata

    func kvMetadata(_ mount: String, _ rawPath: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError)
        -> HTTPResponse
    {
        let group = try kvGroup(mount, request, token)
        let path = try Self.kvPath(rawPath)
        if Route.isKVListing(request.head) { return try kvList(group, path, token) }
        if request.head.method == "DELETE" { return try kvDelete(group, path, token) }
        let item = try kvItem(group, path, token, data: false)
        let created = Self.time(item.attributes?.creationDate)
        let updated = Self.time(item.attributes?.modificationDate)
        let version: JSONObject = ["created_time": .string(updated), "deletion_time": "", "destroyed": false]
        var response = Self.vault([
            "cas_required": false, "created_time": .string(created), "current_version": .int(item.version),
            "custom_metadata": .null, "delete_version_after": "0s", "max_versions": 1, "oldest_version": .int(item.version),
            "updated_time": .string(updated),
            "versions": .object(JSONObject([(key: String(item.version), value: .object(version))])),
        ])
        response.touched = [item.ref]
        return response
    }

    /// The keys right under a folder (`a/` lists `a/b` as `b` and `a/c/d` as `c/`), sorted; 404
    /// when there is none. Reads every page of the group's passwords of empty account.
    private func kvList(_ group: String, _ folder: String, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        guard token.has(.read) || token.has(.list) else {
            throw .missingEntitlement("token: the token lacks the read or list capability")
        }
        let prefix = folder.isEmpty || folder.hasSuffix("/") ? folder : folder + "/"
        var query = try Self.kvQuery(group, "")
        query.attributes.removeAll { $0.key.name == "service" }
        query.matchLimit = .all
        var keys = Set<String>()
        while true {
            let page: SearchPage
            do { page = try keychains.defaultKeychain(for: token).searchPage(query, token: token) } catch
                where error.status == KeychainError.itemNotFound.status
            {
                break
            }
            for item in page.items {
                guard case .string(let service)? = item.attributes?.value("service"), service.utf8.starts(with: prefix.utf8),
                    service.utf8.count > prefix.utf8.count
                else { continue }
                let rest = service.utf8.dropFirst(prefix.utf8.count)
                if let slash = rest.firstIndex(of: UInt8(ascii: "/")) {
                    keys.insert(String(decoding: rest[...slash], as: UTF8.self))
                } else {
                    keys.insert(String(decoding: rest, as: UTF8.self))
                }
            }
            guard let next = page.next else { break }
            query.pageAfter = next
        }
        guard !keys.isEmpty else { throw .itemNotFound }
        return Self.vault(["keys": .array(keys.sorted().map(JSON.string))])
    }

    // MARK: discovery

    /// `GET /v1/sys/mounts`: the KV mounts of groups the token may use.
    func vaultMounts(_ token: AccessToken) -> HTTPResponse {
        var mounts = JSONObject()
        for (mount, group) in kvMounts.sorted(by: { $0.key < $1.key }) where token.grants(group: group) {
            mounts[mount + "/"] = .object(Self.mountDescription(mount))
        }
        var body = Self.envelope(.object(mounts))
        for (key, value) in mounts { body[key] = value }
        return Self.json(200, .object(body))
    }

    /// `GET /v1/sys/internal/ui/mounts/{path}`: the mount the path is under, as Vault's CLI asks
    /// for it to learn that the mount is KV version 2.
    /// Any token learns a configured mount's description (names no group), so that a client
    /// goes on to ask for the path, which answers as missing when the group is not the token's.
    func vaultMountOf(_ path: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let mount = String(path.prefix { $0 != "/" })
        guard kvMounts[mount] != nil else { throw Self.noHandler(request) }
        var description = Self.mountDescription(mount)
        description["path"] = .string(mount + "/")
        return Self.vault(.object(description))
    }

    private static func mountDescription(_ mount: String) -> JSONObject {
        [
            "type": "kv", "description": "", "accessor": .string("kv_\(mount)"),
            "options": .object(["version": "2"]), "config": .object(["default_lease_ttl": 0, "max_lease_ttl": 0]),
            "local": false, "seal_wrap": false, "external_entropy_access": false, "uuid": "", "plugin_version": "",
            "running_plugin_version": "", "deprecation_status": "supported",
        ]
    }

    /// `GET /v1/auth/token/lookup-self`: the token as Vault describes one. Its `id` is the
    /// token's id (`tok_…`), never its secret; keychaind tokens do not renew.
    /// `GET /v1/auth/token/lookup-self`: Vault's description of the caller's token. As Vault does,
    /// `id` is the token the caller presented (Vault Agent's `token_file` method takes it from
    /// there) and `accessor` its id, the name that revokes it without it.
    func vaultTokenSelf(_ request: HTTPRequest, _ token: AccessToken) -> HTTPResponse {
        let now = clock.now() / 1000
        let ttl: Int64 = token.expiresAt.map { max(0, $0 / 1000 - now) } ?? 0
        let presented = Self.presentedToken(request.head).map { String(decoding: $0, as: UTF8.self) } ?? ""
        var response = Self.vault([
            "accessor": .string(token.id), "creation_time": .int(token.createdAt / 1000), "creation_ttl": .int(ttl),
            "display_name": .string("token-\(token.name)"), "entity_id": "",
            "expire_time": token.expiresAt.map { .string(RFC3339.format(milliseconds: $0)) } ?? .null,
            "explicit_max_ttl": 0, "id": .string(presented), "meta": .null, "num_uses": 0, "orphan": true,
            "path": "auth/token/create", "policies": .array(["default"]), "renewable": false, "ttl": .int(ttl),
            "type": "service",
        ])
        // The answer holds a credential: sent only once its audit line is written.
        response.carriesSecret = true
        return response
    }

    // MARK: shapes

    /// Vault's envelope around `data`.
    static func envelope(_ data: JSON) -> JSONObject {
        [
            "request_id": .string(requestID()), "lease_id": "", "renewable": false, "lease_duration": 0, "data": data,
            "wrap_info": .null, "warnings": .null, "auth": .null,
        ]
    }

    static func vault(_ data: JSON) -> HTTPResponse { json(200, .object(envelope(data))) }

    static func vault(_ data: JSONObject) -> HTTPResponse { vault(.object(data)) }

    /// A UUID of random bytes, as Vault's request ids are.
    private static func requestID() -> String {
        var bytes = Sodium.randomBytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(
                hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)]
            )
        }
        return parts.joined(separator: "-")
    }

    /// A version's metadata: its times, and its number (the item's version).
    static func kvVersion(_ item: ItemResult) -> JSONObject {
        [
            "created_time": .string(time(item.attributes?.modificationDate)), "custom_metadata": .null, "deletion_time": "",
            "destroyed": false, "version": .int(item.version),
        ]
    }

    /// The KV data of a secret: the JSON object stored; a secret written some other way is
    /// `{"value": its text}`.
    static func kvData(_ secret: [UInt8]) -> JSONObject {
        if let object = try? JSON.parse(secret).objectValue { return object }
        return ["value": .string(String(decoding: secret, as: UTF8.self))]
    }

    /// RFC 7396: each key of `patch` replaces the target's, an object merges into an object,
    /// `null` removes the key.
    static func mergePatch(_ target: JSONObject, _ patch: JSONObject) -> JSONObject {
        var merged = target
        for (key, value) in patch {
            switch value {
            case .null: merged[key] = nil
            case .object(let inner):
                let base = merged[key]?.objectValue ?? [:]
                merged[key] = .object(mergePatch(base, inner))
            default: merged[key] = value
            }
        }
        return merged
    }

    private static func time(_ milliseconds: Int64?) -> String { RFC3339.format(milliseconds: milliseconds ?? 0) }

    /// A write's or a patch's body: `data`, an object, and `options.cas` when given (a version
    /// number, 0 for "only if new").
    private static func kvBody(_ request: HTTPRequest) throws(KeychainError) -> (data: JSONObject, cas: Int64?) {
        let body = try bodyObject(request)
        guard case .object(let data)? = body["data"] else { throw .param("data: expected a JSON object of the secret's keys") }
        return (data, try kvCAS(body))
    }

    private static func kvCAS(_ body: JSONObject) throws(KeychainError) -> Int64? {
        guard let options = body["options"], options != .null else { return nil }
        guard case .object(let object) = options else { throw .param("options: expected an object") }
        guard let cas = object["cas"], cas != .null else { return nil }
        guard let version = cas.intValue, version >= 0 else { throw .param("options.cas: expected a version number") }
        return version
    }

    /// A KV path as sent, percent-escapes decoded; leading and trailing slashes dropped.
    static func kvPath(_ raw: String) throws(KeychainError) -> String {
        var bytes: [UInt8] = []
        var input = Array(raw.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard input.count >= 2, let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16) else {
                throw .param("path: a malformed percent-escape")
            }
            bytes.append(value)
            input = input.dropFirst(2)
        }
        guard let path = String(validating: bytes, as: UTF8.self) else { throw .param("path: not UTF-8") }
        var trimmed = Substring(path)
        while trimmed.hasPrefix("/") { trimmed = trimmed.dropFirst() }
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// A `cas` that does not match: Vault's 400 and its message.
    static let casMismatch = KeychainError.param("check-and-set parameter did not match the current version")
    private static let wrongVersion = KeychainError.preconditionFailed("").status

    // MARK: errors

    /// An error answer in Vault's shape, `{"errors": […]}`, with Vault's status: 404 with no
    /// message for a missing path (and one the token may not see), 403 "permission denied" for a
    /// refused token or capability (with the message when an access object's prompt would pass),
    /// 503 "Vault is sealed" while locked, 400 with the message for
    /// a bad request or a `cas` that does not match.
    static func vaultError(_ response: HTTPResponse) -> HTTPResponse {
        // Already Vault's (sealed), or not the API's error shape: as it is.
        guard let object = (try? JSON.parse(response.body))?.objectValue, let status = object["status"]?.intValue else {
            return response
        }
        let message = object["message"]?.stringValue ?? ""
        let (code, errors): (Int, [String]) =
            switch Int32(truncatingIfNeeded: status) {
            case KeychainError.itemNotFound.status: (404, [])
            case -34018, -25293: response.status == 429 ? (429, [message]) : (403, ["permission denied"])
            // An access object's prompt: refused as Vault refuses, saying which header would do.
            case -25315: (403, [message])
            case -25308: (503, ["Vault is sealed"])
            case -25310, -25299: (400, [casMismatch.message])
            case -4: (response.status == 501 ? 404 : response.status, [message])
            case -50, -25303, -25306: (400, [message])
            case -25302: (413, [message])
            default: (response.status >= 500 ? response.status : 500, [message])
            }
        var headers = response.headers.filter { $0.name != "Content-Type" }
        headers.insert((name: "Content-Type", value: "application/json"), at: 0)
        return HTTPResponse(
            status: code, headers: headers,
            body: JSON.object(["errors": .array(errors.map(JSON.string))]).serialized())
    }

    /// The answer to every Vault route while the keychain is locked or uninitialized.
    static let sealed = HTTPResponse(
        status: 503, headers: [(name: "Content-Type", value: "application/json")],
        body: JSON.object(["errors": .array(["Vault is sealed"])]).serialized())
}

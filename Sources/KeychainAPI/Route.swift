import MicroHTTP

/// The routes of the HTTP API. The template is what logs and metrics name, never a concrete path.
enum Route: Sendable, Equatable {
    case items
    case itemsSearch
    /// `POST /v1/items/import`: certificates and keys from a PEM file or a PKCS#12.
    case itemsImport
    case item(ref: String)
    case keychain
    case lock
    case unlock
    case passphrase
    case settings
    case exportBundle
    case importBundle
    case backup
    case tokens
    case tokenSelf
    case token(id: String)
    case health
    /// `GET /metrics`, outside `/v1/` where Prometheus looks for it.
    case metrics
    /// Vault's KV version 2 (docs/vault-kv.md): `/v1/{mount}/data/{path}`, a secret.
    case kvData(mount: String, path: String)
    /// `/v1/{mount}/metadata/{path}`: a secret's metadata, or (`LIST`, `?list=true`) the keys under a folder.
    case kvMetadata(mount: String, path: String)
    /// `GET /v1/sys/mounts`: the KV mounts, as Vault lists its secrets engines.
    case vaultMounts
    /// `GET /v1/sys/internal/ui/mounts/{path}`: the mount a path is under, which Vault's CLI asks first.
    case vaultMountOf(path: String)
    /// `GET /v1/auth/token/lookup-self`: the token, as Vault describes one.
    case vaultTokenSelf
    /// `GET /v1/events`: the keychain's events, as server-sent events.
    case events
    /// `GET /v1/keychains` (the token's), `POST /v1/keychains` (SecKeychainCreate).
    case keychains
    /// `GET|DELETE /v1/keychains/{name}`: a keychain's status, or its deletion (SecKeychainDelete).
    case namedKeychain(name: String)
    /// `/v1/keychains/{name}/lock`, `…/unlock`, `…/passphrase`, `…/settings`: as `/v1/keychain/…`.
    case namedLock(name: String)
    case namedUnlock(name: String)
    case namedPassphrase(name: String)
    case namedSettings(name: String)
    /// `POST /v1/keychains/lock-all` (SecKeychainLockAll): every keychain the token may use.
    case lockAll
    /// `POST /v1/keys` (SecKeyCreateRandomKey): a key pair made, and kept.
    case keys
    /// `POST /v1/keys/{action}`: a key used in place (`KeyAction`).
    case keyAction(KeyAction)
    /// `GET|PUT|DELETE /v1/items/{ref}/access`: an item's access object (SecKeychainItemCopyAccess,
    /// SecKeychainItemSetAccess).
    case itemAccess(ref: String)
    /// `POST /v1/access`: the access object SecAccessCreate makes, for an add to carry.
    case accessCreate

    var template: String {
        switch self {
        case .items: "/v1/items"
        case .itemsSearch: "/v1/items/search"
        case .itemsImport: "/v1/items/import"
        case .item: "/v1/items/{persistentRef}"
        case .keychain: "/v1/keychain"
        case .lock: "/v1/keychain/lock"
        case .unlock: "/v1/keychain/unlock"
        case .passphrase: "/v1/keychain/passphrase"
        case .settings: "/v1/keychain/settings"
        case .exportBundle: "/v1/keychain/export"
        case .importBundle: "/v1/keychain/import"
        case .backup: "/v1/keychain/backup"
        case .tokens: "/v1/tokens"
        case .tokenSelf: "/v1/tokens/self"
        case .token: "/v1/tokens/{id}"
        case .health: "/v1/health"
        case .metrics: "/metrics"
        case .kvData: "/v1/{mount}/data/{path}"
        case .kvMetadata: "/v1/{mount}/metadata/{path}"
        case .vaultMounts: "/v1/sys/mounts"
        case .vaultMountOf: "/v1/sys/internal/ui/mounts/{path}"
        case .vaultTokenSelf: "/v1/auth/token/lookup-self"
        case .events: "/v1/events"
        case .keychains: "/v1/keychains"
        case .namedKeychain: "/v1/keychains/{name}"
        case .namedLock: "/v1/keychains/{name}/lock"
        case .namedUnlock: "/v1/keychains/{name}/unlock"
        case .namedPassphrase: "/v1/keychains/{name}/passphrase"
        case .namedSettings: "/v1/keychains/{name}/settings"
        case .lockAll: "/v1/keychains/lock-all"
        case .keys: "/v1/keys"
        case .itemAccess: "/v1/items/{persistentRef}/access"
        case .accessCreate: "/v1/access"
        case .keyAction(let action): "/v1/keys/\(action.rawValue)"
        }
    }

    /// The keychain a `/v1/keychains/{name}/…` route names.
    var keychainName: String? {
        switch self {
        case .namedKeychain(let name), .namedLock(let name), .namedUnlock(let name), .namedPassphrase(let name),
            .namedSettings(let name):
            name
        default: nil
        }
    }

    /// Whether the route is Vault's, answered and refused in Vault's shapes.
    var isVault: Bool {
        switch self {
        case .kvData, .kvMetadata, .vaultMounts, .vaultMountOf, .vaultTokenSelf: true
        default: false
        }
    }

    var methods: [String] {
        switch self {
        case .items: ["GET", "POST", "PATCH", "DELETE"]
        case .itemsSearch, .itemsImport, .lock, .unlock, .passphrase, .exportBundle, .importBundle, .backup: ["POST"]
        case .namedLock, .namedUnlock, .namedPassphrase, .lockAll, .keys, .keyAction, .accessCreate: ["POST"]
        case .itemAccess: ["GET", "PUT", "DELETE"]
        case .keychains: ["GET", "POST"]
        case .namedKeychain: ["GET", "DELETE"]
        case .namedSettings: ["GET", "PUT"]
        case .item: ["GET", "PATCH", "DELETE"]
        case .keychain, .tokenSelf, .metrics, .events: ["GET"]
        case .settings: ["GET", "PUT"]
        case .tokens: ["GET", "POST"]
        case .token: ["DELETE"]
        case .health: ["GET", "HEAD"]
        case .kvData: ["GET", "POST", "PUT", "PATCH", "DELETE"]
        case .kvMetadata: ["GET", "LIST", "DELETE"]
        case .vaultMounts, .vaultMountOf, .vaultTokenSelf: ["GET"]
        }
    }

    /// What the request does on the route, as the audit log names it: a KV listing asked with
    /// `GET ?list=true` is a listing, as `LIST` is.
    func operation(_ head: HTTPRequestHead) -> String {
        if case .kvMetadata = self, Self.isKVListing(head) { return "kvList" }
        return operation(method: head.method)
    }

    /// Whether a KV metadata request lists a folder: `LIST`, or `GET` with `list=true` (as Vault's
    /// clients send it when a proxy refuses unknown methods).
    static func isKVListing(_ head: HTTPRequestHead) -> Bool {
        head.method == "LIST" || head.method == "GET" && head.queryItems.contains { $0.name == "list" && $0.value == "true" }
    }

    /// What `method` does on the route, as the audit log names it (`add`, `search`, …).
    func operation(method: String) -> String {
        switch (self, method) {
        case (.items, "POST"): "add"
        case (.itemsImport, _): "importItems"
        case (.items, "GET"), (.itemsSearch, _), (.item, "GET"): "search"
        case (.items, "PATCH"), (.item, "PATCH"): "update"
        case (.items, "DELETE"), (.item, "DELETE"): "delete"
        case (.keychain, _), (.namedKeychain, "GET"): "status"
        case (.lock, _), (.namedLock, _): "lock"
        case (.unlock, _), (.namedUnlock, _): "unlock"
        case (.passphrase, _), (.namedPassphrase, _): "changePassphrase"
        case (.settings, "GET"), (.namedSettings, "GET"): "readSettings"
        case (.settings, _), (.namedSettings, _): "changeSettings"
        case (.keychains, "POST"): "createKeychain"
        case (.keychains, _): "listKeychains"
        case (.namedKeychain, _): "deleteKeychain"
        case (.lockAll, _): "lockAll"
        case (.exportBundle, _): "export"
        case (.importBundle, _): "import"
        case (.backup, _): "backup"
        case (.tokens, "POST"): "createToken"
        case (.tokens, _): "listTokens"
        case (.tokenSelf, _): "readOwnToken"
        case (.token, _): "revokeToken"
        case (.health, _): "health"
        case (.metrics, _): "readMetrics"
        case (.kvData, "GET"): "kvRead"
        case (.kvData, "PATCH"): "kvPatch"
        case (.kvData, "DELETE"), (.kvMetadata, "DELETE"): "kvDelete"
        case (.kvData, _): "kvWrite"
        case (.kvMetadata, "LIST"): "kvList"
        case (.kvMetadata, _): "kvReadMetadata"
        case (.vaultMounts, _), (.vaultMountOf, _): "kvMounts"
        case (.vaultTokenSelf, _): "readOwnToken"
        case (.events, _): "subscribeEvents"
        case (.keys, _): "generateKey"
        case (.keyAction(let action), _): action.operation
        case (.itemAccess, "GET"): "readAccess"
        case (.itemAccess, _): "changeAccess"
        case (.accessCreate, _): "makeAccess"
        default: "none"
        }
    }

    /// Whether the route works without a bearer token.
    var isPublic: Bool { self == .health || self == .unlock }

    /// Whether the route may read the store at length (a scrape counts the items of each
    /// class, a KV listing reads every page of a group's passwords): it runs on the worker pool,
    /// off the polling threads.
    var scansStore: Bool {
        switch self {
        case .metrics, .kvMetadata: true
        default: false
        }
    }

    /// Whether the route runs Argon2id (~0.5 s): it must run off the polling threads. A
    /// migration bundle's key is derived with Argon2id too, and its items sealed one by one.
    /// A PKCS#12's password is stretched by PBKDF2 (up to `PKCS12.maxIterations`) as well.
    /// A keychain's creation derives its first key from its passphrase.
    func runsKDF(method: String) -> Bool {
        switch self {
        case .unlock, .passphrase, .exportBundle, .importBundle, .itemsImport, .namedUnlock, .namedPassphrase: true
        case .keychains: method == "POST"
        default: false
        }
    }

    /// Whether the route's derivation is of a key its caller brings (a bundle's Argon2id, a
    /// PKCS#12's PBKDF2): it runs on the transfer worker, so that no token holder's imports and
    /// exports can fill the queue that unlocks wait in.
    var transfers: Bool { self == .exportBundle || self == .importBundle || self == .itemsImport }

    /// Whether the route copies the whole database (seconds on a large keychain): it runs on the
    /// worker pool, never on a polling thread.
    var copiesDatabase: Bool { self == .backup }

    /// Whether `method` on this route is an item search (SecItemCopyMatching) or add
    /// (SecItemAdd), which a store on a server may answer later.
    func answersLater(method: String) -> Bool {
        switch (self, method) {
        case (.items, "GET"), (.itemsSearch, "POST"), (.item, "GET"), (.items, "POST"): true
        default: false
        }
    }

    /// Whether `method` on this route is an add (SecItemAdd).
    func adds(method: String) -> Bool { self == .items && method == "POST" }

    /// Whether `method` on this route commits to the store (and so waits for an fsync).
    func writes(method: String) -> Bool {
        switch (self, method) {
        case (.items, "POST"), (.items, "PATCH"), (.items, "DELETE"), (.item, "PATCH"), (.item, "DELETE"),
            (.tokens, "POST"), (.token, _), (.settings, "PUT"), (.importBundle, _), (.itemsImport, _),
            (.kvData, "POST"), (.kvData, "PUT"), (.kvData, "PATCH"), (.kvData, "DELETE"), (.kvMetadata, "DELETE"),
            (.keychains, "POST"), (.namedKeychain, "DELETE"), (.namedSettings, "PUT"), (.keys, _), (.itemAccess, "PUT"),
            (.itemAccess, "DELETE"):
            true
        default:
            false
        }
    }

    /// Whether `method` on this route changes the keychain: a write to the store, a lock, an
    /// unlock or a passphrase change. Its answer waits for its audit line.
    func changes(method: String) -> Bool {
        // A search is most requests: told apart before any other comparison.
        guard method != "GET" else { return false }
        switch self {
        case .lock, .unlock, .passphrase, .namedLock, .namedUnlock, .namedPassphrase, .lockAll: return true
        default: return writes(method: method)
        }
    }

    /// The route for `path`, or `nil` when none has it.
    ///
    /// Paths are `/metrics`, `/v1/<collection>` or `/v1/<collection>/<one segment>`; matched on
    /// their UTF-8 bytes, since this runs on every request.
    init?(path: String) {
        var path = path
        guard let route = path.withUTF8({ Self.match($0) }) else { return nil }
        self = route
    }

    private static func match(_ path: UnsafeBufferPointer<UInt8>) -> Route? {
        guard path.starts(with: "/v1/") else { return path.equals("/metrics") ? .metrics : nil }
        let rest = path[4...]
        // The API's own routes first: the Vault paths are tried only on the paths they leave.
        return matchNative(rest) ?? matchVault(rest)
    }

    private static func matchNative(_ rest: Slice<UnsafeBufferPointer<UInt8>>) -> Route? {
        // `/v1/items/{ref}/access`: an item's access object.
        let items: StaticString = "items/"
        let access: StaticString = "/access"
        if rest.starts(with: items), rest.count > items.utf8CodeUnitCount + access.utf8CodeUnitCount,
            rest.ends(with: access)
        {
            let ref = rest.dropFirst(items.utf8CodeUnitCount).dropLast(access.utf8CodeUnitCount)
            guard !ref.contains(UInt8(ascii: "/")) else { return nil }
            return .itemAccess(ref: String(decoding: ref, as: UTF8.self))
        }
        let keychains: StaticString = "keychains/"
        if rest.starts(with: keychains) {
            let tail = rest.dropFirst(keychains.utf8CodeUnitCount)
            // `/v1/keychains/{name}/{action}`: the one route with three segments.
            if let slash = tail.firstIndex(of: UInt8(ascii: "/")) {
                let name = String(decoding: tail[..<slash], as: UTF8.self)
                let action = tail[(slash + 1)...]
                guard !name.isEmpty else { return nil }
                if action.equals("lock") { return .namedLock(name: name) }
                if action.equals("unlock") { return .namedUnlock(name: name) }
                if action.equals("passphrase") { return .namedPassphrase(name: name) }
                if action.equals("settings") { return .namedSettings(name: name) }
                return nil
            }
        }
        let first: Slice<UnsafeBufferPointer<UInt8>>
        let second: Slice<UnsafeBufferPointer<UInt8>>?
        if let slash = rest.firstIndex(of: UInt8(ascii: "/")) {
            first = rest[..<slash]
            let tail = rest[(slash + 1)...]
            guard !tail.contains(UInt8(ascii: "/")) else { return nil }
            second = tail
        } else {
            first = rest
            second = nil
        }
        if first.equals("items") {
            guard let second else { return .items }
            if second.equals("access") { return nil }
            if second.equals("search") { return .itemsSearch }
            if second.equals("import") { return .itemsImport }
            return second.isEmpty ? nil : .item(ref: String(decoding: second, as: UTF8.self))
        }
        if first.equals("keychain") {
            guard let second else { return .keychain }
            if second.equals("lock") { return .lock }
            if second.equals("unlock") { return .unlock }
            if second.equals("passphrase") { return .passphrase }
            if second.equals("settings") { return .settings }
            if second.equals("export") { return .exportBundle }
            if second.equals("import") { return .importBundle }
            if second.equals("backup") { return .backup }
            return nil
        }
        if first.equals("tokens") {
            guard let second else { return .tokens }
            if second.equals("self") { return .tokenSelf }
            return second.isEmpty ? nil : .token(id: String(decoding: second, as: UTF8.self))
        }
        if first.equals("keychains") {
            guard let second else { return .keychains }
            if second.equals("lock-all") { return .lockAll }
            return namedKeychain(second)
        }
        if first.equals("keys") {
            guard let second else { return .keys }
            return KeyAction.allCases.first { second.equals($0.rawValue) }.map { .keyAction($0) }
        }
        if first.equals("access"), second == nil { return .accessCreate }
        if first.equals("health"), second == nil { return .health }
        if first.equals("events"), second == nil { return .events }
        return nil
    }
}

extension Route {
    /// Vault's paths: `sys/mounts`, `sys/internal/ui/mounts/…`, `auth/token/lookup-self`, and
    /// `{mount}/data/…` or `{mount}/metadata/…` under any mount but the API's own collections.
    /// The path after `data/` is kept as sent, percent-escapes and all.
    fileprivate static func matchVault(_ rest: Slice<UnsafeBufferPointer<UInt8>>) -> Route? {
        if rest.equals("sys/mounts") { return .vaultMounts }
        if rest.equals("auth/token/lookup-self") { return .vaultTokenSelf }
        let uiMounts: StaticString = "sys/internal/ui/mounts/"
        if rest.starts(with: uiMounts) {
            return .vaultMountOf(path: String(decoding: rest.dropFirst(uiMounts.utf8CodeUnitCount), as: UTF8.self))
        }
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let mount = rest[..<slash]
        guard !mount.isEmpty, !reservedSegments.contains(where: { mount.equals($0) }) else { return nil }
        let tail = rest[(slash + 1)...]
        for (kind, isData) in [("data/" as StaticString, true), ("metadata/", false)] where tail.starts(with: kind) {
            let mountName = String(decoding: mount, as: UTF8.self)
            let path = String(decoding: tail.dropFirst(kind.utf8CodeUnitCount), as: UTF8.self)
            return isData ? .kvData(mount: mountName, path: path) : .kvMetadata(mount: mountName, path: path)
        }
        if tail.equals("metadata") { return .kvMetadata(mount: String(decoding: mount, as: UTF8.self), path: "") }
        return nil
    }

    /// The API's own first segments, which no mount may take.
    static let reservedSegments: [StaticString] = [
        "items", "keychain", "keychains", "tokens", "health", "events", "sys", "auth", "keys",
    ]

    /// The reserved segments, for messages: `items, keychain, … or keys`.
    static var reservedNames: String {
        let names = reservedSegments.map(\.description)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    private static func namedKeychain(_ segment: Slice<UnsafeBufferPointer<UInt8>>) -> Route? {
        segment.isEmpty ? nil : .namedKeychain(name: String(decoding: segment, as: UTF8.self))
    }
}

extension Collection<UInt8> {
    /// Whether these bytes are exactly the literal's UTF-8 bytes.
    fileprivate func equals(_ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { elementsEqual($0) }
    }

    fileprivate func equals(_ text: String) -> Bool { elementsEqual(text.utf8) }

    fileprivate func starts(with literal: StaticString) -> Bool {
        literal.withUTF8Buffer { starts(with: $0) }
    }

    fileprivate func ends(with literal: StaticString) -> Bool {
        literal.withUTF8Buffer { suffix($0.count).elementsEqual($0) }
    }
}

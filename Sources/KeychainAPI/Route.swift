/// The routes of the HTTP API. The template is what logs and metrics name, never a concrete path.
enum Route: Sendable, Equatable {
    case items
    case itemsSearch
    case item(ref: String)
    case keychain
    case lock
    case unlock
    case passphrase
    case settings
    case tokens
    case tokenSelf
    case token(id: String)
    case health

    var template: String {
        switch self {
        case .items: "/v1/items"
        case .itemsSearch: "/v1/items/search"
        case .item: "/v1/items/{persistentRef}"
        case .keychain: "/v1/keychain"
        case .lock: "/v1/keychain/lock"
        case .unlock: "/v1/keychain/unlock"
        case .passphrase: "/v1/keychain/passphrase"
        case .settings: "/v1/keychain/settings"
        case .tokens: "/v1/tokens"
        case .tokenSelf: "/v1/tokens/self"
        case .token: "/v1/tokens/{id}"
        case .health: "/v1/health"
        }
    }

    var methods: [String] {
        switch self {
        case .items: ["GET", "POST", "PATCH", "DELETE"]
        case .itemsSearch, .lock, .unlock, .passphrase: ["POST"]
        case .item: ["GET", "PATCH", "DELETE"]
        case .keychain, .tokenSelf: ["GET"]
        case .settings: ["GET", "PUT"]
        case .tokens: ["GET", "POST"]
        case .token: ["DELETE"]
        case .health: ["GET", "HEAD"]
        }
    }

    /// Whether the route works without a bearer token.
    var isPublic: Bool { self == .health || self == .unlock }

    /// Whether the route runs Argon2id (~0.5 s): it must run off the polling threads.
    var runsKDF: Bool { self == .unlock || self == .passphrase }

    /// Whether `method` on this route commits to the store (and so waits for an fsync).
    func writes(method: String) -> Bool {
        switch (self, method) {
        case (.items, "POST"), (.items, "PATCH"), (.items, "DELETE"), (.item, "PATCH"), (.item, "DELETE"),
            (.tokens, "POST"), (.token, _), (.settings, "PUT"):
            true
        default:
            false
        }
    }

    /// The route for `path`, or `nil` when none has it.
    ///
    /// Paths are `/v1/<collection>` or `/v1/<collection>/<one segment>`; matched on their UTF-8
    /// bytes, since this runs on every request.
    init?(path: String) {
        let utf8 = path.utf8
        guard utf8.starts(with: "/v1/".utf8) else { return nil }
        let rest = path[utf8.index(utf8.startIndex, offsetBy: 4)...]
        let first: Substring
        let second: Substring?
        if let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")) {
            first = rest[..<slash]
            let tail = rest[rest.utf8.index(after: slash)...]
            guard !tail.utf8.contains(UInt8(ascii: "/")) else { return nil }
            second = tail
        } else {
            first = rest
            second = nil
        }
        switch (first, second) {
        case ("items", nil): self = .items
        case ("items", "search"): self = .itemsSearch
        case ("items", let ref?) where !ref.isEmpty: self = .item(ref: String(ref))
        case ("keychain", nil): self = .keychain
        case ("keychain", "lock"): self = .lock
        case ("keychain", "unlock"): self = .unlock
        case ("keychain", "passphrase"): self = .passphrase
        case ("keychain", "settings"): self = .settings
        case ("tokens", nil): self = .tokens
        case ("tokens", "self"): self = .tokenSelf
        case ("tokens", let id?) where !id.isEmpty: self = .token(id: String(id))
        case ("health", nil): self = .health
        default: return nil
        }
    }
}

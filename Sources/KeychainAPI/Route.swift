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
    init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0].isEmpty, parts[1] == "v1" else { return nil }
        switch (parts.count, parts[2]) {
        case (3, "items"): self = .items
        case (4, "items") where parts[3] == "search": self = .itemsSearch
        case (4, "items") where !parts[3].isEmpty: self = .item(ref: String(parts[3]))
        case (3, "keychain"): self = .keychain
        case (4, "keychain"):
            switch parts[3] {
            case "lock": self = .lock
            case "unlock": self = .unlock
            case "passphrase": self = .passphrase
            case "settings": self = .settings
            default: return nil
            }
        case (3, "tokens"): self = .tokens
        case (4, "tokens") where parts[3] == "self": self = .tokenSelf
        case (4, "tokens") where !parts[3].isEmpty: self = .token(id: String(parts[3]))
        case (3, "health"): self = .health
        default: return nil
        }
    }
}

/// A bearer token's grant: who it is, which access groups and what it may do.
///
/// Immutable; a class so that handing it from the token cache to a request, and on through
/// the request, costs one reference count rather than one per field.
public final class AccessToken: Sendable, Equatable {
    /// Public id (`tok_…`): safe for logs.
    public let id: String
    public let name: String
    /// Exact group names, compared by their bytes (`ExactName`); `"*"` means every group.
    public let accessGroups: [String]
    public let capabilities: Set<Capability>
    /// The keychains the token may use, in search order (kSecMatchSearchList): the first is the
    /// default for adds; `"*"` stands for every keychain not named before it, `default` first,
    /// then by name.
    public let keychains: [String]
    /// Milliseconds since 1970; `nil` never expires.
    public let expiresAt: Int64?
    public let createdAt: Int64
    /// `capabilities` as bits.
    private let capabilityBits: UInt8
    /// Every group, through `"*"`.
    public let allGroups: Bool
    /// Every keychain, through `"*"`.
    public let allKeychains: Bool
    /// `accessGroups` for `grants(group:)`: hashed once per token, not per request.
    private let groupSet: Set<ExactName>
    /// The keyed digests of `accessGroups` as the store holds them, computed once when the
    /// token is opened (then cached with it), so a request never hashes its token's groups.
    let groupDigests: [[UInt8]]?
    /// The keychain's passphrase the request carries for access objects that ask for it; never
    /// in the token cache, only on the request's copy (`prompting(_:)`).
    public let prompt: AccessPrompt?

    /// The most groups a token may hold: every search of a token without `*` names each.
    public static let maxGroups = 256

    public convenience init(
        id: String, name: String, accessGroups: [String], keychains: [String]? = nil, capabilities: Set<Capability>,
        expiresAt: Int64?, createdAt: Int64
    ) {
        self.init(
            id: id, name: name, accessGroups: accessGroups, keychains: keychains, capabilities: capabilities,
            expiresAt: expiresAt, createdAt: createdAt, groupDigests: nil)
    }

    /// `keychains` `nil`: a token made before keychains had names, which uses `default` alone,
    /// unless it holds every group (the operator's), which uses every keychain.
    init(
        id: String, name: String, accessGroups: [String], keychains: [String]?, capabilities: Set<Capability>,
        expiresAt: Int64?, createdAt: Int64, groupDigests: [[UInt8]]?, prompt: AccessPrompt? = nil
    ) {
        self.prompt = prompt
        self.id = id
        self.name = name
        self.accessGroups = accessGroups
        let allGroups = accessGroups.contains { $0.isSameBytes(as: "*") }
        self.keychains = keychains ?? [allGroups ? "*" : KeychainName.default]
        allKeychains = self.keychains.contains { $0.isSameBytes(as: "*") }
        self.capabilities = capabilities
        self.capabilityBits = capabilities.reduce(0) { $0 | $1.bit }
        self.allGroups = allGroups
        self.groupSet = Set(accessGroups.map(ExactName.init))
        self.groupDigests = groupDigests
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }

    public static func == (lhs: AccessToken, rhs: AccessToken) -> Bool {
        lhs.id.isSameBytes(as: rhs.id) && lhs.name.isSameBytes(as: rhs.name)
            && lhs.accessGroups.map(ExactName.init) == rhs.accessGroups.map(ExactName.init)
            && lhs.keychains.map(ExactName.init) == rhs.keychains.map(ExactName.init)
            && lhs.capabilities == rhs.capabilities && lhs.expiresAt == rhs.expiresAt && lhs.createdAt == rhs.createdAt
    }

    /// This request's copy of the token, carrying `prompt`.
    public func prompting(_ prompt: AccessPrompt) -> AccessToken {
        AccessToken(
            id: id, name: name, accessGroups: accessGroups, keychains: keychains, capabilities: capabilities,
            expiresAt: expiresAt, createdAt: createdAt, groupDigests: groupDigests, prompt: prompt)
    }

    public func grants(group: String) -> Bool { allGroups || groupSet.contains(ExactName(group)) }

    /// Whether every group of `groups` is one of this token's: a token with `*` covers all,
    /// and `*` itself is covered only by `*`.
    public func covers(groups: [String]) -> Bool {
        allGroups || groups.allSatisfy { !$0.isSameBytes(as: "*") && groupSet.contains(ExactName($0)) }
    }

    public func has(_ capability: Capability) -> Bool { capabilityBits & capability.bit != 0 }

    /// Whether the token's search list names `keychain`, or holds `*`.
    public func mayUse(keychain: String) -> Bool {
        allKeychains || keychains.contains { $0.isSameBytes(as: keychain) }
    }

    /// Whether every keychain of `names` is one the token may use; `*` only through `*`.
    public func covers(keychains names: [String]) -> Bool {
        allKeychains || names.allSatisfy { !$0.isSameBytes(as: "*") && mayUse(keychain: $0) }
    }

    /// The token's search list among the keychains that exist (`existing`, `default` first then
    /// by name): each name in its order, `*` as every keychain not named before it.
    public func searchList(among existing: [String]) -> [String] {
        var list: [String] = []
        for entry in keychains {
            if entry.isSameBytes(as: "*") {
                for name in existing where !list.contains(where: { $0.isSameBytes(as: name) }) { list.append(name) }
            } else if existing.contains(where: { $0.isSameBytes(as: entry) }),
                !list.contains(where: { $0.isSameBytes(as: entry) })
            {
                list.append(entry)
            }
        }
        return list
    }

    /// The group an add goes to when it names none: the first group, or `default` for a `*` token.
    public var defaultGroup: String {
        guard let first = accessGroups.first, !first.isSameBytes(as: "*") else { return Keychain.defaultGroup }
        return first
    }
}

/// A token just created: its grant and its secret, shown this once.
public struct IssuedToken: Sendable {
    public let token: AccessToken
    /// The bearer secret. Stored nowhere: only its keyed hash is kept.
    public let secret: String
}

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
    /// Milliseconds since 1970; `nil` never expires.
    public let expiresAt: Int64?
    public let createdAt: Int64
    /// `capabilities` as bits.
    private let capabilityBits: UInt8
    /// Every group, through `"*"`.
    public let allGroups: Bool
    /// `accessGroups` for `grants(group:)`: hashed once per token, not per request.
    private let groupSet: Set<ExactName>
    /// The keyed digests of `accessGroups` as the store holds them, computed once when the
    /// token is opened (then cached with it), so a request never hashes its token's groups.
    let groupDigests: [[UInt8]]?

    /// The most groups a token may hold: every search of a token without `*` names each.
    public static let maxGroups = 256

    public convenience init(
        id: String, name: String, accessGroups: [String], capabilities: Set<Capability>, expiresAt: Int64?, createdAt: Int64
    ) {
        self.init(
            id: id, name: name, accessGroups: accessGroups, capabilities: capabilities, expiresAt: expiresAt,
            createdAt: createdAt,
            groupDigests: nil)
    }

    init(
        id: String, name: String, accessGroups: [String], capabilities: Set<Capability>, expiresAt: Int64?, createdAt: Int64,
        groupDigests: [[UInt8]]?
    ) {
        self.id = id
        self.name = name
        self.accessGroups = accessGroups
        self.capabilities = capabilities
        self.capabilityBits = capabilities.reduce(0) { $0 | $1.bit }
        self.allGroups = accessGroups.contains { $0.isSameBytes(as: "*") }
        self.groupSet = Set(accessGroups.map(ExactName.init))
        self.groupDigests = groupDigests
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }

    public static func == (lhs: AccessToken, rhs: AccessToken) -> Bool {
        lhs.id.isSameBytes(as: rhs.id) && lhs.name.isSameBytes(as: rhs.name)
            && lhs.accessGroups.map(ExactName.init) == rhs.accessGroups.map(ExactName.init)
            && lhs.capabilities == rhs.capabilities && lhs.expiresAt == rhs.expiresAt && lhs.createdAt == rhs.createdAt
    }

    public func grants(group: String) -> Bool { allGroups || groupSet.contains(ExactName(group)) }

    /// Whether every group of `groups` is one of this token's: a token with `*` covers all,
    /// and `*` itself is covered only by `*`.
    public func covers(groups: [String]) -> Bool {
        allGroups || groups.allSatisfy { !$0.isSameBytes(as: "*") && groupSet.contains(ExactName($0)) }
    }

    public func has(_ capability: Capability) -> Bool { capabilityBits & capability.bit != 0 }

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

/// What a token may do (docs/semantics.md §4).
public enum Capability: String, Sendable, CaseIterable, Comparable {
    /// Search, including secrets.
    case read
    /// Search without secrets.
    case list
    /// Add and update.
    case write
    case delete
    case lock
    /// Tokens, settings, passphrase change, migration.
    case admin
    /// `GET /metrics`, and nothing else: counts and latencies, never an item, a group or a
    /// secret. `admin` does not imply it (least privilege both ways).
    case metrics
    /// Use a key in place (sign, verify, encrypt, decrypt, derive), never read its bytes; `read`
    /// does not imply it (a key that may be read is not thereby one that may be used).
    case use

    /// Every capability's name, comma-separated, for messages and help.
    public static let names = allCases.map(\.rawValue).joined(separator: ", ")

    public static func < (lhs: Capability, rhs: Capability) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// One bit per capability, for `AccessToken.has` (a `Set` lookup would hash the raw string).
    var bit: UInt8 {
        switch self {
        case .read: 1 << 0
        case .list: 1 << 1
        case .write: 1 << 2
        case .delete: 1 << 3
        case .lock: 1 << 4
        case .admin: 1 << 5
        case .metrics: 1 << 6
        case .use: 1 << 7
        }
    }
}

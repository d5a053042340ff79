/// The JSON type of an attribute and how its values are checked and encoded.
enum AttributeType: Sendable, Equatable {
    case string
    /// Base64 in JSON.
    case bytes
    /// A four-char code: an integer 0…2³²−1, or a string of exactly four ASCII characters.
    case fourCharCode
    case bool
    case integer(ClosedRange<Int64>)
    /// One of these canonical names; `constantPrefix` + the name (any case) is accepted too.
    case enumeration([String], constantPrefix: String)
    /// Milliseconds since 1970 inside; RFC 3339 in JSON. Server-set.
    case date
}

/// One attribute of the reference's table (semantics.md §2): its names, type and classes.
///
/// Certificates and keys are rows added here, not new code paths. A class: the table's rows are
/// shared, so passing one around costs one reference count rather than one per field.
final class AttributeSpec: Sendable, Equatable {
    /// Canonical lowerCamelCase JSON name.
    let name: String
    /// Apple's four-letter name.
    let shortName: String
    let type: AttributeType
    /// Classes that have the attribute; `nil` means every class.
    let classes: Set<ItemClass>?
    /// Set by the server (dates) or derived (certificate fields): never accepted on input.
    let readOnly: Bool

    /// How a query treats the attribute: three are fields of every item, not matched by lookups.
    enum Handling: Sendable {
        case accessGroup, accessible, synchronizable, attribute
    }

    let handling: Handling

    /// `classes` as one bit per raw value (all bits for every class): `applies(to:)` runs for
    /// every attribute of every query.
    private let classBits: UInt64

    init(_ name: String, _ shortName: String, _ type: AttributeType, _ classes: Set<ItemClass>?, readOnly: Bool = false) {
        self.name = name
        self.shortName = shortName
        self.type = type
        self.classes = classes
        self.readOnly = readOnly
        self.handling =
            switch name {
            case "accessGroup": .accessGroup
            case "accessible": .accessible
            case "synchronizable": .synchronizable
            default: .attribute
            }
        self.classBits = classes?.reduce(0) { bits, itemClass in
            precondition((0..<64).contains(itemClass.rawValue), "class codes index a 64-bit mask")
            return bits | 1 << UInt64(itemClass.rawValue)
        } ?? .max
    }

    /// `kSecAttr` + the name with its first letter capitalised.
    var constantName: String { "kSecAttr" + name.prefix(1).uppercased() + name.dropFirst() }

    func applies(to itemClass: ItemClass) -> Bool { classBits & (1 << UInt64(itemClass.rawValue)) != 0 }

    static func == (lhs: AttributeSpec, rhs: AttributeSpec) -> Bool { lhs === rhs || lhs.name == rhs.name }
}

extension AttributeSpec {
    private static let passwords: Set<ItemClass> = [.genericPassword, .internetPassword]
    private static let protocols = [
        "ftp", "ftpAccount", "http", "irc", "nntp", "pop3", "smtp", "socks", "imap", "ldap", "appleTalk", "afp",
        "telnet", "ssh", "ftps", "https", "httpProxy", "httpsProxy", "ftpProxy", "smb", "rtsp", "rtspProxy", "daap",
        "eppc", "ipp", "nntps", "ldaps", "telnetS", "imaps", "ircs", "pop3S",
    ]
    private static let authenticationTypes = ["ntlm", "msn", "dpa", "rpa", "httpBasic", "httpDigest", "htmlForm", "default"]

    /// Every attribute that items carry, in output order. `accessGroup`, `accessible` and
    /// `synchronizable` are handled by the core itself but are listed for names and types.
    static let all: [AttributeSpec] = [
        AttributeSpec("accessGroup", "agrp", .string, nil),
        AttributeSpec("accessible", "pdmn", .enumeration(Protection.allCases.map(\.name), constantPrefix: "kSecAttrAccessible"), nil),
        AttributeSpec("synchronizable", "sync", .bool, nil),
        AttributeSpec("label", "labl", .string, nil),
        AttributeSpec("creationDate", "cdat", .date, nil, readOnly: true),
        AttributeSpec("modificationDate", "mdat", .date, nil, readOnly: true),
        AttributeSpec("account", "acct", .string, passwords),
        AttributeSpec("service", "svce", .string, [.genericPassword]),
        AttributeSpec("generic", "gena", .bytes, [.genericPassword]),
        AttributeSpec("description", "desc", .string, passwords),
        AttributeSpec("comment", "icmt", .string, passwords),
        AttributeSpec("creator", "crtr", .fourCharCode, [.genericPassword, .internetPassword, .key]),
        AttributeSpec("type", "type", .fourCharCode, passwords),
        AttributeSpec("isInvisible", "invi", .bool, passwords),
        AttributeSpec("isNegative", "nega", .bool, passwords),
        AttributeSpec("securityDomain", "sdmn", .string, [.internetPassword]),
        AttributeSpec("server", "srvr", .string, [.internetPassword]),
        AttributeSpec("protocol", "ptcl", .enumeration(protocols, constantPrefix: "kSecAttrProtocol"), [.internetPassword]),
        AttributeSpec(
            "authenticationType", "atyp", .enumeration(authenticationTypes, constantPrefix: "kSecAttrAuthenticationType"),
            [.internetPassword]),
        AttributeSpec("port", "port", .integer(0...65535), [.internetPassword]),
        AttributeSpec("path", "path", .string, [.internetPassword]),
    ]

    static let byName: [String: AttributeSpec] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Attributes that get lookup digests (everything stored in the sealed blob and matchable).
    var isLookup: Bool { !readOnly && handling != .accessGroup && handling != .synchronizable }
}

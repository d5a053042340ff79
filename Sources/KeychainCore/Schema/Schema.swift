/// The JSON type of a key's value: how the API checks it and how answers show it.
public enum ValueType: Sendable, Equatable {
    case string
    /// Base64 in JSON.
    case bytes
    /// A four-char code: an integer 0…2³²−1, or a string of exactly four ASCII characters.
    case fourCharCode
    case bool
    case integer(ClosedRange<Int64>)
    /// One of a set of named values (`Enumeration`).
    case enumeration(Enumeration)
    /// Milliseconds since 1970 inside; RFC 3339 in JSON.
    case date
    /// A class name (`genericPassword`, `kSecClassGenericPassword`, `genp`).
    case itemClass
    /// `one`, `all` or a positive integer.
    case matchLimit
    /// A persistent reference (22 characters).
    case persistentRef
    /// A boolean, or `any` when matching.
    case synchronizable
}

/// An attribute's named values: each taken as its canonical name, as Apple's constant
/// (`constantPrefix` + the name, any case) and as the constant's raw value (`htps`, `dflt`, `ak`),
/// everywhere a query or an attribute dictionary is read (docs/semantics.md §2).
public struct Enumeration: Sendable, Equatable {
    public struct Value: Sendable, Equatable {
        /// The canonical name: what answers show and what is stored.
        public let name: String
        /// Other accepted spellings: Apple's raw values, and constant suffixes of the same value.
        public let aliases: [String]
    }

    public let values: [Value]
    public let constantPrefix: String
    /// Whether the attribute is a FourCharCode underneath (`protocol`, `authenticationType`): an
    /// integer 0…2³²−1 or a code of four ASCII characters is taken too, a known code as its
    /// name, any other as the integer, which answers show as it is.
    public let fourCharCodes: Bool

    init(_ values: [(String, [String])], constantPrefix: String, fourCharCodes: Bool = false) {
        self.values = values.map { Value(name: $0.0, aliases: $0.1) }
        self.constantPrefix = constantPrefix
        self.fourCharCodes = fourCharCodes
    }

    /// The value `text` names, by name, constant or alias; `nil` when none.
    public func value(named text: String) -> AttributeValue? {
        if text.isEmpty { return .string("") }  // the unspecified value of an absent primary-key attribute
        let bare = (text.hasPrefix(constantPrefix) ? String(text.dropFirst(constantPrefix.count)) : text).lowercased()
        if let value = values.first(where: { value in
            value.name.lowercased() == bare || value.aliases.contains { $0 == text || $0.lowercased() == bare }
        }) {
            return .string(value.name)
        }
        if fourCharCodes, text.utf8.count == 4, text.utf8.allSatisfy({ $0 < 0x80 }) {
            return .int(text.utf8.reduce(Int64(0)) { $0 << 8 | Int64($1) })
        }
        return nil
    }

    /// The value a FourCharCode stands for: its name when a value has it as an alias, else the integer.
    public func value(code: Int64) -> AttributeValue? {
        guard fourCharCodes, (0...Int64(UInt32.max)).contains(code) else { return nil }
        let text = String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: code >> (24 - 8 * $0)) }, as: UTF8.self)
        return values.first { $0.aliases.contains(text) }.map { .string($0.name) } ?? .int(code)
    }
}

/// A set of item classes, one bit per class.
public struct ClassSet: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public init(_ itemClass: ItemClass) { rawValue = 1 << UInt32(itemClass.rawValue) }

    public static let genericPassword = ClassSet(.genericPassword)
    public static let internetPassword = ClassSet(.internetPassword)
    public static let certificate = ClassSet(.certificate)
    public static let key = ClassSet(.key)
    public static let identity = ClassSet(.identity)
    public static let passwords: ClassSet = [.genericPassword, .internetPassword]
    /// An identity has its certificate's attributes and its private key's (docs/semantics.md §2).
    public static let certificateAndIdentity: ClassSet = [.certificate, .identity]
    public static let keyAndIdentity: ClassSet = [.key, .identity]
    public static let all = ClassSet(ItemClass.allCases.map(ClassSet.init))

    public func contains(_ itemClass: ItemClass) -> Bool { contains(ClassSet(itemClass)) }
}

/// One key of a query dictionary: an attribute or a query key, with everything the keychain
/// knows of it. Rows of `Schema.keys`, the one table of names, types, classes and primary keys
/// (Apple keeps the same in `SecItemSchema.c`).
///
/// A class: the rows are shared, so passing one around costs one reference count.
public final class SchemaKey: Sendable, Hashable, CustomStringConvertible {
    /// What the key does.
    public enum Role: Sendable, Equatable {
        /// An attribute sealed with the item and matched through lookup digests.
        case attribute
        /// Attributes every item has, kept in the item's row rather than sealed.
        case accessGroup, accessible, synchronizable
        /// Set by the server on add and update.
        case creationDate, modificationDate
        case itemClass, matchLimit, matchCaseInsensitive, matchHostOrSubdomainOfHost
        /// Certificate match keys (`CertificateMatch`): they filter the opened certificates.
        case matchSubjectContains, matchSubjectStartsWith, matchSubjectEndsWith, matchSubjectWholeString
        case matchIssuers, matchEmailAddressIfPresent, matchValidOnDate
        case returnData, returnAttributes, returnPersistentRef, returnRef
        case valueData, valuePersistentRef, deleteAll, useDataProtectionKeychain
        /// An identity's certificate (DER) on add; an identity's answer to `returnData` carries it.
        case certificateData
        /// keychaind's own: the cursor of the next page of a search's answer.
        case pageAfter

        var isAttribute: Bool {
            switch self {
            case .attribute, .accessGroup, .accessible, .synchronizable, .creationDate, .modificationDate: true
            default: false
            }
        }

        /// A query option: what to return, or how to match, rather than an item's attribute,
        /// secret or ref. Its values are a small closed set (a class, a limit, a flag); a match
        /// key that carries a value to match (a host, a subject) is not one.
        var isOption: Bool {
            switch self {
            case .itemClass, .matchLimit, .matchCaseInsensitive, .returnData, .returnAttributes, .returnPersistentRef,
                .returnRef, .deleteAll, .useDataProtectionKeychain:
                true
            default: false
            }
        }
    }

    /// Who sets an attribute's value.
    public enum Access: Sendable, Equatable {
        /// The caller, on add and update.
        case writable
        /// The server (dates): never accepted on input.
        case serverSet
        /// Derived from the secret (a certificate's fields): matched, never set.
        case derived
    }

    /// Its place in `Schema.keys`.
    public let number: Int
    /// The canonical lowerCamelCase JSON name; answers use it, and lookup digests are keyed by it.
    public let name: String
    /// Apple's constant (`kSecAttrAccount`); `nil` for keychaind's own keys.
    public let constantName: String?
    /// Apple's short name (`acct`, `m_Limit`); `nil` when it has none besides `name`.
    public let shortName: String?
    public let role: Role
    public let type: ValueType
    /// The classes that have the attribute (every class for a query key).
    public let classes: ClassSet
    /// The classes whose primary key includes the attribute, in table order.
    public let primaryKeyOf: ClassSet
    public let access: Access
    /// Whether a query can match on it.
    public let searchable: Bool

    fileprivate init(_ number: Int, _ row: Schema.Row) {
        self.number = number
        name = row.name
        constantName = row.constant
        shortName = row.short
        role = row.role
        type = row.type
        classes = row.classes
        primaryKeyOf = row.primaryKeyOf
        access = row.access
        searchable = row.searchable
    }

    /// Every spelling accepted on input.
    public var spellings: [String] { [name] + [constantName, shortName].compactMap { $0 }.filter { $0 != name } }

    public var isAttribute: Bool { role.isAttribute }

    public func applies(to itemClass: ItemClass) -> Bool { classes.contains(itemClass) }

    /// What a spelling of this key names in a query of `itemClass`: of two keys sharing a
    /// spelling (Apple's `type`), the one the class has.
    public func sharingSpelling(for itemClass: ItemClass) -> SchemaKey {
        guard !applies(to: itemClass), let other = Schema.sharedSpelling[number], other.applies(to: itemClass) else {
            return self
        }
        return other
    }

    /// Whether the attribute is stored sealed and matched through a lookup digest.
    var isLookup: Bool { (role == .attribute || role == .accessible) && searchable }

    public var description: String { name }

    public static func == (lhs: SchemaKey, rhs: SchemaKey) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(number) }
}

/// The table of every attribute and query key (docs/semantics.md §2 and §3).
public enum Schema {
    /// One row as written below.
    fileprivate struct Row {
        var name: String
        var constant: String?
        var short: String?
        var role: SchemaKey.Role
        var type: ValueType
        var classes: ClassSet
        var primaryKeyOf: ClassSet = []
        var access: SchemaKey.Access = .writable
        var searchable: Bool

        /// An attribute: constant `kSecAttr` + the name capitalised.
        static func attribute(
            _ name: String, _ short: String, _ type: ValueType, _ classes: ClassSet, primaryKeyOf: ClassSet = [],
            access: SchemaKey.Access = .writable, role: SchemaKey.Role = .attribute
        ) -> Row {
            Row(
                name: name, constant: "kSecAttr" + name.prefix(1).uppercased() + name.dropFirst(), short: short, role: role,
                type: type, classes: classes, primaryKeyOf: primaryKeyOf, access: access,
                searchable: access != .serverSet && role != .accessGroup && role != .synchronizable)
        }

        static func query(
            _ name: String, _ constant: String?, _ short: String?, _ role: SchemaKey.Role, _ type: ValueType
        ) -> Row {
            Row(name: name, constant: constant, short: short, role: role, type: type, classes: .all, searchable: false)
        }
    }

    /// `kSecAttrProtocol…` and their raw values (SecItem.h).
    private static let protocols = Enumeration(
        [
            ("ftp", ["ftp "]), ("ftpAccount", ["ftpa"]), ("http", ["http"]), ("irc", ["irc "]), ("nntp", ["nntp"]),
            ("pop3", ["pop3"]), ("smtp", ["smtp"]), ("socks", ["sox "]), ("imap", ["imap"]), ("ldap", ["ldap"]),
            ("appleTalk", ["atlk"]), ("afp", ["afp "]), ("telnet", ["teln"]), ("ssh", ["ssh "]), ("ftps", ["ftps"]),
            ("https", ["htps"]), ("httpProxy", ["htpx"]), ("httpsProxy", ["htsx"]), ("ftpProxy", ["ftpx"]), ("smb", ["smb "]),
            ("rtsp", ["rtsp"]), ("rtspProxy", ["rtsx"]), ("daap", ["daap"]), ("eppc", ["eppc"]), ("ipp", ["ipp "]),
            ("nntps", ["ntps"]), ("ldaps", ["ldps"]), ("telnetS", ["tels"]), ("imaps", ["imps"]), ("ircs", ["ircs"]),
            ("pop3S", ["pops"]),
        ], constantPrefix: "kSecAttrProtocol", fourCharCodes: true)
    /// `kSecAttrAuthenticationType…` and their raw values (SecItem.h).
    private static let authenticationTypes = Enumeration(
        [
            ("ntlm", ["ntlm"]), ("msn", ["msna"]), ("dpa", ["dpaa"]), ("rpa", ["rpaa"]), ("httpBasic", ["http"]),
            ("httpDigest", ["httd"]), ("htmlForm", ["form"]), ("default", ["dflt"]),
        ], constantPrefix: "kSecAttrAuthenticationType", fourCharCodes: true)
    private static let uint32 = ValueType.integer(0...Int64(UInt32.max))

    /// The table. A class's primary key is its attributes marked `primaryKeyOf` it, in this
    /// order: the order their values enter the primary-key digest, so rows that are part of a
    /// primary key never move (`SchemaTests` pins each class's key).
    private static let rows: [Row] = [
        .query("class", "kSecClass", nil, .itemClass, .itemClass),
        .query("matchLimit", "kSecMatchLimit", "m_Limit", .matchLimit, .matchLimit),
        .query("matchCaseInsensitive", "kSecMatchCaseInsensitive", "m_CaseInsensitive", .matchCaseInsensitive, .bool),
        .query(
            "matchHostOrSubdomainOfHost", "kSecMatchHostOrSubdomainOfHost", "m_HostOrSubdomainOfHost",
            .matchHostOrSubdomainOfHost, .string),
        .query("matchSubjectContains", "kSecMatchSubjectContains", "m_SubjectContains", .matchSubjectContains, .string),
        .query("matchSubjectStartsWith", "kSecMatchSubjectStartsWith", "m_SubjectStartsWith", .matchSubjectStartsWith, .string),
        .query("matchSubjectEndsWith", "kSecMatchSubjectEndsWith", "m_SubjectEndsWith", .matchSubjectEndsWith, .string),
        .query(
            "matchSubjectWholeString", "kSecMatchSubjectWholeString", "m_SubjectWholeString", .matchSubjectWholeString, .string),
        .query("matchIssuers", "kSecMatchIssuers", "m_Issuers", .matchIssuers, .bytes),
        .query(
            "matchEmailAddressIfPresent", "kSecMatchEmailAddressIfPresent", "m_EmailAddressIfPresent",
            .matchEmailAddressIfPresent, .string),
        .query("matchValidOnDate", "kSecMatchValidOnDate", "m_ValidOnDate", .matchValidOnDate, .date),
        .query("returnData", "kSecReturnData", "r_Data", .returnData, .bool),
        .query("returnAttributes", "kSecReturnAttributes", "r_Attributes", .returnAttributes, .bool),
        .query("returnPersistentRef", "kSecReturnPersistentRef", "r_PersistentRef", .returnPersistentRef, .bool),
        .query("returnRef", "kSecReturnRef", "r_Ref", .returnRef, .bool),
        .query("valueData", "kSecValueData", "v_Data", .valueData, .bytes),
        .query("valuePersistentRef", "kSecValuePersistentRef", "v_PersistentRef", .valuePersistentRef, .persistentRef),
        .query("certificateData", "kSecAttrIdentityCertificateData", "certdata", .certificateData, .bytes),
        .query("deleteAll", nil, nil, .deleteAll, .bool),
        .query("pageAfter", nil, nil, .pageAfter, .string),
        .query(
            "useDataProtectionKeychain", "kSecUseDataProtectionKeychain", "u_DataProtectionKeychain",
            .useDataProtectionKeychain, .bool),

        // Every class.
        .attribute("accessGroup", "agrp", .string, .all, role: .accessGroup),
        .attribute(
            "accessible", "pdmn",
            .enumeration(
                Enumeration(Protection.allCases.map { ($0.name, [$0.shortName]) }, constantPrefix: "kSecAttrAccessible")),
            .all, role: .accessible),
        .attribute("synchronizable", "sync", .synchronizable, .all, role: .synchronizable),
        .attribute("label", "labl", .string, .all),
        .attribute("creationDate", "cdat", .date, .all, access: .serverSet, role: .creationDate),
        .attribute("modificationDate", "mdat", .date, .all, access: .serverSet, role: .modificationDate),

        // Passwords.
        .attribute("account", "acct", .string, .passwords, primaryKeyOf: .passwords),
        .attribute("service", "svce", .string, .genericPassword, primaryKeyOf: .genericPassword),
        .attribute("generic", "gena", .bytes, .genericPassword),
        .attribute("description", "desc", .string, .passwords),
        .attribute("comment", "icmt", .string, .passwords),
        .attribute("type", "type", .fourCharCode, .passwords),
        .attribute("isInvisible", "invi", .bool, .passwords),
        .attribute("isNegative", "nega", .bool, .passwords),
        .attribute("securityDomain", "sdmn", .string, .internetPassword, primaryKeyOf: .internetPassword),
        .attribute("server", "srvr", .string, .internetPassword, primaryKeyOf: .internetPassword),
        .attribute(
            "protocol", "ptcl", .enumeration(protocols), .internetPassword,
            primaryKeyOf: .internetPassword),
        .attribute(
            "authenticationType", "atyp", .enumeration(authenticationTypes),
            .internetPassword, primaryKeyOf: .internetPassword),
        .attribute("port", "port", .integer(0...65535), .internetPassword, primaryKeyOf: .internetPassword),
        .attribute("path", "path", .string, .internetPassword, primaryKeyOf: .internetPassword),

        // Certificates: every field is derived from the DER certificate in valueData.
        .attribute("certificateType", "ctyp", uint32, .certificateAndIdentity, primaryKeyOf: .certificate, access: .derived),
        .attribute("certificateEncoding", "cenc", uint32, .certificateAndIdentity, access: .derived),
        .attribute("subject", "subj", .bytes, .certificateAndIdentity, access: .derived),
        .attribute("issuer", "issr", .bytes, .certificateAndIdentity, primaryKeyOf: .certificate, access: .derived),
        .attribute("serialNumber", "slnr", .bytes, .certificateAndIdentity, primaryKeyOf: .certificate, access: .derived),
        .attribute("subjectKeyID", "skid", .bytes, .certificateAndIdentity, access: .derived),
        .attribute("publicKeyHash", "pkhh", .bytes, .certificateAndIdentity, access: .derived),

        // Keys. `keyType` shares Apple's short name `type` with `type` (the same column there).
        .attribute(
            "keyClass", "kcls",
            .enumeration(
                Enumeration([("public", ["0"]), ("private", ["1"]), ("symmetric", ["2"])], constantPrefix: "kSecAttrKeyClass")),
            .keyAndIdentity,
            primaryKeyOf: .key),
        .attribute("applicationLabel", "klbl", .bytes, .keyAndIdentity, primaryKeyOf: .key),
        .attribute("applicationTag", "atag", .bytes, .keyAndIdentity, primaryKeyOf: .key),
        .attribute(
            "keyType", "type",
            .enumeration(
                Enumeration(
                    [
                        ("rsa", ["42"]), ("ec", ["73", "ECSECPrimeRandom"]), ("ed25519", []), ("x25519", []),
                        ("aes", ["2147483649"]),
                    ],
                    constantPrefix: "kSecAttrKeyType")),
            .keyAndIdentity,
            primaryKeyOf: .key),
        .attribute("keySizeInBits", "bsiz", uint32, .keyAndIdentity, primaryKeyOf: .key),
        .attribute("effectiveKeySize", "esiz", uint32, .keyAndIdentity, primaryKeyOf: .key),
        .attribute("creator", "crtr", .fourCharCode, [.passwords, .keyAndIdentity], primaryKeyOf: .key),
        .attribute("startDate", "sdat", .date, .keyAndIdentity, primaryKeyOf: .key, access: .serverSet),
        .attribute("endDate", "edat", .date, .keyAndIdentity, primaryKeyOf: .key, access: .serverSet),
        .attribute("isPermanent", "perm", .bool, .keyAndIdentity),
        .attribute("canEncrypt", "encr", .bool, .keyAndIdentity),
        .attribute("canDecrypt", "decr", .bool, .keyAndIdentity),
        .attribute("canDerive", "drve", .bool, .keyAndIdentity),
        .attribute("canSign", "sign", .bool, .keyAndIdentity),
        .attribute("canVerify", "vrfy", .bool, .keyAndIdentity),
        .attribute("canWrap", "wrap", .bool, .keyAndIdentity),
        .attribute("canUnwrap", "unwp", .bool, .keyAndIdentity),
        .attribute("isExtractable", "extr", .bool, .keyAndIdentity),
        .attribute("isSensitive", "sens", .bool, .keyAndIdentity),
    ]

    /// Every key, numbered by position.
    public static let keys: [SchemaKey] = rows.enumerated().map { SchemaKey($0.offset, $0.element) }

    /// The attributes, in table order.
    public static let attributes: [SchemaKey] = keys.filter(\.isAttribute)

    /// The key named `name`, by its canonical name only.
    public static func key(canonical name: String) -> SchemaKey? { byName[name] }

    private static let byName = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) })

    /// The key a query dictionary's `spelling` names (canonical, constant or short name), for
    /// a query of `itemClass` when known: of two keys sharing a spelling, the one the class has.
    public static func key(named spelling: String, for itemClass: ItemClass? = nil) -> SchemaKey? {
        guard let number = spellings[spelling] else { return nil }
        let key = keys[Int(number)]
        return itemClass.map { key.sharingSpelling(for: $0) } ?? key
    }

    /// Whether `spelling` names a query option (`Role.isOption`: `class`, `kSecMatchLimit`,
    /// `r_Data`, …) and no attribute: the audit log writes such a key's value in clear. One
    /// lookup in a table of the options' spellings alone, and none for a name whose first byte
    /// begins no option's spelling (`service`, `account`: most of a query's names).
    public static func isOption(named spelling: String) -> Bool {
        guard let first = spelling.utf8.first, optionSpellings.firstBytes.contains(first) else { return false }
        return optionSpellings.table[spelling] != nil
    }

    private static let optionSpellings: (table: NameTable, firstBytes: ASCIISet) = {
        let attributeSpellings = Set(attributes.flatMap(\.spellings))
        var seen = Set<String>()
        var entries: [(name: String, value: Int32)] = []
        var firstBytes = ASCIISet()
        for key in keys where key.role.isOption {
            for spelling in key.spellings where !attributeSpellings.contains(spelling) && seen.insert(spelling).inserted {
                entries.append((spelling, Int32(key.number)))
                if let first = spelling.utf8.first { firstBytes.insert(first) }
            }
        }
        return (NameTable(entries), firstBytes)
    }()

    /// Every spelling → the number of the first key with it: one lookup per query key.
    private static let spellings: NameTable = {
        var seen: [String: Int] = [:]
        for key in keys {
            for spelling in key.spellings where seen[spelling] == nil { seen[spelling] = key.number }
        }
        return NameTable(seen.map { (name: $0.key, value: Int32($0.value)) })
    }()

    /// A key whose spelling an earlier key already has → that earlier key's number maps to it.
    fileprivate static let sharedSpelling: [Int: SchemaKey] = {
        var first: [String: SchemaKey] = [:]
        var shared: [Int: SchemaKey] = [:]
        for key in keys {
            for spelling in key.spellings {
                if let earlier = first[spelling] { shared[earlier.number] = key } else { first[spelling] = key }
            }
        }
        return shared
    }()

    /// A class's primary-key attributes, besides `accessGroup` and `synchronizable`, in digest order.
    static func primaryKey(of itemClass: ItemClass) -> [SchemaKey] { primaryKeys[itemClass.rawValue] }

    private static let primaryKeys: [[SchemaKey]] = {
        var table = [[SchemaKey]](repeating: [], count: (ItemClass.allCases.map(\.rawValue).max() ?? 0) + 1)
        for itemClass in ItemClass.allCases {
            table[itemClass.rawValue] = attributes.filter { $0.primaryKeyOf.contains(itemClass) }
        }
        return table
    }()

    /// What is wrong with the table, if anything: checked when a keychain opens, and by a test.
    public static func problems() -> [String] {
        var problems: [String] = []
        var owners: [String: [SchemaKey]] = [:]
        for key in keys {
            for spelling in key.spellings { owners[spelling, default: []].append(key) }
            if !key.primaryKeyOf.isSubset(of: key.classes) {
                problems.append("\(key.name): in the primary key of a class that lacks it")
            }
            if !key.primaryKeyOf.isEmpty, key.role != .attribute {
                problems.append("\(key.name): a primary-key attribute must be an ordinary attribute")
            }
            if case .enumeration(let enumeration) = key.type {
                // No spelling may name two values.
                let spellings = enumeration.values.flatMap { Set([$0.name] + $0.aliases).map { $0.lowercased() } }
                if enumeration.values.isEmpty || Set(spellings).count != spellings.count {
                    problems.append("\(key.name): a spelling names two values")
                }
            }
        }
        for (spelling, sharing) in owners where sharing.count > 1 {
            // Two keys may share a spelling only when no class has both (Apple's `type`).
            if sharing.count > 2 || !sharing[0].classes.intersection(sharing[1].classes).isEmpty {
                problems.append("\(spelling): names \(sharing.map(\.name)) in one class")
            }
        }
        for itemClass in ItemClass.allCases where itemClass != .identity && primaryKey(of: itemClass).isEmpty {
            problems.append("\(itemClass.name): no primary key")
        }
        return problems
    }
}

/// A set of ASCII bytes in two words: a byte's membership in a few instructions.
struct ASCIISet: Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// `byte` must be ASCII (below 0x80).
    mutating func insert(_ byte: UInt8) {
        precondition(byte < 0x80, "ASCIISet: not an ASCII byte")
        if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
    }

    /// `false` for any byte not inserted, a byte beyond ASCII among them.
    func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
    }
}

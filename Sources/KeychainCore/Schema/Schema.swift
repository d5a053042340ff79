/// The table of every attribute and query key (docs/semantics.md §2 and §3).
public enum Schema {
    /// One row as written below.
    struct Row {
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
        .query("useKeychain", "kSecUseKeychain", "u_Keychain", .useKeychain, .keychainNames),
        .query("matchSearchList", "kSecMatchSearchList", "m_SearchList", .matchSearchList, .keychainNames),
        .query("access", "kSecAttrAccess", "acls", .access, .accessObject),
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
    static let sharedSpelling: [Int: SchemaKey] = {
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

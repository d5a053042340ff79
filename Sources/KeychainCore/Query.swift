/// How many items a search returns (`kSecMatchLimit`).
enum MatchLimit: Sendable, Equatable {
    case one
    case all
    case count(Int)

    var sqlLimit: Int? {
        switch self {
        case .one: 1
        case .all: nil
        case .count(let n): n
        }
    }
}

/// Where a query dictionary is used: each place allows different keys (semantics.md §3).
enum QueryRole: Sendable {
    case add, search, updateQuery, attributesToUpdate, delete
}

/// A checked query dictionary: attributes plus the non-attribute keys.
struct Query: Sendable {
    var itemClass: ItemClass?
    /// Attributes other than accessGroup, accessible and synchronizable, in input order.
    var attributes: [(spec: AttributeSpec, value: AttributeValue)] = []
    var accessGroup: String?
    var accessible: Protection?
    /// `nil` when not given; `.some(nil)` never: "any" sets `synchronizableAny`.
    var synchronizable: Bool?
    var synchronizableAny = false
    var matchLimit: MatchLimit?
    var caseInsensitive = false
    var returnData = false
    var returnAttributes = false
    var returnPersistentRef = false
    var valueData: [UInt8]?
    var persistentRef: [UInt8]?
    var deleteAll = false

    var hasReturnKey: Bool { returnData || returnAttributes || returnPersistentRef }

    /// Whether the query names any attribute at all (a delete without one needs `deleteAll`).
    var namesAttribute: Bool {
        !attributes.isEmpty || accessGroup != nil || accessible != nil || synchronizable != nil || persistentRef != nil
    }
}

/// The non-attribute keys and their accepted spellings.
private enum QueryKey: String, CaseIterable {
    case itemClass = "class"
    case matchLimit, matchCaseInsensitive, returnData, returnAttributes, returnPersistentRef, returnRef
    case valueData, valuePersistentRef, deleteAll, useDataProtectionKeychain

    var aliases: [String] {
        switch self {
        case .itemClass: ["class", "kSecClass"]
        case .matchLimit: ["matchLimit", "kSecMatchLimit", "m_Limit"]
        case .matchCaseInsensitive: ["matchCaseInsensitive", "kSecMatchCaseInsensitive", "m_CaseInsensitive"]
        case .returnData: ["returnData", "kSecReturnData", "r_Data"]
        case .returnAttributes: ["returnAttributes", "kSecReturnAttributes", "r_Attributes"]
        case .returnPersistentRef: ["returnPersistentRef", "kSecReturnPersistentRef", "r_PersistentRef"]
        case .returnRef: ["returnRef", "kSecReturnRef", "r_Ref"]
        case .valueData: ["valueData", "kSecValueData", "v_Data"]
        case .valuePersistentRef: ["valuePersistentRef", "kSecValuePersistentRef", "v_PersistentRef"]
        case .deleteAll: ["deleteAll"]
        case .useDataProtectionKeychain: ["useDataProtectionKeychain", "kSecUseDataProtectionKeychain", "u_DataProtectionKeychain"]
        }
    }

    var isMatchKey: Bool { self == .matchLimit || self == .matchCaseInsensitive }
    var isReturnKey: Bool { self == .returnData || self == .returnAttributes || self == .returnPersistentRef || self == .returnRef }
}

/// What a query dictionary's key names: a query key or an attribute, whatever its spelling.
private enum QueryName: Equatable {
    case query(QueryKey)
    case attribute(AttributeSpec)

    /// Every name, numbered by position: the query keys, then the attributes.
    static let all: [QueryName] = QueryKey.allCases.map { .query($0) } + AttributeSpec.all.map { .attribute($0) }

    static let classNumber = UInt8(QueryKey.allCases.firstIndex(of: .itemClass)!)

    /// Every accepted spelling of every name → its number in `all`, in one table: one lookup per key.
    static let numbers: NameTable = {
        precondition(all.count <= 64, "a query's names are tracked in a 64-bit mask")
        var numbers: [String: UInt8] = [:]
        for (number, name) in all.enumerated() {
            let spellings =
                switch name {
                case .query(let key): key.aliases
                case .attribute(let spec): [spec.name, spec.constantName, spec.shortName]
                }
            for spelling in spellings {
                precondition(numbers[spelling, default: UInt8(number)] == UInt8(number), "\(spelling) names two things")
                numbers[spelling] = UInt8(number)
            }
        }
        return NameTable(numbers.map { (name: $0.key, value: $0.value) })
    }()
}

extension Query {
    /// Checks `object` for `role`. `lenient` (URL parameters) accepts strings for booleans and numbers.
    static func parse(_ object: JSONObject, role: QueryRole, lenient: Bool = false) throws(KeychainError) -> Query {
        var query = Query()
        let entries = object.entries
        // Each key resolved once, in order, to its name's number; a name given twice (in any
        // spelling) is refused. Every entry kept has a number of its own, below 64, so at most
        // 64 are kept and the numbers fit inline, without an allocation.
        var numbers = InlineArray<64, UInt8>(repeating: 0)
        var seen: UInt64 = 0
        var classEntry: Int?
        for n in entries.indices {
            let key = entries[n].key
            guard let number = QueryName.numbers[key] else { throw .param("\(key): unknown key") }
            guard seen & 1 << number == 0 else {
                let previous = entries[..<n].first { QueryName.numbers[$0.key] == number }?.key ?? key
                throw .param("\(key): given twice (also as \(previous))")
            }
            seen |= 1 << number
            numbers[n] = number
            if number == QueryName.classNumber { classEntry = n }
        }
        // The class first: attribute checks depend on it.
        if let n = classEntry {
            try query.parseClass(entries[n].value, key: entries[n].key, role: role)
        }
        for n in entries.indices {
            switch QueryName.all[Int(numbers[n])] {
            case .query(let queryKey):
                try query.parse(queryKey, entries[n].value, key: entries[n].key, role: role, lenient: lenient)
            case .attribute(let spec):
                if query.attributes.isEmpty { query.attributes.reserveCapacity(entries.count - n) }
                try query.parseAttribute(spec, entries[n].value, key: entries[n].key, role: role, lenient: lenient)
            }
        }
        try query.validate(role: role)
        return query
    }

    private mutating func parseClass(_ value: JSON, key: String, role: QueryRole) throws(KeychainError) {
        guard role != .attributesToUpdate else { throw .param("\(key): the class cannot be changed by an update") }
        guard case .string(let name) = value else { throw .param("\(key): expected a string, got \(value.typeName)") }
        guard let itemClass = ItemClass.named(name) else { throw .noSuchClass("\(key): unknown class \"\(name)\"") }
        guard itemClass.isSupported else { throw .unimplemented("\(key): class \(itemClass.name) is not supported yet") }
        self.itemClass = itemClass
    }

    private mutating func parse(_ queryKey: QueryKey, _ value: JSON, key: String, role: QueryRole, lenient: Bool) throws(KeychainError) {
        func bool() throws(KeychainError) -> Bool {
            if case .bool(let b) = value { return b }
            if lenient, case .string(let s) = value, let b = Bool(s) { return b }
            throw .param("\(key): expected a boolean, got \(value.typeName)")
        }
        if queryKey.isMatchKey, role != .search {
            throw .param("\(key): match keys are allowed only in a search")
        }
        if queryKey.isReturnKey, role != .search, role != .add {
            throw .param("\(key): return keys are allowed only in a search or an add")
        }
        switch queryKey {
        case .itemClass:
            break
        case .useDataProtectionKeychain:
            _ = try bool()
        case .matchLimit:
            query: do {
                if case .string(let s) = value {
                    switch s {
                    case "one", "kSecMatchLimitOne", "m_LimitOne": matchLimit = .one; break query
                    case "all", "kSecMatchLimitAll", "m_LimitAll": matchLimit = .all; break query
                    default: if lenient, let n = Int(s), n > 0 { matchLimit = .count(n); break query }
                    }
                } else if let n = value.intValue, n > 0, n <= Int64(Int32.max) {
                    matchLimit = .count(Int(n))
                    break query
                }
                throw .param("\(key): expected \"one\", \"all\" or a positive integer")
            }
        case .matchCaseInsensitive: caseInsensitive = try bool()
        case .returnData: returnData = try bool()
        case .returnAttributes: returnAttributes = try bool()
        case .returnPersistentRef: returnPersistentRef = try bool()
        case .returnRef:
            throw .param("\(key): item references do not exist over HTTP; use returnPersistentRef")
        case .valueData:
            guard role == .add || role == .attributesToUpdate else {
                throw .param("\(key): allowed only in an add or in attributesToUpdate")
            }
            guard case .string(let s) = value, let bytes = Base64.decode(s) else {
                throw .param("\(key): expected base64 bytes in a string")
            }
            valueData = bytes
        case .valuePersistentRef:
            guard role == .search || role == .updateQuery || role == .delete else {
                throw .param("\(key): allowed only in a search, an update query or a delete")
            }
            guard case .string(let s) = value, let ref = PersistentRef.decode(s) else {
                throw .param("\(key): not a persistent reference")
            }
            persistentRef = ref
        case .deleteAll:
            guard role == .delete else { throw .param("\(key): allowed only in a delete") }
            deleteAll = try bool()
        }
    }

    private mutating func parseAttribute(_ spec: AttributeSpec, _ value: JSON, key: String, role: QueryRole, lenient: Bool) throws(KeychainError) {
        if let itemClass, !spec.applies(to: itemClass) {
            throw .noSuchAttr(key, "class \(itemClass.name) has no such attribute")
        }
        if spec.readOnly { throw .param("\(key): set by the server, read-only") }
        switch spec.handling {
        case .accessGroup:
            guard case .string(let group) = value, !group.isEmpty else { throw .param("\(key): expected a non-empty string") }
            accessGroup = group
        case .accessible:
            guard case .string(let name) = value, let protection = Protection.named(name) else {
                throw .param("\(key): expected one of \(Protection.allCases.map(\.name).joined(separator: ", "))")
            }
            accessible = protection
        case .synchronizable:
            if case .string(let s) = value, s == "any" || s == "kSecAttrSynchronizableAny" || s == "syna" {
                guard role == .search || role == .updateQuery || role == .delete else {
                    throw .param("\(key): \"any\" is allowed only when matching")
                }
                synchronizableAny = true
            } else if case .bool(let b) = try AttributeValue.parse(value, as: spec, key: key, lenient: lenient) {
                synchronizable = b
            }
        case .attribute:
            attributes.append((spec, try AttributeValue.parse(value, as: spec, key: key, lenient: lenient)))
        }
    }

    private func validate(role: QueryRole) throws(KeychainError) {
        if role == .add, itemClass == nil { throw .param("class: required on add") }
        if persistentRef != nil, namesAttributeBesidesRef {
            throw .param("valuePersistentRef: cannot be combined with other attributes")
        }
        if synchronizable == true, let accessible, accessible.isThisDeviceOnly {
            throw .param("accessible: a synchronizable item cannot use \(accessible.name)")
        }
        if role != .add, itemClass == nil, !attributes.isEmpty {
            // Without a class, an attribute must belong to some supported class.
            for (spec, _) in attributes where !ItemClass.supported.contains(where: spec.applies(to:)) {
                throw .noSuchAttr(spec.name, "no supported class has this attribute")
            }
        }
    }

    private var namesAttributeBesidesRef: Bool {
        !attributes.isEmpty || accessGroup != nil || accessible != nil || synchronizable != nil
    }

    /// The classes a query can match, and their codes: its class, or every supported class
    /// having all its attributes.
    var candidateClasses: (classes: [ItemClass], codes: [Int]) {
        var mask = 0
        for (position, candidate) in ItemClass.supported.enumerated() {
            let fits = itemClass.map { $0 == candidate } ?? attributes.allSatisfy { $0.spec.applies(to: candidate) }
            if fits { mask |= 1 << position }
        }
        if let itemClass, mask == 0 { return ([itemClass], [itemClass.rawValue]) }
        return ItemClass.supportedSubsets[mask]
    }
}

/// Persistent references: 16 random bytes, URL-safe base64 without padding (22 characters).
public enum PersistentRef {
    static let length = 16

    public static func encode(_ bytes: [UInt8]) -> String { Base64.encodeURLSafe(bytes) }

    /// The 16 bytes of a well-formed reference, or `nil`.
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count == 22, text.utf8.allSatisfy({ $0.isBase64URL }) else { return nil }
        guard let bytes = Base64.decode(text), bytes.count == length else { return nil }
        return bytes
    }
}

extension UInt8 {
    fileprivate var isBase64URL: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A) || self == 0x2D
            || self == 0x5F
    }
}

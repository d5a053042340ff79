import ExtrasBase64
public import KeychainCore
public import KeychainJSON

/// Query dictionaries from JSON — a body, or URL parameters as strings — into typed queries:
/// every key resolved through `Schema` in any of its spellings, every value checked against
/// its type. What the keys may do where they are used, the keychain checks.
///
/// Errors name the key as the client spelled it.
public enum QueryParser {
    /// Parses `object`. `lenient` (URL parameters) accepts strings for booleans and numbers.
    public static func parse(_ object: JSONObject, lenient: Bool = false) throws(KeychainError) -> ItemQuery {
        try parse(entries: object.entries, lenient: lenient)
    }

    /// Parses URL parameters, each value a string, leniently (as `parse(_:lenient:)` with
    /// `lenient`): read in place, without making a JSON object of them first.
    public static func parse(parameters: [(name: String, value: String)]) throws(KeychainError) -> ItemQuery {
        try parse(entries: ParameterEntries(parameters: parameters), lenient: true)
    }

    /// URL parameters as a query object's entries, each value a string. (A lazy map of them
    /// retained and released its closure's context at every access.)
    private struct ParameterEntries: RandomAccessCollection {
        let parameters: [(name: String, value: String)]
        var startIndex: Int { 0 }
        var endIndex: Int { parameters.count }
        subscript(position: Int) -> (key: String, value: JSON) {
            (parameters[position].name, .string(parameters[position].value))
        }
    }

    private static func parse<Entries: RandomAccessCollection>(
        entries: Entries, lenient: Bool
    ) throws(KeychainError) -> ItemQuery where Entries.Element == (key: String, value: JSON), Entries.Index == Int {
        // Each key resolved once, to its number in the schema, kept on the stack; then the class
        // first (attribute checks depend on it, and it decides which key a spelling two keys
        // share, `type`, names); then each key's number marked in a bit set, so that a name given
        // twice, in any spelling, is refused in time linear in the number of keys.
        return try withUnsafeTemporaryAllocation(of: Int32.self, capacity: entries.count) { numbers throws(KeychainError) in
            var query = ItemQuery()
            for n in entries.indices {
                guard let key = Schema.key(named: entries[n].key) else { throw .param("\(entries[n].key): unknown key") }
                numbers[n] = Int32(key.number)
                if key.role == .itemClass { query.itemClass = try itemClass(entries[n].value, spelling: entries[n].key) }
            }
            let words = (Schema.keys.count + 63) / 64
            // The inner closure mutates the outer one's query in place and returns nothing: a
            // query returned from it would be copied (a retain and a release per field).
            try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: words) { seen throws(KeychainError) in
                seen.initialize(repeating: 0)
                for n in entries.indices {
                    var key = Schema.keys[Int(numbers[n])]
                    if let itemClass = query.itemClass { key = key.sharingSpelling(for: itemClass) }
                    let (word, bit) = (key.number / 64, UInt64(1) << UInt64(key.number % 64))
                    guard seen[word] & bit == 0 else {
                        let previous = entries[..<n].first { Schema.key(named: $0.key, for: query.itemClass) === key }?.key
                        throw .param("\(entries[n].key): given twice (also as \(previous ?? entries[n].key))")
                    }
                    seen[word] |= bit
                    if query.attributes.isEmpty, key.role == .attribute { query.attributes.reserveCapacity(entries.count - n) }
                    try parse(key, entries[n].value, spelling: entries[n].key, lenient: lenient, into: &query)
                }
            }
            return query
        }
    }

    private static func parse(
        _ key: SchemaKey, _ value: JSON, spelling: String, lenient: Bool, into query: inout ItemQuery
    ) throws(KeychainError) {
        func bool() throws(KeychainError) -> Bool { try Self.bool(value, spelling: spelling, lenient: lenient) }
        switch key.role {
        case .itemClass: break
        case .matchLimit: query.matchLimit = try matchLimit(value, spelling: spelling, lenient: lenient)
        case .matchCaseInsensitive: query.matchCaseInsensitive = try bool()
        case .matchHostOrSubdomainOfHost:
            guard case .string(let host) = value, !host.isEmpty else { throw .param("\(spelling): expected a host name") }
            query.matchHostOrSubdomainOfHost = host
        case .matchSubjectContains: query.certificateMatch.subjectContains = try text(value, spelling: spelling)
        case .matchSubjectStartsWith: query.certificateMatch.subjectStartsWith = try text(value, spelling: spelling)
        case .matchSubjectEndsWith: query.certificateMatch.subjectEndsWith = try text(value, spelling: spelling)
        case .matchSubjectWholeString: query.certificateMatch.subjectWholeString = try text(value, spelling: spelling)
        case .matchEmailAddressIfPresent: query.certificateMatch.emailAddressIfPresent = try text(value, spelling: spelling)
        case .matchIssuers: query.certificateMatch.issuers = try issuers(value, spelling: spelling, lenient: lenient)
        case .matchValidOnDate:
            if case .null = value {
                query.certificateMatch.validOnDate = .now
            } else if case .string(let text) = value, let ms = RFC3339.parse(text) {
                query.certificateMatch.validOnDate = .date(ms)
            } else if lenient, case .string("null") = value {
                query.certificateMatch.validOnDate = .now
            } else {
                throw .param("\(spelling): expected an RFC 3339 date-time or null (now)")
            }
        case .returnData: query.returnData = try bool()
        case .returnAttributes: query.returnAttributes = try bool()
        case .returnPersistentRef: query.returnPersistentRef = try bool()
        case .returnRef: query.returnRef = try bool()
        case .deleteAll: query.deleteAll = try bool()
        case .pageAfter:
            guard case .string(let cursor) = value, !cursor.isEmpty else { throw .param("\(spelling): expected a cursor string") }
            query.pageAfter = cursor
        case .useDataProtectionKeychain: query.useDataProtectionKeychain = try bool()
        case .valueData:
            guard case .string(let text) = value, let bytes = Base64.decodeCanonical(text) else {
                throw .param("\(spelling): expected base64 bytes in a string")
            }
            query.valueData = bytes
        case .certificateData:
            guard case .string(let text) = value, let bytes = Base64.decodeCanonical(text) else {
                throw .param("\(spelling): expected base64 bytes in a string")
            }
            query.certificateData = bytes
        case .valuePersistentRef:
            guard case .string(let text) = value, let (keychain, ref) = PersistentRef.parse(text) else {
                throw .param("\(spelling): not a persistent reference")
            }
            try query.name(keychain: keychain, key: spelling)
            query.persistentRef = ref
        case .access: query.access = try AccessObject(json: value, key: spelling)
        case .useKeychain:
            guard case .string(let name) = value else { throw .param("\(spelling): expected a keychain name") }
            try KeychainName.check(name, key: spelling)
            try query.name(keychain: name, key: spelling)
        case .matchSearchList:
            let names: [String]
            if case .array(let values) = value {
                names = try values.map { (value) throws(KeychainError) in
                    guard case .string(let name) = value else { throw .param("\(spelling): expected an array of keychain names") }
                    return name
                }
            } else if lenient, case .string(let text) = value {
                names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            } else {
                throw .param("\(spelling): expected an array of keychain names")
            }
            guard !names.isEmpty, names.count <= AccessToken.maxGroups else {
                throw .param("\(spelling): expected 1…\(AccessToken.maxGroups) keychain names")
            }
            for name in names { try KeychainName.check(name, key: spelling) }
            query.searchList = names
        case .accessGroup:
            guard case .string(let group) = value, !group.isEmpty else {
                throw .param("\(spelling): expected a non-empty string")
            }
            query.accessGroup = group
        case .accessible:
            guard case .string(let name) = value, let protection = Protection.named(name) else {
                throw .param("\(spelling): expected one of \(Protection.allCases.map(\.name).joined(separator: ", "))")
            }
            query.accessible = protection
        case .synchronizable:
            if case .string(let text) = value, text == "any" || text == "kSecAttrSynchronizableAny" || text == "syna" {
                query.synchronizable = .any
            } else {
                query.synchronizable = .only(try bool())
            }
        case .creationDate, .modificationDate:
            guard case .int(let ms) = try attributeValue(value, as: key.type, spelling: spelling, lenient: lenient) else { break }
            if key.role == .creationDate { query.creationDate = ms } else { query.modificationDate = ms }
        case .attribute:
            if let itemClass = query.itemClass, !key.applies(to: itemClass) {
                // Apple's order: an attribute the class lacks is refused before its value is read.
                throw .noSuchAttr(spelling, "class \(itemClass.name) has no such attribute")
            }
            query.attributes.append((key, try attributeValue(value, as: key.type, spelling: spelling, lenient: lenient)))
        }
    }

    private static func itemClass(_ value: JSON, spelling: String) throws(KeychainError) -> ItemClass {
        guard case .string(let name) = value else { throw .param("\(spelling): expected a string, got \(value.typeName)") }
        guard let itemClass = ItemClass.named(name) else { throw .noSuchClass("\(spelling): unknown class \"\(name)\"") }
        return itemClass
    }

    private static func text(_ value: JSON, spelling: String) throws(KeychainError) -> String {
        guard case .string(let text) = value, !text.isEmpty else { throw .param("\(spelling): expected a non-empty string") }
        return text
    }

    /// An array of base64 DER Names (one string, in URL parameters).
    private static func issuers(_ value: JSON, spelling: String, lenient: Bool) throws(KeychainError) -> [[UInt8]] {
        let elements: [JSON]
        if case .array(let array) = value {
            elements = array
        } else if lenient, case .string = value {
            elements = [value]
        } else {
            throw .param("\(spelling): expected an array of base64 DER names")
        }
        var names: [[UInt8]] = []
        for element in elements {
            guard case .string(let text) = element, let bytes = Base64.decodeCanonical(text) else {
                throw .param("\(spelling): expected an array of base64 DER names")
            }
            names.append(bytes)
        }
        return names
    }

    private static func bool(_ value: JSON, spelling: String, lenient: Bool) throws(KeychainError) -> Bool {
        if case .bool(let b) = value { return b }
        if lenient, case .string(let s) = value, let b = Bool(s) { return b }
        throw .param("\(spelling): expected a boolean, got \(value.typeName)")
    }

    private static func matchLimit(_ value: JSON, spelling: String, lenient: Bool) throws(KeychainError) -> MatchLimit {
        if case .string(let s) = value {
            switch s {
            case "one", "kSecMatchLimitOne", "m_LimitOne": return .one
            case "all", "kSecMatchLimitAll", "m_LimitAll": return .all
            default: if lenient, let n = Int(s), n > 0 { return .count(n) }
            }
        } else if let n = value.intValue, n > 0, n <= Int64(Int32.max) {
            return .count(Int(n))
        }
        throw .param("\(spelling): expected \"one\", \"all\" or a positive integer")
    }

    /// Checks `json` against `type`. `lenient` accepts strings for numbers and booleans.
    static func attributeValue(_ json: JSON, as type: ValueType, spelling: String, lenient: Bool) throws(KeychainError)
        -> AttributeValue
    {
        func wrongType(_ expected: String) -> KeychainError {
            .param("\(spelling): expected \(expected), got \(json.typeName)")
        }
        func integer() -> Int64? { json.intValue ?? (lenient ? json.stringValue.flatMap { Int64($0) } : nil) }
        switch type {
        case .string:
            guard case .string(let s) = json else { throw wrongType("a string") }
            return .string(s)
        case .bytes:
            guard case .string(let s) = json else { throw wrongType("base64 bytes in a string") }
            guard let bytes = Base64.decodeCanonical(s) else { throw .param("\(spelling): not valid base64") }
            return .bytes(bytes)
        case .bool, .synchronizable:
            return .bool(try bool(json, spelling: spelling, lenient: lenient))
        case .integer(let range):
            guard let i = integer() else { throw wrongType("an integer") }
            guard range.contains(i) else { throw .param("\(spelling): \(i) is outside \(range.lowerBound)…\(range.upperBound)") }
            return .int(i)
        case .fourCharCode:
            if let i = integer() {
                guard (0...Int64(UInt32.max)).contains(i) else { throw .param("\(spelling): not a 32-bit unsigned integer") }
                return .int(i)
            }
            if case .string(let s) = json, s.utf8.count == 4, s.utf8.allSatisfy({ $0 < 0x80 }) {
                return .int(s.utf8.reduce(Int64(0)) { $0 << 8 | Int64($1) })
            }
            throw wrongType("a four-char code (integer or 4 ASCII characters)")
        case .enumeration(let enumeration):
            if enumeration.fourCharCodes, let code = integer() {
                guard let value = enumeration.value(code: code) else {
                    throw .param("\(spelling): not a 32-bit unsigned integer")
                }
                return value
            }
            guard case .string(let s) = json else { throw wrongType("a string") }
            guard let value = enumeration.value(named: s) else {
                let names = enumeration.values.map(\.name).joined(separator: ", ")
                throw .param("\(spelling): unknown value; expected one of \(names)")
            }
            return value
        case .date:
            guard case .string(let s) = json, let ms = RFC3339.parse(s) else { throw wrongType("an RFC 3339 date-time") }
            return .int(ms)
        case .itemClass, .matchLimit, .persistentRef, .keychainNames, .accessObject:
            throw .param("\(spelling): not an attribute")
        }
    }
}

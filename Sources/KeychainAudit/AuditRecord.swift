import KeychainJSON

/// What one request did, as the audit log records it: who, from where, what, on which items,
/// and with what outcome. Never a secret, a token or a passphrase: the query's values are
/// written only as keyed hashes (`AuditKeys.hash`), and the caller's reason as given, bounded.
///
/// Its public initializer (below) calls the memberwise one (docs/performance.md#fewer-struct-copies);
/// their labels differ, which the compiler checks.
public struct AuditRecord: Sendable {
    public var requestID: AuditRequestID
    /// The token's public id and name; `nil` for a request without a valid token.
    public var tokenID: String?
    public var tokenName: String?
    /// The client's address, through trusted proxies.
    public var client: String
    /// The route template (`/v1/items/{persistentRef}`) and the operation on it (`search`).
    public var route: String
    public var operation: String
    /// The keychain a keychain's route acted on (its lock, unlock, settings…), as the path named
    /// it, escaped; `nil` for the other routes, whose refs name their keychains.
    public var keychain: String?
    /// The query's entries, values in clear; hashed when the line is written, but for options.
    /// The line holds the first `maxQueryEntries`, each name cut at `maxNameBytes`, and says how
    /// many it left out.
    public var query: [QueryEntry]
    /// The persistent refs of the items the request touched, as their bytes: the line writes
    /// them as the API does (base64url, unpadded), without a string made for each first. The
    /// ref of an item outside the default keychain is its keychain's name and `.` before its
    /// 16 bytes (`refBytes`), written as the API writes it: `<keychain>.<base64url>`.
    public var refs: [[UInt8]]

    /// A touched ref's bytes for `refs`: the 16 bytes, after `<keychain>.` outside `default`.
    public static func refBytes(_ ref: [UInt8], keychain: String) -> [UInt8] {
        keychain == "default" ? ref : Array(keychain.utf8) + [UInt8(ascii: ".")] + ref
    }
    /// The OSStatus answered: 0 for success.
    public var status: Int64
    public var httpStatus: Int
    /// `X-Keychain-Reason`, as given, cut at `maxReasonBytes`.
    public var reason: String?
    /// Wall-clock milliseconds since 1970.
    public var time: Int64

    /// The longest reason kept, in bytes of UTF-8.
    public static let maxReasonBytes = 256

    /// The query entries a line holds. A request that names more (a body of many keys, which the
    /// API refuses) is recorded with its first ones and the count of the others: a client's body
    /// cannot make a line, or its hashing, larger than its own request, or fill the log's disk
    /// faster than it sends. The API's queries name a few dozen keys at most.
    public static let maxQueryEntries = 64

    /// The longest query name a line holds, and the longest value it writes in clear, in bytes of
    /// UTF-8 (a schema's longest name is under 50).
    public static let maxNameBytes = 128

    /// One entry of the query: a name, and its value, written as a keyed hash (`hmac:…`) unless
    /// it is a query option's word.
    public struct QueryEntry: Sendable, Equatable {
        public var name: String
        public var value: String
        /// Written as given, escaped: a query option's value (`"returnData":"true"`,
        /// `"matchLimit":"all"`, `"class":"genp"`), which says what was asked and names no item.
        /// Never an attribute's value, a cursor or a ref: those are hashed.
        public var inClear: Bool

        public init(_ name: String, _ value: String, inClear: Bool = false) {
            self.name = name
            self.value = value
            self.inClear = inClear
        }
    }

    /// Writes the record as a JSON object, values hashed, in a fixed order of keys, without
    /// `prev` and its closing brace (the chain writes those, and the mac), built as bytes rather
    /// than as a `JSON` value first: this runs for every request. What a client chose (a token's name, a query's
    /// names, the address a proxy forwarded, the reason) is escaped; what the server made (the
    /// route, the operation, request ids, refs, hashes) is copied as it is. At most `lineBound`
    /// bytes.
    func write(to out: inout ByteCursor, keys: AuditKeys) {
        out.literal(#"{"time":"#)
        out.decimal(time)
        out.literal(#","request":""#)
        requestID.write(to: &out)
        out.byte(UInt8(ascii: "\""))
        if let tokenID {
            out.literal(#","token":{"id":"#)
            out.jsonString(tokenID)
            out.literal(#","name":"#)
            if let tokenName { out.jsonString(tokenName) } else { out.literal("null") }
            out.literal("}")
        } else {
            out.literal(#","token":null"#)
        }
        out.literal(#","client":"#)
        out.jsonString(client)
        out.literal(#","route":"#)
        out.quoted(route)
        out.literal(#","operation":"#)
        out.quoted(operation)
        if let keychain {
            out.literal(#","keychain":"#)
            out.jsonString(keychain)
        }
        out.literal(#","query":{"#)
        let kept = min(query.count, Self.maxQueryEntries)
        for n in 0..<kept {
            if n > 0 { out.byte(UInt8(ascii: ",")) }
            Self.writeBounded(query[n].name, to: &out)
            out.byte(UInt8(ascii: ":"))
            if query[n].inClear {
                Self.writeBounded(query[n].value, to: &out)
            } else {
                out.byte(UInt8(ascii: "\""))
                keys.appendHash(query[n].value, to: &out)
                out.byte(UInt8(ascii: "\""))
            }
        }
        out.byte(UInt8(ascii: "}"))
        if kept < query.count {
            out.literal(#","queryLeftOut":"#)
            out.decimal(Int64(query.count - kept))
        }
        out.literal(#","refs":["#)
        for n in refs.indices {
            if n > 0 { out.byte(UInt8(ascii: ",")) }
            out.byte(UInt8(ascii: "\""))
            let split = max(0, refs[n].count - 16)
            // A keychain's name is a-z, 0-9, - and _ (`KeychainName`): nothing to escape.
            for byte in refs[n][..<split] { out.byte(byte) }
            refs[n][split...].withUnsafeBytes { out.base64url($0) }
            out.byte(UInt8(ascii: "\""))
        }
        out.literal(#"],"status":"#)
        out.decimal(status)
        out.literal(#","httpStatus":"#)
        out.decimal(Int64(httpStatus))
        if let reason {
            out.literal(#","reason":"#)
            out.jsonString(reason)
        }
    }

    /// `text` as a JSON string, cut at `maxNameBytes` (a copy made only when it is longer).
    private static func writeBounded(_ text: String, to out: inout ByteCursor) {
        if text.utf8.count <= maxNameBytes { out.jsonString(text) } else { out.jsonString(bounded(text, to: maxNameBytes)) }
    }

    /// The most bytes `write(to:keys:)` writes: its keys and punctuation (under 170 bytes),
    /// four numbers of at most 20, and each string at its longest, escaped.
    var lineBound: Int {
        var bound = 170 + 4 * 20 + AuditRequestID.maxBytes + route.utf8.count + operation.utf8.count + 6
        if let keychain { bound += 14 + ByteCursor.jsonStringBound(keychain) }
        bound += ByteCursor.jsonStringBound(tokenID ?? "") + ByteCursor.jsonStringBound(tokenName ?? "")
        bound += ByteCursor.jsonStringBound(client) + ByteCursor.jsonStringBound(reason ?? "")
        let nameBound = 6 * Self.maxNameBytes + 2
        for entry in query.prefix(Self.maxQueryEntries) {
            bound += min(ByteCursor.jsonStringBound(entry.name), nameBound) + 2
            bound += entry.inClear ? min(ByteCursor.jsonStringBound(entry.value), nameBound) : AuditKeys.hashBytes + 2
        }
        for ref in refs { bound += ByteCursor.base64urlCount(ref.count) + ref.count + 3 }
        return bound
    }

    /// Whether `text` is a short word, at most 32 bytes of letters, digits, `-` and `_`: what a
    /// query option's value must be to be written in clear (`QueryEntry.inClear`).
    public static func isShortWord(_ text: String) -> Bool {
        text.utf8.count <= 32 && text.utf8.allSatisfy(isWordByte)
    }

    /// A letter, a digit, `-` or `_`: a word's bytes, and base64url's alphabet.
    static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    /// `text` cut at `maxBytes` bytes of UTF-8, on a character boundary.
    static func bounded(_ text: String, to maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var kept = ""
        for character in text {
            guard kept.utf8.count + character.utf8.count <= maxBytes else { break }
            kept.append(character)
        }
        return kept
    }
}

extension AuditRecord {
    public init(
        time: Int64, requestID: AuditRequestID, tokenID: String? = nil, tokenName: String? = nil, client: String, route: String,
        operation: String, keychain: String? = nil, query: [QueryEntry] = [], refs: [[UInt8]] = [], status: Int64,
        httpStatus: Int, reason: String? = nil
    ) {
        self.init(
            requestID: requestID, tokenID: tokenID, tokenName: tokenName, client: client, route: route, operation: operation,
            keychain: keychain, query: query, refs: refs, status: status, httpStatus: httpStatus,
            reason: reason.map { Self.bounded($0, to: Self.maxReasonBytes) }, time: time)
    }
}

import KeychainJSON
import KeychainLog

/// What one request did, as the audit log records it: who, from where, what, on which items,
/// and with what outcome. Never a secret, a token or a passphrase: the query's values are
/// written only as keyed hashes (`AuditKeys.hash`), and the caller's reason as given, bounded.
public struct AuditRecord: Sendable {
    /// Wall-clock milliseconds since 1970.
    public var time: Int64
    public var requestID: String
    /// The token's public id and name; `nil` for a request without a valid token.
    public var tokenID: String?
    public var tokenName: String?
    /// The client's address, through trusted proxies.
    public var client: String
    /// The route template (`/v1/items/{persistentRef}`) and the operation on it (`search`).
    public var route: String
    public var operation: String
    /// The query's attribute names with their values in clear; hashed when the line is written.
    public var query: [(name: String, value: String)]
    /// The persistent refs of the items the request touched.
    public var refs: [String]
    /// The OSStatus answered: 0 for success.
    public var status: Int64
    public var httpStatus: Int
    /// `X-Keychain-Reason`, as given, cut at `maxReasonBytes`.
    public var reason: String?

    /// The longest reason kept, in bytes of UTF-8.
    public static let maxReasonBytes = 256

    public init(
        time: Int64, requestID: String, tokenID: String? = nil, tokenName: String? = nil, client: String, route: String,
        operation: String, query: [(name: String, value: String)] = [], refs: [String] = [], status: Int64, httpStatus: Int,
        reason: String? = nil
    ) {
        self.time = time
        self.requestID = requestID
        self.tokenID = tokenID
        self.tokenName = tokenName
        self.client = client
        self.route = route
        self.operation = operation
        self.query = query
        self.refs = refs
        self.status = status
        self.httpStatus = httpStatus
        self.reason = reason.map(Self.bounded)
    }

    /// Writes the record as a JSON object, values hashed, in a fixed order of keys, without its
    /// closing brace (the chain puts the mac there), built as bytes rather than as a `JSON`
    /// value first: this runs for every request. What a client chose (a token's name, a query's
    /// names, the address a proxy forwarded, the reason) is escaped; what the server made (the
    /// route, the operation, request ids, refs, hashes) is copied as it is.
    func write(into out: inout [UInt8], keys: AuditKeys, prev: String?) {
        out.append(#"{"time":"#)
        out.appendDecimal(time)
        out.append(#","request":"#)
        out.appendQuoted(requestID)
        if let tokenID {
            out.append(#","token":{"id":"#)
            JSON.appendString(tokenID, to: &out)
            out.append(#","name":"#)
            if let tokenName { JSON.appendString(tokenName, to: &out) } else { out.append("null") }
            out.append("}")
        } else {
            out.append(#","token":null"#)
        }
        out.append(#","client":"#)
        JSON.appendString(client, to: &out)
        out.append(#","route":"#)
        out.appendQuoted(route)
        out.append(#","operation":"#)
        out.appendQuoted(operation)
        out.append(#","query":{"#)
        for n in query.indices {
            if n > 0 { out.append(",") }
            JSON.appendString(query[n].name, to: &out)
            out.append(#":""#)
            keys.appendHash(query[n].value, to: &out)
            out.append(#"""#)
        }
        out.append(#"},"refs":["#)
        for n in refs.indices {
            if n > 0 { out.append(",") }
            out.appendQuoted(refs[n])
        }
        out.append(#"],"status":"#)
        out.appendDecimal(status)
        out.append(#","httpStatus":"#)
        out.appendDecimal(httpStatus)
        if let reason {
            out.append(#","reason":"#)
            JSON.appendString(reason, to: &out)
        }
        out.append(#","prev":"#)
        if let prev { out.appendQuoted(prev) } else { out.append("null") }
    }

    /// `text` cut at `maxReasonBytes`, on a character boundary.
    static func bounded(_ text: String) -> String {
        guard text.utf8.count > maxReasonBytes else { return text }
        var kept = ""
        for character in text {
            guard kept.utf8.count + character.utf8.count <= maxReasonBytes else { break }
            kept.append(character)
        }
        return kept
    }
}

extension [UInt8] {
    /// Appends a literal's bytes.
    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends `text` in quotes, unescaped: only for what the server wrote itself (base64url,
    /// hex, route templates), which holds no quote, backslash or control byte.
    mutating func appendQuoted(_ text: String) {
        append(UInt8(ascii: "\""))
        append(contentsOf: text.utf8)
        append(UInt8(ascii: "\""))
    }
}

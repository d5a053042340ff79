import KeychainJSON

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
    /// value first: this runs for every request.
    func write(into out: inout [UInt8], keys: AuditKeys, prev: String?) {
        func key(_ name: StaticString, first: Bool = false) {
            if !first { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(contentsOf: "\":".utf8)
        }
        func string(_ text: String) { JSON.appendString(text, to: &out) }
        func int(_ value: Int64) { out.append(contentsOf: String(value).utf8) }
        out.append(UInt8(ascii: "{"))
        key("time", first: true)
        int(time)
        key("request")
        string(requestID)
        key("token")
        if let tokenID {
            out.append(contentsOf: #"{"id":"#.utf8)
            string(tokenID)
            out.append(contentsOf: #","name":"#.utf8)
            if let tokenName { string(tokenName) } else { out.append(contentsOf: "null".utf8) }
            out.append(UInt8(ascii: "}"))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        key("client")
        string(client)
        key("route")
        string(route)
        key("operation")
        string(operation)
        key("query")
        out.append(UInt8(ascii: "{"))
        for n in query.indices {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            string(query[n].name)
            out.append(UInt8(ascii: ":"))
            string(keys.hash(query[n].value))
        }
        out.append(UInt8(ascii: "}"))
        key("refs")
        out.append(UInt8(ascii: "["))
        for n in refs.indices {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            string(refs[n])
        }
        out.append(UInt8(ascii: "]"))
        key("status")
        int(status)
        key("httpStatus")
        int(Int64(httpStatus))
        if let reason {
            key("reason")
            string(reason)
        }
        key("prev")
        if let prev { string(prev) } else { out.append(contentsOf: "null".utf8) }
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

public import KeychainJSON

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

    /// The record as a JSON object, values hashed, in a fixed order of keys.
    func json(keys: AuditKeys, prev: String?) -> JSONObject {
        var entries: [(key: String, value: JSON)] = [
            ("time", .int(time)), ("request", .string(requestID)),
            ("token", tokenID.map { id in .object(["id": .string(id), "name": tokenName.map(JSON.string) ?? .null]) } ?? .null),
            ("client", .string(client)), ("route", .string(route)), ("operation", .string(operation)),
            ("query", .object(JSONObject(query.map { ($0.name, JSON.string(keys.hash($0.value))) }))),
            ("refs", .array(refs.map(JSON.string))), ("status", .int(status)), ("httpStatus", .int(Int64(httpStatus))),
        ]
        if let reason { entries.append(("reason", .string(reason))) }
        entries.append(("prev", prev.map(JSON.string) ?? .null))
        return JSONObject(entries)
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

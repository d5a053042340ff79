import KeychainAudit
import KeychainCore
import KeychainJSON
import KeychainX509
import Logging
import MicroHTTP
import Synchronization

extension KeychainResponder {
    /// Records the request in the audit log, when there is one. Returns, when the response
    /// carries a secret or says a change was made, its line's ticket: the response may be sent
    /// only once `AuditLog.written` says the line is written, and a 503 (`auditRefusal`) in its
    /// place otherwise (fail closed, as Vault). Runs for every request that reached the
    /// responder, refused or not.
    func audited(
        _ head: HTTPRequestHead, body: [UInt8]?, route: Route?, token: AccessToken?, client: String,
        _ response: borrowing HTTPResponse
    ) -> AuditLog.Ticket? {
        guard let auditLog else { return nil }
        let answer = Self.answerFacts(response)
        let record = AuditRecord(
            time: clock.now(), requestID: requestIDs.next(), tokenID: token?.id, tokenName: token?.name,
            // Bounded as the access line's: a trusted proxy's forwarded hop is the client's text.
            client: LogText.sanitized(client, maxBytes: LogText.maxAddressBytes),
            route: route?.template ?? "-", operation: route?.operation(head) ?? "none",
            keychain: auditedKeychain(route, head, token: token),
            query: Self.auditedQuery(head, body: body, route: route),
            refs: answer.refs, status: answer.status, httpStatus: response.status,
            reason: head.headers.withFirstValue(lowercased: "x-keychain-reason") { String(decoding: $0, as: UTF8.self) })
        let line = auditLog.append(record)
        let waits = answer.carriesSecret || route?.changes(method: head.method) == true
        return response.status < 300 && waits ? line : nil
    }

    /// The keychain a keychain's route acts on, as its audit line names it: the one in its path,
    /// or the token's default for `/v1/keychain/…` (`default` without a token).
    func auditedKeychain(_ route: Route?, _ head: HTTPRequestHead, token: AccessToken?) -> String? {
        guard let route else { return nil }
        if let name = route.keychainName { return name }
        switch route {
        case .keychain, .lock, .unlock, .passphrase, .settings:
            guard let token else { return KeychainName.default }
            return (try? keychains.defaultKeychain(for: token))?.name
        case .exportBundle where Self.namesEveryKeychain(head), .importBundle where Self.namesEveryKeychain(head):
            return Self.everyKeychain
        case .exportBundle, .importBundle, .backup, .itemsImport:
            guard let token else { return nil }
            return (try? targetKeychain(head, token: token))?.name
        default: return nil
        }
    }

    /// The answer in place of one whose audit line could not be written: a secret's, or a
    /// change's, which was made (`afterChange`) and cannot be undone. The server says so in its log.
    func auditRefusal(afterChange: Bool) -> HTTPResponse {
        logAuditFailure()
        return APIError.response(
            .notAvailable(
                afterChange
                    ? "audit: the change may have been made but could not be audited: the audit log cannot be written"
                    : "audit: the audit log cannot be written; no secret is answered until it can"))
    }

    /// A change refused before it runs while the audit log is failing (the lines buffered since
    /// its last failed write cannot be written either): 503 with `Retry-After`, nothing changed.
    /// `nil` to proceed; while writes succeed, one flag is read.
    func unauditable(_ head: HTTPRequestHead, route: Route) -> HTTPResponse? {
        guard let auditLog, auditLog.isFailing, route.changes(method: head.method), !auditLog.canWrite() else { return nil }
        logAuditFailure()
        return APIError.response(
            .notAvailable("audit: the audit log cannot be written; no change is made until it can"),
            headers: [(name: "Retry-After", value: "1")])
    }

    /// The server log's line, at most once a second.
    private func logAuditFailure() {
        if auditFailures.admit(logger, leftOut: "audit failure lines left out") {
            logger.error("the audit log cannot be written: changes, and answers that would carry item data, are refused with 503")
        }
    }

    /// What an answer says for the audit line: the OSStatus of an error (from its small body),
    /// the persistent refs of the items it touched, and whether it holds a secret.
    static func answerFacts(_ response: borrowing HTTPResponse) -> (status: Int64, refs: [[UInt8]], carriesSecret: Bool) {
        let refs = response.touched
        guard response.status >= 400 else { return (0, refs, response.carriesSecret) }
        let status = (try? JSON.parse(response.body))?.objectValue?["status"]?.intValue ?? 0
        return (status, refs, false)
    }

    /// The query's names and values (hashed when the line is sealed, but for options' words):
    /// URL parameters, and the body's scalar entries, nested ones as `query.service`. Never a
    /// secret or a passphrase: `valueData`, a KV write's `data` and the passphrase routes' bodies
    /// are left out, since even a keyed hash of a secret could confirm a guess of it.
    static func auditedQuery(_ head: HTTPRequestHead, body: [UInt8]?, route: Route?) -> [AuditRecord.QueryEntry] {
        var query: [AuditRecord.QueryEntry] = []
        query.reserveCapacity(head.queryItems.count)
        for item in head.queryItems where !isUnaudited(item.name) {
            query.append(AuditRecord.QueryEntry(item.name, item.value, inClear: isOptionWord(item.name, item.value)))
        }
        guard let body, !body.isEmpty, route?.runsKDF(method: head.method) != true,
            let object = try? JSON.parse(body).objectValue
        else { return query }
        // A KV write's `data` is the secret itself, every value in it.
        let kvWrite: Bool
        if case .kvData? = route { kvWrite = true } else { kvWrite = false }
        // A key operation's line names the key and the algorithm, never its input or output.
        let keyUse: Bool
        if case .keyAction? = route { keyUse = true } else { keyUse = false }
        func flatten(_ object: JSONObject, prefix: String) {
            for (key, value) in object
            where !isUnaudited(key) && !(kvWrite && prefix.isEmpty && key == "data")
                && !(keyUse && prefix.isEmpty && !["persistentRef", "query", "algorithm", "requestedSize"].contains(key))
            {
                let text: String
                switch value {
                case .string(let string): text = string
                case .int(let number): text = String(number)
                case .bool(let flag): text = String(flag)
                case .object(let nested) where prefix.isEmpty:
                    flatten(nested, prefix: key + ".")
                    continue
                default: continue
                }
                query.append(AuditRecord.QueryEntry(prefix + key, text, inClear: isOptionWord(key, text)))
            }
        }
        flatten(object, prefix: "")
        return query
    }

    /// Whether `value` is written in clear: the value of a query option (a class, a match limit
    /// or flag, a return key, an import's conflict policy), and a short word at that. Such a
    /// value says what was asked, not of which item; anything else, an unknown key's value
    /// included, is hashed.
    static func isOptionWord(_ name: String, _ value: String) -> Bool {
        // A key's algorithm is one of Apple's names, in clear; anything else a client sends there is hashed.
        if name == "algorithm" { return KeyAlgorithm(rawValue: value) != nil }
        return (Schema.isOption(named: name) || name == "conflict") && AuditRecord.isShortWord(value)
    }

    /// Whether `name`'s value never reaches the audit log, even hashed. (A switch: a `Set` would
    /// hash every name of every request.)
    private static func isUnaudited(_ name: String) -> Bool {
        // The first byte tells most names (`service`, `account`) apart before any comparison.
        switch name.utf8.first {
        case UInt8(ascii: "v"), UInt8(ascii: "k"), UInt8(ascii: "p"), UInt8(ascii: "o"), UInt8(ascii: "n"), UInt8(ascii: "t"):
            break
        default: return false
        }
        switch name {
        case "valueData", "kSecValueData", "v_Data", "passphrase", "old", "new", "token": return true
        default: return false
        }
    }
}

/// Request ids for the audit log: this process's random prefix and a counter.
final class RequestIDs: Sendable {
    private let prefix = UInt32.random(in: 0...UInt32.max)
    private let counter = Atomic<UInt64>(0)

    func next() -> AuditRequestID {
        AuditRequestID(prefix: prefix, count: counter.add(1, ordering: .relaxed).newValue)
    }
}

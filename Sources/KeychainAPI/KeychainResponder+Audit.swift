import KeychainAudit
import KeychainCore
import KeychainJSON
import Logging
import MicroHTTP
import Synchronization

extension KeychainResponder {
    /// Records the request in the audit log, when there is one, and returns the response to
    /// send: the same, or 503 when it would carry a secret and its audit line cannot be written
    /// (fail closed, as Vault). Runs for every request that reached the responder, refused or not.
    func audited(
        _ head: HTTPRequestHead, body: [UInt8]?, route: Route?, token: AccessToken?, client: String, _ response: HTTPResponse
    ) -> HTTPResponse {
        guard let auditLog else { return response }
        let answer = Self.answerFacts(response)
        let record = AuditRecord(
            time: clock.now(), requestID: requestIDs.next(), tokenID: token?.id, tokenName: token?.name, client: client,
            route: route?.template ?? "-", operation: route?.operation(method: head.method) ?? "none",
            query: Self.auditedQuery(head, body: body, route: route),
            refs: answer.refs, status: answer.status, httpStatus: response.status,
            reason: head.headers.withFirstValue(lowercased: "x-keychain-reason") { String(decoding: $0, as: UTF8.self) })
        let carriesSecret = response.status < 300 && answer.carriesSecret
        guard auditLog.record(record, mustBeWritten: carriesSecret) || !carriesSecret else {
            if auditFailures.admit(logger, leftOut: "audit failure lines left out") {
                logger.error("the audit log cannot be written: answers that would carry a secret are refused with 503")
            }
            return APIError.response(.notAvailable("audit: the audit log cannot be written; no secret is answered until it can"))
        }
        return response
    }

    /// What an answer says for the audit line: the OSStatus of an error (from its small body),
    /// the persistent refs of the items it touched, and whether it holds a secret.
    static func answerFacts(_ response: HTTPResponse) -> (status: Int64, refs: [String], carriesSecret: Bool) {
        let refs = response.touched.map(PersistentRef.encode)
        guard response.status >= 400 else { return (0, refs, response.carriesSecret) }
        let status = (try? JSON.parse(response.body))?.objectValue?["status"]?.intValue ?? 0
        return (status, refs, false)
    }

    /// The query's names and values (hashed when the line is sealed): URL parameters, and the
    /// body's scalar entries, nested ones as `query.service`. Never a secret or a passphrase:
    /// `valueData` and the passphrase routes' bodies are left out, since even a keyed hash of
    /// a secret could confirm a guess of it.
    static func auditedQuery(_ head: HTTPRequestHead, body: [UInt8]?, route: Route?) -> [(name: String, value: String)] {
        var query = head.queryItems.filter { !isUnaudited($0.name) }
        guard let body, !body.isEmpty, route?.runsKDF != true,
            let object = try? JSON.parse(body).objectValue
        else { return query }
        func flatten(_ object: JSONObject, prefix: String) {
            for (key, value) in object where !isUnaudited(key) {
                switch value {
                case .string(let text): query.append((prefix + key, text))
                case .int(let number): query.append((prefix + key, String(number)))
                case .bool(let flag): query.append((prefix + key, String(flag)))
                case .object(let nested) where prefix.isEmpty: flatten(nested, prefix: key + ".")
                default: break
                }
            }
        }
        flatten(object, prefix: "")
        return query
    }

    /// Whether `name`'s value never reaches the audit log, even hashed. (A switch: a `Set` would
    /// hash every name of every request.)
    private static func isUnaudited(_ name: String) -> Bool {
        switch name {
        case "valueData", "kSecValueData", "v_Data", "passphrase", "old", "new", "token": true
        default: false
        }
    }
}

/// Request ids for the audit log: this process's random prefix and a counter.
final class RequestIDs: Sendable {
    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    init() {
        prefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    }

    func next() -> String {
        prefix + "-" + String(counter.add(1, ordering: .relaxed).newValue)
    }
}

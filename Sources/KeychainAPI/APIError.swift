public import KeychainCore
import KeychainJSON
public import MicroHTTP

/// The one place where errors become HTTP responses, all in one JSON shape (docs/semantics.md §5):
/// `{"status": <OSStatus>, "error": "<errSec name>", "message": "<what and which key>"}`.
public enum APIError {
    /// The HTTP status for an OSStatus (docs/semantics.md §5).
    static func httpStatus(for error: KeychainError) -> Int {
        switch error.status {
        case -50, -25303, -25306, -25257: 400
        case -25293: error.isThrottle ? 429 : 401
        case -34018, -25315: 403
        case -25300, -25294: 404
        case -25299, -25296: 409
        case -25310: 412
        case -25302: 413
        case -25308: 423
        case -26275: 500
        case -25291: 503
        case -4: 501
        default: 500
        }
    }

    /// The keys the core names that a request carries in headers, and those headers.
    static let headerKeys = [
        ("token", "Authorization"), ("expectedVersion", "If-Match"),
        ("bundlePassphrase", KeychainResponder.bundlePassphraseHeader), ("prompt", KeychainResponder.promptPassphraseHeader),
    ]

    /// The response for `error`, with `Retry-After` when throttled.
    public static func response(_ error: KeychainError, httpStatus: Int? = nil, headers: [(name: String, value: String)] = [])
        -> HTTPResponse
    {
        let error = headerKeys.reduce(error) { $0.naming($1.0, as: $1.1) }
        var body: JSONObject = [
            "status": .int(Int64(error.status)), "error": .string(error.name), "message": .string(error.message),
        ]
        if let ref = error.persistentRef { body["persistentRef"] = .string(ref) }
        var allHeaders = [(name: "Content-Type", value: "application/json")] + headers
        if let retryAfter = error.retryAfter { allHeaders.append((name: "Retry-After", value: String(retryAfter))) }
        return HTTPResponse(
            status: httpStatus ?? Self.httpStatus(for: error), headers: allHeaders, body: JSON.object(body).serialized())
    }

    /// 404 for a path no route has.
    static func noRoute(_ method: String, _ path: String) -> HTTPResponse {
        response(.unimplemented("path: no route for \(method) \(path.prefix(200))"), httpStatus: 404)
    }

    /// 405 with `Allow`.
    static func methodNotAllowed(_ method: String, template: String, allowed: [String]) -> HTTPResponse {
        response(
            .unimplemented("method: \(method) is not allowed on \(template); allowed: \(allowed.joined(separator: ", "))"),
            httpStatus: 405, headers: [(name: "Allow", value: allowed.joined(separator: ", "))])
    }
}

import Foundation
public import MicroHTTP

/// Runs a responder in process, as the server would call it, without a socket: what the API
/// answers, tested where the transport is not the subject (as hummingbird's router test
/// framework does). `preflight`, then, unless it refused, `respond` with its plan.
public struct InProcessClient: Sendable {
    public let responder: any HTTPResponder

    public init(_ responder: any HTTPResponder) {
        self.responder = responder
    }

    /// One request. `target` is the path and query as on a request line; its query is
    /// decoded as libmicrohttpd decodes it (`+` is a space, then percent-decoding). A streamed
    /// body is read whole, or until its producer throws (then `truncated`).
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        remoteAddress: String = "127.0.0.1"
    ) -> RawResponse {
        let response = self.response(method, target, headers: headers, body: body, remoteAddress: remoteAddress)
        if let stream = response.bodyStream {
            let read = stream.readAll()
            return RawResponse(
                status: response.status, headers: response.headers, body: read.bytes, truncated: read.failure != nil)
        }
        return RawResponse(
            status: response.status, headers: response.headers, body: response.bodyFile?.readAll() ?? response.body)
    }

    /// One request's response as the responder gave it, its body unread (a stream still to be
    /// produced); `request` reads it.
    public func response(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        remoteAddress: String = "127.0.0.1"
    ) -> HTTPResponse {
        let (path, query) = Self.split(target)
        let head = HTTPRequestHead(
            method: method, path: path, rawPath: String(target.prefix { $0 != "?" }), queryItems: query,
            headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }),
            remoteAddress: remoteAddress)
        switch responder.preflight(head) {
        case .refuse(let refusal): return refusal
        case .proceed(_, let plan, let maxBodyBytes):
            // The server refuses a body over preflight's limit before respond runs.
            if let maxBodyBytes, let body, body.count > maxBodyBytes {
                return responder.transportError(.bodyTooLarge(limit: maxBodyBytes), head: head)
            }
            // What the server would send: a held answer as its release gives it.
            return responder.respond(to: HTTPRequest(head: head, body: body ?? []), plan: plan).resolved()
        }
    }

    static func split(_ target: String) -> (path: String, query: [(name: String, value: String)]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        guard parts.count == 2, !parts[1].isEmpty else { return (path, []) }
        let query = parts[1].split(separator: "&").map { pair -> (name: String, value: String) in
            let sides = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(sides[0]), sides.count > 1 ? decode(sides[1]) : "")
        }
        return (path, query)
    }
}

public import KeychainCore
public import MicroHTTP

extension KeychainResponder {
    /// `GET /metrics` on the API port: needs the `metrics` capability, which reads no item (and
    /// `admin` does not imply it). Served locked too: metrics hold no secret.
    func readMetrics(_ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        guard token.has(.metrics) else { throw .missingEntitlement("token: the token lacks the metrics capability") }
        return Self.metricsResponse(metrics, keychains)
    }

    static func metricsResponse(_ metrics: KeychainMetrics, _ keychains: Keychains) -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: [(name: "Content-Type", value: KeychainMetrics.contentType)],
            body: metrics.exposition(keychains: keychains))
    }
}

/// The metrics listener (`serve --metrics-listen`): `GET /metrics` without a token, and nothing
/// else (404 for any other path, 405 for another method, in the API's error shape). It must be
/// bound where only the monitoring system reaches it: keychaind refuses a public or wildcard
/// address for it (docs/threat-model.md).
///
/// Its requests are neither counted in the request metrics nor audited: they are not API calls.
public final class MetricsResponder: HTTPResponder {
    private let keychains: Keychains
    private let metrics: KeychainMetrics

    public init(keychains: Keychains, metrics: KeychainMetrics) {
        self.keychains = keychains
        self.metrics = metrics
    }

    /// The one plan this responder hands itself: a scrape.
    private final class Scrape: Sendable {}
    private static let scrape = Scrape()

    public func preflight(_ head: HTTPRequestHead) -> HTTPPreflight {
        guard Route(path: head.rawPath) == .metrics else { return .refuse(APIError.noRoute(head.method, head.rawPath)) }
        guard head.method == "GET" else {
            return .refuse(
                APIError.methodNotAllowed(head.method, template: Route.metrics.template, allowed: Route.metrics.methods))
        }
        // A scrape has no body: one is refused (413) before it is read.
        return .proceed(.workerPool, plan: Self.scrape, maxBodyBytes: 0)
    }

    public func respond(to request: HTTPRequest, plan: (any HTTPPlan)?) -> HTTPResponse {
        KeychainResponder.metricsResponse(metrics, keychains)
    }

    public func transportError(_ error: HTTPTransportError, head: HTTPRequestHead?) -> HTTPResponse {
        KeychainResponder.transportResponse(error)
    }
}

import Foundation
public import KeychainCore
public import Logging
public import MicroHTTP

/// keychaind's server: the HTTP API on libmicrohttpd in front of its keychains, plus the
/// auto-lock timer. `keychaind serve` and the tests both build it with `init`.
public final class KeychainServer: Sendable {
    /// The default keychain.
    public let keychain: Keychain
    public let keychains: Keychains
    private let http: HTTPServer
    /// The metrics listener, when there is one: `GET /metrics` without a token.
    private let metricsHTTP: HTTPServer?
    private let timer: AutoLockTimer

    /// The bound port (useful with port 0).
    public var port: Int { http.port }
    /// The metrics listener's bound port, when there is one.
    public var metricsPort: Int? { metricsHTTP?.port }

    /// - Parameter metricsListener: where to serve `GET /metrics` without a token as well
    ///   (`serve --metrics-listen`); `nil`: only on the API port, to a token with `metrics`.
    public convenience init(
        keychain: Keychain, http configuration: HTTPServerConfiguration, api: APIConfiguration,
        metricsListener: HTTPServerConfiguration? = nil, logger: Logger
    ) throws {
        try self.init(
            keychains: Keychains(only: keychain), http: configuration, api: api, metricsListener: metricsListener,
            logger: logger)
    }

    public init(
        keychains: Keychains, http configuration: HTTPServerConfiguration, api: APIConfiguration,
        metricsListener: HTTPServerConfiguration? = nil, logger: Logger
    ) throws {
        let keychain = keychains.default
        self.keychain = keychain
        self.keychains = keychains
        var api = api
        let metrics = api.metrics ?? KeychainMetrics()
        api.metrics = metrics
        let responder = KeychainResponder(keychains: keychains, configuration: api, logger: logger)
        let http = try HTTPServer(configuration: configuration, responder: responder, logger: logger)
        // Weak: the server holds the responder, which holds the metrics.
        metrics.countConnections { [weak http] in http?.openConnections ?? 0 }
        self.http = http
        if let metricsListener {
            metricsHTTP = try HTTPServer(
                configuration: metricsListener, responder: MetricsResponder(keychains: keychains, metrics: metrics),
                logger: logger)
        } else {
            metricsHTTP = nil
        }
        timer = AutoLockTimer(keychains: keychains)
    }

    /// Stops accepting, lets in-flight requests finish, then drops every key and closes the store.
    public func shutdown() {
        timer.cancel()
        metricsHTTP?.shutdown()
        http.shutdown()
        keychains.close()
    }
}

/// Runs `checkAutoLock` four times a second: the keys leave memory even when no request
/// arrives, and on a shared store the other replicas' locks, unlocks and revocations arrive
/// within a second.
private final class AutoLockTimer: @unchecked Sendable {
    // @unchecked: the source is configured in init and afterwards only cancelled, which
    // Dispatch documents as thread-safe.
    private let source: any DispatchSourceTimer

    init(keychains: Keychains) {
        source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "keychaind.autolock"))
        source.schedule(deadline: .now(), repeating: .milliseconds(250))
        source.setEventHandler { keychains.checkAutoLock() }
        source.resume()
    }

    func cancel() { source.cancel() }
}

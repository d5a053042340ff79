import Foundation
public import KeychainCore
public import Logging
public import MicroHTTP

/// keychaind's server: the HTTP API on libmicrohttpd in front of one keychain, plus the
/// auto-lock timer. `keychaind serve` and the tests both build it with `init`.
public final class KeychainServer: Sendable {
    public let keychain: Keychain
    private let http: HTTPServer
    private let timer: AutoLockTimer

    /// The bound port (useful with port 0).
    public var port: Int { http.port }

    public init(keychain: Keychain, http configuration: HTTPServerConfiguration, api: APIConfiguration, logger: Logger) throws {
        self.keychain = keychain
        let responder = KeychainResponder(keychain: keychain, configuration: api, logger: logger)
        http = try HTTPServer(configuration: configuration, responder: responder, logger: logger)
        timer = AutoLockTimer(keychain: keychain)
    }

    /// Stops accepting, lets in-flight requests finish, then drops every key and closes the store.
    public func shutdown() {
        timer.cancel()
        http.shutdown()
        keychain.close()
    }
}

/// Runs `checkAutoLock` four times a second: the keys leave memory even when no request
/// arrives, and on a shared store the other replicas' locks, unlocks and revocations arrive
/// within a second.
private final class AutoLockTimer: @unchecked Sendable {
    // @unchecked: the source is configured in init and afterwards only cancelled, which
    // Dispatch documents as thread-safe.
    private let source: any DispatchSourceTimer

    init(keychain: Keychain) {
        source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "keychaind.autolock"))
        source.schedule(deadline: .now(), repeating: .milliseconds(250))
        source.setEventHandler { keychain.checkAutoLock() }
        source.resume()
    }

    func cancel() { source.cancel() }
}

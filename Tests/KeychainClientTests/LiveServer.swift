import Foundation
import KeychainAPI
import KeychainClient
import KeychainCore
import KeychainCrypto
import Logging
import MicroHTTP
import TestSupport

/// A keychaind server on 127.0.0.1 (a port of its own) over a new keychain, unlocked: what
/// the client tests talk to over real sockets.
final class LiveServer {
    let directory = TemporaryDirectory(prefix: "kcd-client")
    let keychain: Keychain
    let server: KeychainServer
    let adminToken: String
    let passphrase = testPassphrase

    var url: String { "http://127.0.0.1:\(server.port)" }

    init() throws {
        let logger = Logger(label: "client-test")
        keychain = try Keychain.open(.testing(directory.path), logger: logger)
        adminToken = try keychain.initialize(passphrase: SecureBytes(utf8: testPassphrase)).secret
        server = try KeychainServer(
            keychain: keychain, http: HTTPServerConfiguration(host: "127.0.0.1", port: 0), api: APIConfiguration(),
            metricsListener: nil, logger: logger)
    }

    deinit { server.shutdown() }

    /// A client with the admin token, or `token`.
    /// `followsEvents`: the cache follows the event stream (the default of a client's
    /// configuration; off here unless asked, so that the answers' own purges are tested alone).
    func client(
        token: String? = nil, cache: SecretCachePolicy? = nil, followsEvents: Bool = false, retry: RetryPolicy = .never
    ) throws -> KeychainClient {
        var configuration = KeychainClientConfiguration(url: url, token: try BearerToken(token ?? adminToken))
        configuration.cache = cache
        configuration.cacheFollowsEvents = followsEvents
        configuration.retry = retry
        return try KeychainClient(configuration)
    }
}

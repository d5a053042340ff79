import Foundation
import KeychainJSON
import NIOHTTP1

/// A connection to a keychaind server: every operation of the HTTP API as an async function.
///
/// One client keeps a pool of connections and, optionally, a cache of secrets; share one per
/// server and token across a process, and call ``shutdown()`` before the process ends.
public final class KeychainClient: Sendable {
    /// What the client was made with.
    public let configuration: KeychainClientConfiguration
    let transport: Transport
    let cache: SecretCache?
    /// With a cache that follows events: the task keeping it in step with the keychain.
    let follower: CacheFollower?

    /// The response header that states the keychain's lock state on every answer.
    static let stateHeader = "X-Keychain-State"

    /// A client as `configuration` says; throws `errSecParam` for a URL or CA file it cannot use.
    public init(_ configuration: KeychainClientConfiguration) throws(KeychainError) {
        self.configuration = configuration
        let transport = try Transport(configuration)
        let cache = configuration.cache.map(SecretCache.init)
        self.transport = transport
        self.cache = cache
        follower =
            configuration.cacheFollowsEvents
            ? cache.map { CacheFollower(transport: transport, token: configuration.token, cache: $0) } : nil
    }

    /// A client of the server at `url` with the token `token`.
    public convenience init(url: String, token: String? = nil, cache: SecretCachePolicy? = nil) throws(KeychainError) {
        var configuration = KeychainClientConfiguration(
            url: url, token: try token.map { t throws(KeychainError) in try BearerToken(t) })
        configuration.cache = cache
        try self.init(configuration)
    }

    /// A client configured by the environment (``KeychainClientConfiguration/fromEnvironment(_:)``).
    public static func fromEnvironment() throws(KeychainError) -> KeychainClient {
        try KeychainClient(.fromEnvironment())
    }

    /// Closes the connections. The client answers nothing after.
    public func shutdown() async {
        follower?.stop()
        cache?.removeAll()
        await transport.shutdown()
    }

    /// Forgets every cached secret now.
    public func purgeCache() {
        cache?.removeAll()
    }

    /// How many secrets the cache holds now (0 without a cache).
    public var cachedSecretCount: Int { cache?.count ?? 0 }

    // MARK: - Requests

    /// Sends `request`, retrying it when it is idempotent and failed in a way worth retrying,
    /// and returns a 2xx answer; any other answer is thrown as the error it states.
    func perform(_ request: Request) async throws(KeychainError) -> Response {
        let policy = configuration.retry
        var request = request
        if let prompt = Self.prompt { request.headers += prompt.headers }
        var attempt = 1
        while true {
            let failure: KeychainError
            let sent: Result<Response, KeychainError>
            do { sent = .success(try await transport.send(request, token: configuration.token)) } catch { sent = .failure(error) }
            switch sent {
            case .success(let response):
                observe(response, anonymous: request.anonymous)
                if (200..<300).contains(response.status) { return response }
                let retryAfter = response.header("Retry-After").flatMap { Int($0) }
                failure = KeychainError(answer: response.status, body: response.body, retryAfter: retryAfter)
                guard Self.worthRetrying(status: response.status, retryAfter: retryAfter) else { throw failure }
            case .failure(let error):
                failure = error
            }
            guard request.idempotent, attempt < policy.maxAttempts, failure.status == errSecNotAvailable else { throw failure }
            do {
                try await Task.sleep(for: policy.delay(after: attempt, retryAfter: failure.retryAfter))
            } catch {
                throw KeychainError(status: errSecUserCanceled, message: "request: cancelled while waiting to retry")
            }
            attempt += 1
        }
    }

    /// 502, 503 and 504 (a replica or the proxy could not serve it just now), and a 429 that
    /// says when to come back.
    private static func worthRetrying(status: Int, retryAfter: Int?) -> Bool {
        switch status {
        case 502, 503, 504: true
        case 429: retryAfter != nil
        default: false
        }
    }

    /// Empties the cache when an answer shows the keychain locked or the token refused.
    private func observe(_ response: Response, anonymous: Bool) {
        guard let cache else { return }
        if response.status == 423 || (response.status == 401 && !anonymous) || response.header(Self.stateHeader) == "locked" {
            cache.removeAll()
        }
    }

    /// Sends `request` and parses its JSON answer.
    func object(_ request: Request) async throws(KeychainError) -> JSONObject {
        let response = try await perform(request)
        return try Self.object(response.body)
    }

    static func object(_ body: [UInt8]) throws(KeychainError) -> JSONObject {
        guard let object = try? JSON.parse(body).objectValue else {
            throw .notAvailable("server: the answer is not a JSON object")
        }
        return object
    }

    static func jsonBody(_ object: JSONObject) -> [UInt8] { JSON.object(object).serialized() }
}

extension Request {
    static func get(_ path: String, query: [(name: String, value: String)] = []) -> Request {
        Request(method: .GET, path: path, query: query, idempotent: true)
    }

    static func post(_ path: String, _ object: JSONObject?, idempotent: Bool = false) -> Request {
        Request(method: .POST, path: path, body: object.map(KeychainClient.jsonBody), idempotent: idempotent)
    }

    static func put(_ path: String, _ object: JSONObject) -> Request {
        Request(method: .PUT, path: path, body: KeychainClient.jsonBody(object), idempotent: true)
    }

    static func patch(_ path: String, _ object: JSONObject) -> Request {
        Request(method: .PATCH, path: path, body: KeychainClient.jsonBody(object), idempotent: false)
    }

    /// A delete is not retried: after a lost answer, a second one would find nothing and say so.
    static func delete(_ path: String, _ object: JSONObject? = nil) -> Request {
        Request(method: .DELETE, path: path, body: object.map(KeychainClient.jsonBody), idempotent: false)
    }
}

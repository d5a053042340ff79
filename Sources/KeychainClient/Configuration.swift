public import Foundation

/// Where a ``KeychainClient`` connects, who it is, and how patient it is.
public struct KeychainClientConfiguration: Sendable {
    /// The server's base URL, `http://host:port` or `https://host:port` (a path prefix is kept,
    /// for a server behind a proxy at a sub-path).
    public var url: String
    /// The bearer token every request carries; `nil` only for what needs none (unlock, health).
    public var token: BearerToken?
    /// A PEM file of the certificate authorities that may sign an `https` server's certificate,
    /// trusted instead of the system's (as `curl --cacert`); `nil` trusts the system's.
    public var certificateAuthorityFile: String?
    /// The longest a request may take, each attempt.
    public var timeout: Duration = .seconds(10)
    /// The longest a connection may take to open.
    public var connectTimeout: Duration = .seconds(5)
    /// When and how often a failed idempotent request is tried again.
    public var retry: RetryPolicy = .init()
    /// A cache of secrets read, emptied when the keychain locks; `nil` (the default) keeps none.
    public var cache: SecretCachePolicy?
    /// With a cache: keep the keychain's event stream open (``KeychainClient/events(after:)``)
    /// and empty the cache on every event but an unlock, so that a lock or a change made by
    /// anyone empties it as it happens, not when an answer or `maxAge` next says so.
    public var cacheFollowsEvents = true
    /// The most connections kept open to the server at once.
    public var maxConnections: Int = 16

    /// A configuration for the server at `url`, with the defaults for everything else.
    public init(url: String, token: BearerToken? = nil, certificateAuthorityFile: String? = nil) {
        self.url = url
        self.token = token
        self.certificateAuthorityFile = certificateAuthorityFile
    }

    /// The default server: keychaind's default listening address.
    public static let defaultURL = "http://127.0.0.1:8700"

    /// The configuration the environment gives: `KEYCHAIND_URL` (default ``defaultURL``), the
    /// token from `KEYCHAIND_TOKEN` or the first line of the file `KEYCHAIND_TOKEN_FILE` names,
    /// and `KEYCHAIND_CA_FILE`.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(KeychainError) -> KeychainClientConfiguration {
        var configuration = KeychainClientConfiguration(url: environment["KEYCHAIND_URL"] ?? defaultURL)
        if let secret = environment["KEYCHAIND_TOKEN"], !secret.isEmpty {
            configuration.token = try BearerToken(secret, source: "KEYCHAIND_TOKEN")
        } else if let path = environment["KEYCHAIND_TOKEN_FILE"], !path.isEmpty {
            configuration.token = try BearerToken(file: path)
        }
        if let path = environment["KEYCHAIND_CA_FILE"], !path.isEmpty { configuration.certificateAuthorityFile = path }
        return configuration
    }
}

/// A bearer token (`kcd_…`). Its text never appears in a description, a log or an error.
public struct BearerToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let secret: String

    /// A token from its text; `source` names where it came from in an error about it.
    public init(_ secret: String, source: String = "token") throws(KeychainError) {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        // Printable ASCII only: a header value cannot carry anything else, and a control byte
        // would split the request.
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .param("\(source): a token is printable ASCII without spaces")
        }
        self.secret = trimmed
    }

    /// The token on the first line of the file at `path`.
    public init(file path: String) throws(KeychainError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .param("token file: \(path) cannot be read")
        }
        let firstLine = String(decoding: data.prefix { $0 != 0x0A }, as: UTF8.self)
        try self.init(firstLine, source: "token file \(path)")
    }

    public var description: String { "BearerToken(redacted)" }
    public var debugDescription: String { description }
}

/// Retries of requests that are safe to send twice (reads, lock, settings), after a lost
/// connection, a timeout, or an answer that says the server could not serve it just now
/// (502, 503, 504, 429 with `Retry-After`), with exponential backoff and full jitter. A write
/// is never retried: the first attempt may have been applied.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included: 1 never retries.
    public var maxAttempts: Int = 3
    /// The first backoff's upper bound; each retry doubles it.
    public var baseDelay: Duration = .milliseconds(100)
    /// The longest wait between attempts, `Retry-After` included.
    public var maxDelay: Duration = .seconds(2)

    /// A policy of `maxAttempts` in all (at least 1), waiting up to `baseDelay` before the first
    /// retry, doubling each time, never more than `maxDelay`.
    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(2)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// No retries.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// The wait before attempt `attempt + 1` (attempt counts from 1): a random duration up to
    /// the doubled base, or the server's `Retry-After` when it gave one, never over `maxDelay`.
    func delay(after attempt: Int, retryAfter: Int?) -> Duration {
        if let retryAfter { return min(.seconds(retryAfter), maxDelay) }
        let ceiling = min(baseDelay * (1 << min(attempt - 1, 16)), maxDelay)
        let nanoseconds = ceiling.components.seconds * 1_000_000_000 + ceiling.components.attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: 0...max(nanoseconds, 1)))
    }
}

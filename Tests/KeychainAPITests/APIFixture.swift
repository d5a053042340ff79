import Foundation
import KeychainCrypto
import Logging
import MicroHTTP
import TestSupport
import Testing

@testable import KeychainAPI
@testable import KeychainCore

/// A keychain and its API in a directory of its own. Requests go to the responder in process
/// (`call`); a test of what the transport does asks for `server`, started on 127.0.0.1, port 0,
/// when first used, and its `client()` or `socketCall`.
final class APIFixture {
    let directory: TemporaryDirectory
    let keychain: Keychain
    /// The server's keychains: `keychain`, and those created under its data directory.
    let keychains: Keychains
    let adminToken: String
    let logs = RecordingLogHandler.Store()
    private let logger: Logger
    private let http: HTTPServerConfiguration
    private let api: APIConfiguration
    let inProcess: InProcessClient
    /// The responder the in-process calls reach.
    var responder: any HTTPResponder { inProcess.responder }
    private var started: KeychainServer?
    /// The store, when the fixture was asked for one that can fail its writes.
    private(set) var faulty: FaultyStore?
    /// What the responder and the server count into, and `GET /metrics` shows.
    let metrics: KeychainMetrics
    private let metricsListener: HTTPServerConfiguration?

    /// `initialize: false` leaves the keychain uninitialized.
    init(
        initialize: Bool = true, kdf: KDFLimits = .insecureMinimumForTesting, maxBodyBytes: Int = 1 << 20,
        trustedProxies: [String] = [],
        anonymousLogLinesPerSecond: Int = 100, faulty: Bool = false, passphrase: String = testPassphrase,
        maxBundleBytes: Int? = nil, metrics: KeychainMetrics = KeychainMetrics(), metricsListener: Bool = false,
        configure: (inout KeychainConfiguration) -> Void = { _ in }
    ) throws {
        directory = TemporaryDirectory(prefix: "kcd-api")
        var configuration = KeychainConfiguration.testing(directory.path)
        configuration.kdfLimits = kdf
        configure(&configuration)
        let store = logs
        let logger = Logger(label: "test") { _ in RecordingLogHandler(store: store) }
        if faulty {
            let store = try FaultyStore(sqliteIn: directory.path)
            self.faulty = store
            keychain = try Keychain(configuration: configuration, store: store, logger: logger)
        } else {
            keychain = try Keychain.open(configuration, logger: logger)
        }
        adminToken = initialize ? try keychain.initialize(passphrase: SecureBytes(utf8: passphrase)).secret : ""
        keychains = try Keychains.onSQLite(keychain, logger: logger)
        var http = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        http.maxBodyBytes = maxBodyBytes
        // As keychaind serves: a bundle upload is spooled beside the keychain.
        http.spoolDirectory = directory.path
        var api = APIConfiguration()
        api.trustedProxies = trustedProxies
        api.anonymousLogLinesPerSecond = anonymousLogLinesPerSecond
        api.metrics = metrics
        self.metrics = metrics
        self.metricsListener = metricsListener ? HTTPServerConfiguration(host: "127.0.0.1", port: 0) : nil
        if let maxBundleBytes { api.maxBundleBytes = maxBundleBytes }
        self.logger = logger
        self.http = http
        self.api = api
        inProcess = InProcessClient(KeychainResponder(keychains: keychains, configuration: api, logger: logger))
    }

    /// The server's shutdown closes the keychain; without a server, the fixture does.
    deinit {
        if let started { started.shutdown() } else { keychains.close() }
    }

    /// The server on a socket, started when first asked for.
    var server: KeychainServer {
        get throws {
            if let started { return started }
            let server = try KeychainServer(
                keychains: keychains, http: http, api: api, metricsListener: metricsListener, logger: logger)
            started = server
            return server
        }
    }

    func client() throws -> RawHTTPClient { try RawHTTPClient(port: server.port) }

    /// One request over a new connection to `server`.
    func socketCall(_ method: String, _ target: String, json: String? = nil, headers: [(String, String)]? = nil) throws
        -> RawResponse
    {
        try client().request(method, target, headers: headers ?? auth, body: json.map { Array($0.utf8) })
    }

    var auth: [(String, String)] { [("Authorization", "Bearer \(adminToken)")] }

    /// One request to the responder in process, with the admin token unless `headers` are given.
    func call(
        _ method: String, _ target: String, json: String? = nil, headers: [(String, String)]? = nil,
        remoteAddress: String = "127.0.0.1"
    ) throws -> RawResponse {
        inProcess.request(
            method, target, headers: headers ?? auth, body: json.map { Array($0.utf8) }, remoteAddress: remoteAddress)
    }

    /// Creates a token over the API; returns its secret.
    func token(groups: [String], capabilities: [String] = ["read", "write", "delete", "list", "lock"]) throws -> String {
        let body = #"{"name":"t","accessGroups":\#(jsonArray(groups)),"capabilities":\#(jsonArray(capabilities))}"#
        let response = try call("POST", "/v1/tokens", json: body)
        #expect(response.status == 201)
        return try #require(response.json["token"]?.stringValue)
    }

    /// Adds a generic password; returns its persistent ref.
    @discardableResult
    func add(service: String, account: String = "u", secret: String = "c2VjcmV0", group: String? = nil, token: String? = nil)
        throws -> String
    {
        var body = #"{"class":"genericPassword","service":"\#(service)","account":"\#(account)","valueData":"\#(secret)""#
        if let group { body += #","accessGroup":"\#(group)""# }
        body += "}"
        let headers = token.map { [("Authorization", "Bearer \($0)")] }
        let response = try call("POST", "/v1/items", json: body, headers: headers)
        #expect(response.status == 201, "\(response.text)")
        return try #require(response.items.first?["persistentRef"]?.stringValue)
    }
}

func jsonArray(_ values: [String]) -> String { "[" + values.map { "\"\($0)\"" }.joined(separator: ",") + "]" }

extension RawResponse {
    var json: JSONObject { (try? JSON.parse(body))?.objectValue ?? [:] }
    var items: [JSONObject] { json["items"]?.arrayValue?.compactMap(\.objectValue) ?? [] }

    /// Asserts the error shape (docs/semantics.md §5) and returns the OSStatus.
    @discardableResult
    func expectError(_ http: Int, _ status: Int64, naming key: String? = nil, sourceLocation: SourceLocation = #_sourceLocation)
        -> Bool
    {
        #expect(self.status == http, "\(text)", sourceLocation: sourceLocation)
        #expect(json["status"] == .int(status), "\(text)", sourceLocation: sourceLocation)
        #expect(json["error"]?.stringValue?.hasPrefix("errSec") == true, sourceLocation: sourceLocation)
        #expect(header("Content-Type") == "application/json", sourceLocation: sourceLocation)
        if let key {
            #expect(
                json["message"]?.stringValue?.contains(key) == true, "\(text) does not name \(key)",
                sourceLocation: sourceLocation)
        }
        return self.status == http
    }
}

extension APIFixture {
    /// One request whose body is `body`'s bytes, with `contentType` and `token` (the admin token
    /// when `nil`, unless `headers` carry another `Authorization`).
    func call(
        _ method: String, _ target: String, body: [UInt8], contentType: String, headers: [(String, String)] = [],
        token: String? = nil
    ) -> RawResponse {
        let authorization =
            token.map { [("Authorization", "Bearer \($0)")] } ?? (headers.contains { $0.0 == "Authorization" } ? [] : auth)
        return inProcess.request(method, target, headers: authorization + [("Content-Type", contentType)] + headers, body: body)
    }
}

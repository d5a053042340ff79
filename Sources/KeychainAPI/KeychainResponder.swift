import KeychainAudit
public import KeychainCore
import KeychainCrypto
import KeychainJSON
import KeychainLog
public import Logging
public import MicroHTTP
import Synchronization

/// The keychaind API: routes each request to the keychain and answers in JSON.
///
/// Runs on libmicrohttpd's threads; holds only Sendable state.
public final class KeychainResponder: HTTPResponder {
    /// The default keychain: the server's tokens, and the keychain of a route that names none
    /// to a caller without a token.
    let keychain: Keychain
    let keychains: Keychains
    let logger: Logger
    private let clients: ClientAddress
    let unlockThrottle: AddressThrottle
    private let anonymousLines: LogBudget
    private let accessLogWriter: LogWriter?
    /// What follows the timestamp in an access line, up to its message, rendered once.
    private let accessLinePrefix: [UInt8]
    let auditLog: AuditLog?
    let metrics: KeychainMetrics
    let maxBundleBytes: Int
    /// Vault KV mounts and their access groups (`APIConfiguration.kvMounts`).
    let kvMounts: [String: String]
    let requestIDs = RequestIDs()
    /// Whether a backup's copy is being taken (`POST /v1/keychain/backup`, one at a time).
    let backupInProgress = Atomic<Bool>(false)
    /// The server log's line about an audit log that cannot be written: at most one a second.
    let auditFailures = LogBudget(perSecond: 1)
    let clock = SystemClock()

    public convenience init(keychain: Keychain, configuration: APIConfiguration, logger: Logger) {
        self.init(keychains: Keychains(only: keychain), configuration: configuration, logger: logger)
    }

    public init(keychains: Keychains, configuration: APIConfiguration, logger: Logger) {
        self.keychains = keychains
        self.keychain = keychains.default
        self.logger = logger
        clients = ClientAddress(trustedProxies: Set(configuration.trustedProxies))
        unlockThrottle = AddressThrottle(capacity: configuration.unlockAddressCapacity)
        anonymousLines = LogBudget(perSecond: configuration.anonymousLogLinesPerSecond)
        accessLogWriter = configuration.accessLogWriter
        accessLinePrefix = LogWriter.linePrefix(level: .info, label: logger.label, source: "KeychainAPI")
        auditLog = configuration.auditLog
        metrics = configuration.metrics ?? KeychainMetrics()
        maxBundleBytes = configuration.maxBundleBytes
        kvMounts = configuration.kvMounts
    }

    // MARK: HTTPResponder

    /// What preflight found: the route, and the caller's token (none on public routes).
    final class Plan: Sendable {
        let route: Route
        let token: AccessToken?

        init(route: Route, token: AccessToken?) {
            self.route = route
            self.token = token
        }
    }

    /// Routes, checks the method, authenticates, and checks the token's capabilities for the
    /// route (`admit`), once per request and before any body is read. Unlocks' and passphrase
    /// changes' Argon2id goes to the serial worker, imports' and exports' derivations to the
    /// transfer worker; durable writes to the pool, where concurrent ones commit together and a
    /// polling thread never waits for fsync, and backups (seconds of copying) there too; reads
    /// stay on the polling thread.
    ///
    /// Routes on the path as sent (`rawPath`), as a proxy in front does: `/v1/keychain%2flock` is
    /// not the lock route (the transport refuses `%2F` and `%00` in a path before this runs), and
    /// no percent-escape is decoded in a route's fixed segments; a persistent ref or a token id
    /// (URL-safe base64, `tok_` and hex: nothing to escape) is taken as sent.
    public func preflight(_ head: HTTPRequestHead) -> HTTPPreflight {
        guard let route = Route(path: head.rawPath) else {
            return .refuse(finish(head, route: nil, token: nil, APIError.noRoute(head.method, head.rawPath)))
        }
        guard route.methods.contains(head.method) else {
            return .refuse(
                finish(
                    head, route: route, token: nil,
                    APIError.methodNotAllowed(head.method, template: route.template, allowed: route.methods)))
        }
        // A locked keychain is a sealed Vault, before any token is looked at.
        if route.isVault, keychain.state != .unlocked { return .refuse(finish(head, route: route, token: nil, Self.sealed)) }
        // The keychain's passphrase for access objects is verified as an unlock's: Argon2id.
        let prompts = Self.carriesPrompt(head)
        let execution: HTTPExecution =
            if route.runsKDF(method: head.method) || prompts {
                route.transfers ? .transferWorker : .serialWorker
            } else if route.answersLater(method: head.method), Self.wantsPKCS12(head) {
                // A PKCS#12 answer is sealed with PBKDF2: never on a polling thread.
                .workerPool
            } else if route.answersLater(method: head.method),
                route.adds(method: head.method) ? keychain.addsAnswerLater : keychain.answersLater
            {
                .deferred
            } else {
                // A lock waits (boundedly) for its event to reach the subscribers.
                route.writes(method: head.method) || route.copiesDatabase || route.scansStore || route == .lock
                    ? .workerPool : .pollingThread
            }
        // A passphrase's body is small: a larger one is refused before it is read, let alone parsed.
        // An import's is a bundle (`largeBodyLimit(for:)`).
        let bodyLimit =
            route.runsKDF(method: head.method) && route != .importBundle && route != .itemsImport ? Self.passphraseBodyLimit : nil
        if route.isPublic || (route == .keychain && keychain.state == .uninitialized) {
            if route == .unlock, let wait = unlockThrottle.admit(throttleKey(head, keychain: keychain.name), now: clock.now()) {
                metrics.countAddressThrottled()
                return .refuse(
                    finish(
                        head, route: route, token: nil,
                        APIError.response(.unlockThrottled(retryAfter: wait))))
            }
            if let refusal = unauditable(head, route: route) { return .refuse(finish(head, route: route, token: nil, refusal)) }
            return .proceed(execution, plan: Plan(route: route, token: nil), maxBodyBytes: bodyLimit)
        }
        let token: AccessToken
        do { token = try authenticate(head) } catch {
            return .refuse(finish(head, route: route, token: nil, APIError.response(error)))
        }
        do { try admit(route, method: head.method, head: head, token: token) } catch {
            return .refuse(finish(head, route: route, token: token, APIError.response(error)))
        }
        if case .namedUnlock(let name) = route,
            let wait = unlockThrottle.admit(throttleKey(head, keychain: name), now: clock.now())
        {
            metrics.countAddressThrottled()
            return .refuse(finish(head, route: route, token: token, APIError.response(.unlockThrottled(retryAfter: wait))))
        }
        if prompts, let wait = unlockThrottle.admit(throttleKey(head, keychain: promptedKeychain(token)), now: clock.now()) {
            metrics.countAddressThrottled()
            return .refuse(finish(head, route: route, token: token, APIError.response(.unlockThrottled(retryAfter: wait))))
        }
        if let refusal = unauditable(head, route: route) { return .refuse(finish(head, route: route, token: token, refusal)) }
        return .proceed(execution, plan: Plan(route: route, token: token), maxBodyBytes: bodyLimit)
    }

    public func respond(to request: HTTPRequest, plan: (any HTTPPlan)?) -> HTTPResponse {
        guard let plan = Self.plan(plan) else {
            return APIError.response(.notAvailable("request: answered without its preflight"))
        }
        var response: HTTPResponse
        do {
            let token = try prompting(request.head, plan.token)
            response = try handle(plan.route, request, token: token)
            if let token, let prompt = token.prompt, prompt.isVerified(for: promptedKeychain(token)) {
                // The right passphrase: the address's count of attempts starts again, as an unlock's.
                unlockThrottle.succeeded(throttleKey(request.head, keychain: promptedKeychain(token)))
            }
            if response.status < 300 {
                response.touched += try applyAlwaysAllow(request.head, route: plan.route, token: token)
            }
        } catch {
            response = APIError.response(error)
        }
        return finish(request.head, body: request.body, route: plan.route, token: plan.token, response)
    }

    /// Searches reply when the store has read, adds when it has committed (several requests
    /// share a database round trip); other routes at once.
    public func respond(to request: HTTPRequest, plan: (any HTTPPlan)?, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let plan = Self.plan(plan) else {
            return reply(APIError.response(.notAvailable("request: answered without its preflight")))
        }
        let head = request.head
        // A request with a prompt runs whole, here, on the worker its preflight chose.
        if Self.carriesPrompt(head) { return reply(respond(to: request, plan: plan)) }
        let answer = { @Sendable [self] (outcome: Result<HTTPResponse, KeychainError>) in
            let response: HTTPResponse
            switch outcome {
            case .success(let success): response = success
            case .failure(let error): response = APIError.response(error)
            }
            reply(finish(head, body: request.body, route: plan.route, token: plan.token, response))
        }
        if let token = plan.token, plan.route == .items, head.method == "POST" {
            return add(request, token, reply: answer)
        }
        do {
            guard let token = plan.token, let search = try searchRequest(plan.route, request), !search.answersAtOnce else {
                return answer(Result { () throws(KeychainError) in try handle(plan.route, request, token: plan.token) })
            }
            keychains.search(search.query, token: token) { outcome in
                answer(outcome.flatMap { page in Result { () throws(KeychainError) in try search.response(page) } })
            }
        } catch {
            answer(.failure(error))
        }
    }

    /// Preflight's plan, handed back unchanged by the server. Checked by exact type (Plan is
    /// final), which spares a dynamic cast's conformance lookup on every request.
    private static func plan(_ plan: (any HTTPPlan)?) -> Plan? {
        guard let object = plan, type(of: object) == Plan.self else { return nil }
        return unsafeDowncast(object, to: Plan.self)
    }

    /// An import's body is a migration bundle: up to `maxBundleBytes`.
    public func largeBodyLimit(for head: HTTPRequestHead) -> Int? {
        head.method == "POST" && Route(path: head.rawPath) == .importBundle ? maxBundleBytes : nil
    }

    public func transportError(_ error: HTTPTransportError, head: HTTPRequestHead?) -> HTTPResponse {
        let response = Self.transportResponse(error)
        if let head {
            return finish(head, route: Route(path: head.rawPath), token: nil, response)
        }
        return response
    }

    /// The answer to a refusal by the transport, in the API's error shape.
    static func transportResponse(_ error: HTTPTransportError) -> HTTPResponse {
        switch error {
        case .malformedFraming(let reason): APIError.response(.param("framing: \(reason)"))
        case .bodyTooLarge(let limit): APIError.response(.dataTooLarge("body: larger than the limit of \(limit) bytes"))
        case .serialWorkerBusy(let waiting):
            derivationsBusy(waiting: waiting)
        case .transferWorkerBusy(let waiting):
            transfersBusy(waiting: waiting)
        case .spoolFailed:
            APIError.response(.notAvailable("body: the upload could not be written to its spool file; retry later"))
        case .malformedHead(let field, let reason): APIError.response(.param("\(field): \(reason)"))
        case .requestTargetTooLong(let reason): APIError.response(.param("request-target: \(reason)"), httpStatus: 414)
        case .tooManyConnections(let limit):
            APIError.response(
                .notAvailable("connection: this address already holds \(limit) connections, none of them idle; retry after 1 s"),
                httpStatus: 503, headers: [(name: "Retry-After", value: "1")])
        }
    }

    /// The response header that carries the keychain's lock state.
    public static let stateHeader = "X-Keychain-State"

    /// The largest body of an unlock or a passphrase change: a JSON object of one or two passphrases.
    public static let passphraseBodyLimit = 4096

    /// 429 while `waiting` derivations wait, with a `Retry-After` for them: about half a second
    /// each on this build's limits, rounded up.
    static func derivationsBusy(waiting: Int) -> HTTPResponse {
        let seconds = (waiting + 2) / 2
        return APIError.response(
            .notAvailable(
                "passphrase: \(waiting) passphrase derivations (Argon2id, one at a time) are already waiting; retry after \(seconds) s"
            ),
            httpStatus: 429, headers: [(name: "Retry-After", value: String(seconds))])
    }

    /// 429 while `waiting` imports or exports wait for the transfer worker, with a `Retry-After`.
    static func transfersBusy(waiting: Int) -> HTTPResponse {
        let seconds = (waiting + 2) / 2
        return APIError.response(
            .notAvailable("body: \(waiting) imports or exports (one at a time) are already waiting; retry after \(seconds) s"),
            httpStatus: 429, headers: [(name: "Retry-After", value: String(seconds))])
    }

    // MARK: dispatch

    private func handle(_ route: Route, _ request: HTTPRequest, token: AccessToken?) throws(KeychainError) -> HTTPResponse {
        switch (route, request.head.method) {
        case (.items, "POST"): try add(request, token!)
        case (.items, "GET"), (.itemsSearch, "POST"): try search(request, token!)
        case (.items, "PATCH"): try update(request, token!)
        case (.items, "DELETE"): try delete(request, token!)
        case (.item(let ref), "GET"): try getItem(ref, request, token!)
        case (.item(let ref), "PATCH"): try patchItem(ref, request, token!)
        case (.item(let ref), "DELETE"): try deleteItem(ref, request, token!)
        case (.keychain, _), (.namedKeychain, "GET"): try status(token, keychain(for: route, token: token))
        case (.lock, _), (.namedLock, _): try lock(token!, keychain(for: route, token: token))
        case (.unlock, _), (.namedUnlock, _): try unlock(request, keychain(for: route, token: token))
        case (.passphrase, _), (.namedPassphrase, _): try changePassphrase(request, token!, keychain(for: route, token: token))
        case (.settings, "GET"), (.namedSettings, "GET"): try settings(token!, keychain(for: route, token: token))
        case (.settings, _), (.namedSettings, _): try putSettings(request, token!, keychain(for: route, token: token))
        case (.keychains, "POST"): try createKeychain(request, token!)
        case (.keychains, _): listKeychains(token!)
        case (.namedKeychain(let name), _): try deleteKeychain(name, request, token!)
        case (.lockAll, _): try lockAll(token!)
        case (.exportBundle, _): try exportBundle(request, token!)
        case (.importBundle, _): try importBundle(request, token!)
        case (.itemsImport, _): try importItems(request, token!)
        case (.backup, _): try backup(request, token!)
        case (.tokens, "POST"): try createToken(request, token!)
        case (.tokens, _): try listTokens(token!)
        case (.tokenSelf, _): Self.json(200, token!.json)
        case (.token(let id), _): try revokeToken(id, token!)
        case (.health, _): health(request)
        case (.metrics, _): try readMetrics(token!)
        case (.kvData(let mount, let path), _): try kvData(mount, path, request, token!)
        case (.kvMetadata(let mount, let path), _): try kvMetadata(mount, path, request, token!)
        case (.vaultMounts, _): vaultMounts(token!)
        case (.vaultMountOf(let path), _): try vaultMountOf(path, request, token!)
        case (.vaultTokenSelf, _): vaultTokenSelf(request, token!)
        case (.events, _): events(request, token!)
        case (.keys, _): try generateKey(request, token!)
        case (.keyAction(let action), _): try useKey(action, request, token!)
        case (.itemAccess(let ref), _): try itemAccess(ref, request, token!)
        case (.accessCreate, _): try makeAccess(request)
        default: throw .unimplemented("method: \(request.head.method) on \(route.template)")
        }
    }

    // MARK: helpers

    private func authenticate(_ head: HTTPRequestHead) throws(KeychainError) -> AccessToken {
        // On the header's bytes: the secret is hashed where it lies, never copied into a String
        // unless the token cache misses.
        let outcome = Self.withPresentedToken(head) { credentials in
            Result { () throws(KeychainError) in
                guard let credentials else { throw Keychain.invalidToken }
                return try keychain.authenticate(bearer: credentials)
            }
        }
        guard let outcome else { throw Keychain.invalidToken }
        return try outcome.get()
    }

    /// Calls `body` with the token the request presents: the credentials of `Authorization:
    /// Bearer` (`nil` for another scheme), or, when there is no `Authorization`, the whole
    /// `X-Vault-Token` (Vault's clients send it alone). `nil` without either header.
    static func withPresentedToken<R>(_ head: HTTPRequestHead, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R? {
        head.headers.withFirstValue(lowercased: "authorization") { body(bearerCredentials($0)) }
            ?? head.headers.withFirstValue(lowercased: "x-vault-token", body)
    }

    /// The token the request presents, as bytes (see `withPresentedToken`).
    static func presentedToken(_ head: HTTPRequestHead) -> [UInt8]? { withPresentedToken(head) { $0.map(Array.init) } ?? nil }

    /// The credentials of an `Authorization` value: after `Bearer ` (the scheme in any ASCII
    /// case), without surrounding spaces; `nil` for another scheme or no credentials.
    static func bearerCredentials(_ value: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        let scheme: StaticString = "bearer "
        let schemeLength = scheme.utf8CodeUnitCount
        guard value.count > schemeLength else { return nil }
        for n in 0..<schemeLength where value[n].asciiLowercased != scheme.utf8Start[n] { return nil }
        var start = schemeLength
        var end = value.count
        while start < end, value[start] == 0x20 { start += 1 }
        while end > start, value[end - 1] == 0x20 { end -= 1 }
        return start < end ? UnsafeBufferPointer(rebasing: value[start..<end]) : nil
    }

    func client(_ head: HTTPRequestHead) -> String {
        clients.resolve(peer: head.remoteAddress, forwardedFor: head.headers.values("X-Forwarded-For"))
    }

    /// Counts the request (`RequestMetrics`), logs its one line and returns the response. Never a
    /// secret, a token or a query value.
    /// What the client wrote (the method, an `X-Forwarded-For` hop) is bounded and escaped
    /// (`LogText`): no control byte, no space, no more than a few dozen bytes of it.
    ///
    /// The line's fields are in its message, built in one string: a metadata dictionary per
    /// request (hashed, sorted and printed by the handler) cost more than the rest of the line.
    ///
    /// An answer carrying a secret, or a change's success, while an audit log is kept is held
    /// (`HTTPResponse.held`): sent, counted and logged on the polling thread's next pass, once
    /// its audit line is written with those of the other requests of the pass, or refused with
    /// 503 if it cannot be.
    private func finish(
        _ head: HTTPRequestHead, body: [UInt8]? = nil, route: Route?, token: AccessToken?, _ answer: consuming HTTPResponse
    ) -> HTTPResponse {
        var response = consume answer
        // Vault's routes answer errors in Vault's shape.
        if let route, route.isVault, response.status >= 400 { response = Self.vaultError(response) }
        // The lock state on every answer to a token, so that a client's cache of secrets empties
        // itself when the keychain locks (docs/clients.md#the-cache).
        if let token, let keychain = try? keychains.defaultKeychain(for: token) {
            response.headers.append((name: Self.stateHeader, value: keychain.state.rawValue))
        }
        let address = client(head)
        guard let auditLog, let line = audited(head, body: body, route: route, token: token, client: address, response) else {
            return accounted(head, route: route, token: token, client: address, response)
        }
        let held = HeldResponse(consume response)
        return .held { [self] in
            guard auditLog.written(line), let answer = held.take() else {
                let change = route?.changes(method: head.method) == true
                return accounted(head, route: route, token: token, client: address, auditRefusal(afterChange: change))
            }
            return accounted(head, route: route, token: token, client: address, consume answer)
        }
    }

    /// A response waiting for its audit line (`finish`), moved in and out, never copied: the
    /// closure that held it captured it by copy, and copied it again to return it, a retain and a
    /// release of each of its fields each time, every answer carrying a secret.
    private final class HeldResponse: Sendable {
        private let response: Mutex<HTTPResponse?>

        init(_ response: consuming HTTPResponse) {
            self.response = Mutex(consume response)
        }

        /// The response, once; `nil` after.
        func take() -> HTTPResponse? {
            response.withLock { $0.take() }
        }
    }

    /// Counts the request and logs its line, once its answer is known (`finish`).
    private func accounted(
        _ head: HTTPRequestHead, route: Route?, token: AccessToken?, client address: String, _ response: consuming HTTPResponse
    ) -> HTTPResponse {
        let nanoseconds = HTTPRequestHead.monotonicNanoseconds() &- head.receivedAt
        metrics.requests.record(route: route, method: head.method, status: response.status, nanoseconds: nanoseconds)
        let template = route?.template ?? "-"
        guard logger.logLevel <= .info else { return response }
        if token == nil, !anonymousLines.admit(logger, leftOut: "access lines of requests without a token left out") {
            return response
        }
        let micros = nanoseconds / 1000
        // The status alone is captured: capturing the response would copy it. The closure is
        // written at the call, not kept in a local: one kept in a local had its captures boxed on
        // the heap for every request.
        let status = response.status
        if let accessLogWriter {
            accessLogWriter.append(level: .info, prefix: accessLinePrefix) { line in
                Self.accessLine(into: &line, head.method, template, status, micros, token?.id, address)
            }
        } else {
            var line: [UInt8] = []
            Self.accessLine(into: &line, head.method, template, status, micros, token?.id, address)
            logger.info("\(String(decoding: line, as: UTF8.self))")
        }
        return response
    }

    /// `request http.method=GET http.route=/v1/items http.status=200 http.duration_us=17
    /// token.id=tok_… client.address=127.0.0.1`, the client's text sanitized and bounded.
    static func accessLine(
        into line: inout [UInt8], _ method: String, _ template: String, _ status: Int, _ micros: UInt64, _ tokenID: String?,
        _ address: String
    ) {
        line.appendLiteral("request http.method=")
        LogText.append(method, maxBytes: LogText.maxMethodBytes, to: &line)
        line.appendLiteral(" http.route=")
        line.append(contentsOf: template.utf8)
        line.appendLiteral(" http.status=")
        line.appendDecimal(status)
        line.appendLiteral(" http.duration_us=")
        line.appendDecimal(micros)
        line.appendLiteral(" token.id=")
        line.append(contentsOf: (tokenID ?? "-").utf8)
        line.appendLiteral(" client.address=")
        LogText.append(address, maxBytes: LogText.maxAddressBytes, to: &line)
    }
}

extension UInt8 {
    fileprivate var asciiLowercased: UInt8 { self >= 0x41 && self <= 0x5A ? self | 0x20 : self }
}

extension String {
    /// Without leading and trailing spaces (U+0020 only); itself when there are none.
    var trimmingSpaces: String {
        let space = UInt8(ascii: " ")
        guard utf8.first == space || utf8.last == space else { return self }
        var s = self[...]
        while s.utf8.first == space { s = s.dropFirst() }
        while s.utf8.last == space { s = s.dropLast() }
        return String(s)
    }
}

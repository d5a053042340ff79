import KeychainCore
import KeychainCrypto
import KeychainJSON
import MicroHTTP

extension KeychainResponder {
    /// `GET /v1/keychain`: SecKeychainGetStatus bits plus state, lockInterval and, with a token,
    /// a count of the token's own items.
    func status(_ token: AccessToken?, _ keychain: Keychain) throws(KeychainError) -> HTTPResponse {
        Self.json(200, try statusJSON(token, keychain))
    }

    func statusJSON(_ token: AccessToken?, _ keychain: Keychain) throws(KeychainError) -> JSON {
        let state = keychain.state
        let unlocked = state == .unlocked
        let initialized = state != .uninitialized
        var status: JSONObject = [
            "name": .string(keychain.name), "state": .string(state.rawValue), "initialized": .bool(initialized),
            "unlocked": .bool(unlocked),
            "readable": .bool(initialized), "writable": .bool(initialized),
            "status": .int((unlocked ? 1 : 0) | (initialized ? 6 : 0)), "lockInterval": .int(Int64(keychain.lockInterval)),
        ]
        // Only the token's own groups are counted, so the count reveals nothing it may not see.
        if let token { status["items"] = .int(Int64(try keychain.countItems(token: token))) }
        let replicas = keychain.replicaCount
        status["replicas"] = .object(["live": .int(Int64(replicas.live)), "unlocked": .int(Int64(replicas.unlocked))])
        return .object(status)
    }

    /// `POST /v1/keychain/lock`: the keys are gone before the response is sent.
    func lock(_ token: AccessToken, _ keychain: Keychain) throws(KeychainError) -> HTTPResponse {
        guard token.has(.lock) else { throw .missingEntitlement("Authorization: the token lacks the lock capability") }
        if let event = try keychain.lock() {
            // Subscribers purge what they cached before the lock is answered, within a bound: a
            // subscriber that does not read holds it up no longer than that.
            keychain.events.awaitDelivery(of: event, timeoutMilliseconds: Self.lockEventWaitMilliseconds)
        }
        return try status(token, keychain)
    }

    /// `POST /v1/keychains/lock-all` (SecKeychainLockAll): every keychain of the token's search
    /// list, each as `lock` does; answers their names and states.
    func lockAll(_ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        guard token.has(.lock) else { throw .missingEntitlement("Authorization: the token lacks the lock capability") }
        let locked = try keychains.lockAll(for: token)
        if let last = locked.lastEvent {
            keychain.events.awaitDelivery(of: last, timeoutMilliseconds: Self.lockEventWaitMilliseconds)
        }
        return Self.json(200, .object(["keychains": .array(locked.keychains.map(Self.summary))]))
    }

    /// `POST /v1/keychain/unlock` `{"passphrase": "…"}`: no token; runs off the polling threads.
    /// Preflight counted the attempt against the client's address; the right passphrase clears it.
    func unlock(_ request: HTTPRequest, _ keychain: Keychain) throws(KeychainError) -> HTTPResponse {
        let passphrase = try Self.passphrases(request, keys: ["passphrase"])[0]
        try keychain.unlock(passphrase: passphrase, from: .network)
        unlockThrottle.succeeded(throttleKey(request.head, keychain: keychain.name))
        return Self.json(200, try statusJSON(nil, keychain))
    }

    /// What the address throttle counts an unlock's failures by: the client, and the keychain
    /// unless it is `default`, so that each keychain's failures count only against it.
    func throttleKey(_ head: HTTPRequestHead, keychain name: String) -> String {
        let address = client(head)
        return name.isSameBytes(as: KeychainName.default) ? address : address + " " + name
    }

    /// `POST /v1/keychain/passphrase` `{"old": "…", "new": "…"}`: re-wraps keys only.
    func changePassphrase(_ request: HTTPRequest, _ token: AccessToken, _ keychain: Keychain) throws(KeychainError)
        -> HTTPResponse
    {
        try keychain.requireKeychainAdmin(token, for: "changing the passphrase")
        let passphrases = try Self.passphrases(request, keys: ["old", "new"])
        try keychain.changePassphrase(old: passphrases[0], new: passphrases[1])
        return HTTPResponse(status: 204)
    }

    func settings(_ token: AccessToken, _ keychain: Keychain) throws(KeychainError) -> HTTPResponse {
        Self.json(200, .object(["lockInterval": .int(Int64(keychain.lockInterval))]))
    }

    /// `PUT /v1/keychain/settings` `{"lockInterval": seconds}`.
    func putSettings(_ request: HTTPRequest, _ token: AccessToken, _ keychain: Keychain) throws(KeychainError)
        -> HTTPResponse
    {
        try keychain.requireKeychainAdmin(token, for: "changing the settings")
        let body = try Self.bodyObject(request)
        for key in body.keys where key != "lockInterval" { throw .param("\(key): unknown setting") }
        guard let value = body["lockInterval"] else { throw .param("lockInterval: required") }
        guard let seconds = value.intValue, case .int = value else { throw .param("lockInterval: expected an integer") }
        try keychain.setLockInterval(Int(clamping: seconds))
        return try settings(token, keychain)
    }

    /// `GET|HEAD /v1/health`: 200 unlocked, 503 locked, uninitialized or with the store out of
    /// reach; `?lockedcode=` overrides the locked code with any 200…599 status that carries a
    /// body (not 204, 205 or 304).
    func health(_ request: HTTPRequest) -> HTTPResponse {
        let reachable = keychain.storeIsReachable()
        let state = keychain.state
        var status = state == .unlocked && reachable ? 200 : 503
        if reachable, state == .locked,
            let code = request.head.queryItems.first(where: { $0.name == "lockedcode" }).flatMap({ Int($0.value) }),
            (200...599).contains(code), ![204, 205, 304].contains(code)
        {
            status = code
        }
        return Self.json(
            status,
            .object([
                "initialized": .bool(state != .uninitialized), "state": .string(state.rawValue),
                "storage": .string(reachable ? "ok" : "unavailable"),
            ]))
    }

    /// The passphrases of a body that names exactly `keys`, each a string, copied from where they
    /// lie in the body (or from their decoded escapes, zeroed after) into secure memory: never a
    /// `String`, which cannot be wiped. An empty passphrase is a wrong one (errSecAuthFailed,
    /// counted), as Apple's tests and docs/semantics.md §1 say; only a new passphrase must not be empty,
    /// which the keychain checks.
    static func passphrases(_ request: HTTPRequest, keys: [String]) throws(KeychainError) -> [SecureBytes] {
        if isBlank(request.body) { throw emptyBody }
        var found = [SecureBytes?](repeating: nil, count: keys.count)
        var problem: KeychainError?
        do throws(JSONParseError) {
            try JSON.forEachMember(ofObject: request.body) { key, value in
                guard problem == nil else { return }
                guard let n = keys.firstIndex(of: key) else {
                    problem = .param("\(key): unknown key")
                    return
                }
                guard let value else {
                    problem = .param("\(key): expected a string")
                    return
                }
                do throws(CryptoError) { found[n] = try SecureBytes(copying: UnsafeRawBufferPointer(value)) } catch {
                    problem = .notAvailable("secure memory: \(error.message)")
                }
            }
        } catch {
            throw .param("body: invalid JSON: \(error.description)")
        }
        if let problem { throw problem }
        var passphrases: [SecureBytes] = []
        for (key, value) in zip(keys, found) {
            guard let value else { throw .param("\(key): expected a string") }
            passphrases.append(value)
        }
        return passphrases
    }
}

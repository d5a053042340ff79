public import Foundation
import KeychainJSON

/// The keychain's state as `GET /v1/keychain` answers it (SecKeychainGetStatus and more).
public struct KeychainStatus: Sendable, Equatable {
    /// The keychain's name (`default` for the first).
    public let name: String
    /// `uninitialized`, `locked` or `unlocked`.
    public let state: String
    /// SecKeychainGetStatus's bits: 1 unlocked, 2 readable, 4 writable.
    public let status: Int
    /// Seconds without use after which the keychain locks itself; 0 never.
    public let lockInterval: Int
    /// The items the token can see, when asked with a token.
    public let items: Int?
    /// Replicas seen alive and unlocked (1 and 1 for a single server).
    public let liveReplicas: Int?
    /// Replicas seen unlocked.
    public let unlockedReplicas: Int?

    /// Whether the keychain is unlocked.
    public var isUnlocked: Bool { state == "unlocked" }

    init(_ object: JSONObject) {
        let replicas = object["replicas"]?.objectValue
        name = object["name"]?.stringValue ?? "default"
        state = object["state"]?.stringValue ?? ""
        status = Int(object["status"]?.intValue ?? 0)
        lockInterval = Int(object["lockInterval"]?.intValue ?? 0)
        items = object["items"]?.intValue.map { Int($0) }
        liveReplicas = replicas?["live"]?.intValue.map { Int($0) }
        unlockedReplicas = replicas?["unlocked"]?.intValue.map { Int($0) }
    }
}

/// A keychain as `GET /v1/keychains` lists it.
public struct KeychainSummary: Sendable, Equatable {
    /// Its name (`default` for the first).
    public let name: String
    /// `locked` or `unlocked`.
    public let state: String
}

/// A token as administration lists it: never its secret.
public struct TokenInfo: Sendable, Equatable {
    /// Its id (`tok_…`), which names it in logs and revocations.
    public let id: String
    /// A name for people.
    public let name: String
    /// The access groups it may use (`*` for all).
    public let accessGroups: [String]
    /// The keychains it may use, in search order; the first is its default (`*` for all).
    public let keychains: [String]
    /// What it may do: `read`, `list`, `write`, `delete`, `lock`, `admin`, `metrics`.
    public let capabilities: [String]
    /// When it was created.
    public let createdAt: Date?
    /// When it stops working; `nil` for never.
    public let expiresAt: Date?

    init(_ object: JSONObject) {
        id = object["id"]?.stringValue ?? ""
        name = object["name"]?.stringValue ?? ""
        accessGroups = object["accessGroups"]?.arrayValue?.compactMap(\.stringValue) ?? []
        keychains = object["keychains"]?.arrayValue?.compactMap(\.stringValue) ?? ["default"]
        capabilities = object["capabilities"]?.arrayValue?.compactMap(\.stringValue) ?? []
        createdAt = object["createdAt"]?.stringValue.flatMap(RFC3339.date)
        expiresAt = object["expiresAt"]?.stringValue.flatMap(RFC3339.date)
    }
}

/// A token just created: its description and its secret, shown this once.
public struct CreatedToken: Sendable, CustomStringConvertible {
    /// What the token is.
    public let info: TokenInfo
    /// The bearer secret (`kcd_…`): store it now, the server keeps only its hash.
    public let secret: String

    public var description: String { "CreatedToken(\(info.id), secret redacted)" }
}

extension KeychainClient {
    /// The keychain's state, and the token's count of items.
    public func status() async throws(KeychainError) -> KeychainStatus {
        KeychainStatus(try await object(.get("/v1/keychain")))
    }

    /// Locks the keychain (SecKeychainLock); the cache is emptied first.
    public func lock() async throws(KeychainError) {
        cache?.removeAll()
        _ = try await perform(.post("/v1/keychain/lock", nil, idempotent: true))
    }

    /// Unlocks the keychain with its passphrase (SecKeychainUnlock). Not retried: a wrong
    /// passphrase counts against the unlock throttle once per attempt.
    public func unlock(passphrase: String) async throws(KeychainError) {
        var request = Request.post("/v1/keychain/unlock", ["passphrase": .string(passphrase)])
        request.anonymous = true
        _ = try await perform(request)
    }

    /// Changes the passphrase (admin of every group).
    public func changePassphrase(old: String, new: String) async throws(KeychainError) {
        _ = try await perform(.post("/v1/keychain/passphrase", ["old": .string(old), "new": .string(new)]))
    }

    /// Seconds without use after which the keychain locks itself (0: never).
    public func lockInterval() async throws(KeychainError) -> Int {
        Int(try await object(.get("/v1/keychain/settings"))["lockInterval"]?.intValue ?? 0)
    }

    /// Sets the auto-lock interval (SecKeychainSetSettings; admin of every group).
    public func setLockInterval(_ seconds: Int) async throws(KeychainError) {
        _ = try await perform(.put("/v1/keychain/settings", ["lockInterval": .int(Int64(seconds))]))
    }

    // MARK: - Keychains

    /// The keychains this token may use, in its search order (SecKeychainCopySearchList).
    public func keychains() async throws(KeychainError) -> [KeychainSummary] {
        let answer = try await object(.get("/v1/keychains"))
        return (answer["keychains"]?.arrayValue ?? []).compactMap(\.objectValue).map {
            KeychainSummary(name: $0["name"]?.stringValue ?? "", state: $0["state"]?.stringValue ?? "")
        }
    }

    /// Creates the keychain `name` with its own passphrase (SecKeychainCreate): unlocked and
    /// empty. Needs an admin token of every group and every keychain.
    public func createKeychain(name: String, passphrase: String) async throws(KeychainError) -> KeychainStatus {
        KeychainStatus(try await object(.post("/v1/keychains", ["name": .string(name), "passphrase": .string(passphrase)])))
    }

    /// Deletes the keychain `name` and every item in it (SecKeychainDelete).
    public func deleteKeychain(name: String) async throws(KeychainError) {
        var request = Request.delete("/v1/keychains/" + Transport.percentEncoded(name))
        request.query = [(name: "confirm", value: name)]
        _ = try await perform(request)
    }

    /// The keychain `name`'s state (SecKeychainGetStatus).
    public func status(keychain name: String) async throws(KeychainError) -> KeychainStatus {
        KeychainStatus(try await object(.get("/v1/keychains/" + Transport.percentEncoded(name))))
    }

    /// Locks the keychain `name`; the cache is emptied first.
    public func lock(keychain name: String) async throws(KeychainError) {
        cache?.removeAll()
        _ = try await perform(.post("/v1/keychains/\(Transport.percentEncoded(name))/lock", nil, idempotent: true))
    }

    /// Unlocks the keychain `name` with its own passphrase. Not retried.
    public func unlock(keychain name: String, passphrase: String) async throws(KeychainError) {
        _ = try await perform(
            .post("/v1/keychains/\(Transport.percentEncoded(name))/unlock", ["passphrase": .string(passphrase)]))
    }

    /// Locks every keychain of the token's search list (SecKeychainLockAll).
    public func lockAll() async throws(KeychainError) {
        cache?.removeAll()
        _ = try await perform(.post("/v1/keychains/lock-all", nil, idempotent: true))
    }

    /// Sets the auto-lock interval of the keychain `name` (admin of every group).
    public func setLockInterval(_ seconds: Int, keychain name: String) async throws(KeychainError) {
        _ = try await perform(
            .put("/v1/keychains/\(Transport.percentEncoded(name))/settings", ["lockInterval": .int(Int64(seconds))]))
    }

    /// The auto-lock interval of the keychain `name`.
    public func lockInterval(keychain name: String) async throws(KeychainError) -> Int {
        Int(try await object(.get("/v1/keychains/\(Transport.percentEncoded(name))/settings"))["lockInterval"]?.intValue ?? 0)
    }

    // MARK: - Tokens

    /// Creates a token of `accessGroups` with `capabilities` (`read`, `list`, `write`,
    /// `delete`, `lock`, `admin`, `metrics`), expiring at `expiresAt` when given.
    /// `keychains`: its search list, the first its default keychain; `nil`, this token's default.
    public func createToken(
        name: String, accessGroups: [String], keychains: [String]? = nil, capabilities: [String], expiresAt: Date? = nil
    ) async throws(KeychainError) -> CreatedToken {
        var body: JSONObject = [
            "name": .string(name), "accessGroups": .array(accessGroups.map(JSON.string)),
            "capabilities": .array(capabilities.map(JSON.string)),
            "expiresAt": expiresAt.map { .string(RFC3339.string($0)) } ?? .null,
        ]
        if let keychains { body["keychains"] = .array(keychains.map(JSON.string)) }
        let answer = try await object(.post("/v1/tokens", body))
        guard let secret = answer["token"]?.stringValue else {
            throw .notAvailable("server: a created token came without its secret")
        }
        return CreatedToken(info: TokenInfo(answer), secret: secret)
    }

    /// The tokens this token administers.
    public func tokens() async throws(KeychainError) -> [TokenInfo] {
        let answer = try await object(.get("/v1/tokens"))
        return (answer["tokens"]?.arrayValue ?? []).compactMap(\.objectValue).map(TokenInfo.init)
    }

    /// This client's own token.
    public func currentToken() async throws(KeychainError) -> TokenInfo {
        TokenInfo(try await object(.get("/v1/tokens/self")))
    }

    /// Revokes the token `id`: it is refused from the next request on, on every replica.
    public func revokeToken(id: String) async throws(KeychainError) {
        _ = try await perform(.delete("/v1/tokens/" + Transport.percentEncoded(id)))
    }
}

import Dispatch
public import Foundation
import Synchronization

/// One service's generic passwords as a dictionary: `keychain["token"] = "…"` stores,
/// `keychain["token"]` reads, `keychain["token"] = nil` deletes. Keys are accounts.
///
/// The subscript is synchronous, as the wrappers written over `SecItem…` are: it blocks the
/// calling thread until the server answers, and keeps the last failure in ``lastError``.
/// From async code, use the `async` methods, which throw.
public final class KeychainWrapper: Sendable {
    /// The service of every item (`kSecAttrService`).
    public let service: String
    /// The access group of the items this wrapper adds and reads; `nil` for the token's default.
    public let accessGroup: String?
    /// The protection class of the items it adds; `nil` for the server's default, `whenUnlocked`.
    public let accessible: String?
    /// The client the wrapper sends through.
    public let client: KeychainClient
    private let failure = Mutex<KeychainError?>(nil)

    /// The items of `service`, in `accessGroup` when given, added as `accessible` when given.
    public init(service: String, accessGroup: String? = nil, accessible: String? = nil, client: KeychainClient) {
        self.service = service
        self.accessGroup = accessGroup
        self.accessible = accessible
        self.client = client
    }

    /// What the last subscript access failed with, when it did (not found is not a failure).
    public var lastError: KeychainError? { failure.withLock { $0 } }

    private func query(_ key: String? = nil) -> ItemQuery {
        var query = ItemQuery.genericPassword(service: service, account: key)
        if let accessGroup { query = query.accessGroup(accessGroup) }
        return query
    }

    // MARK: - Async

    /// The secret stored under `key`; `nil` when there is none.
    public func data(forKey key: String) async throws(KeychainError) -> Data? {
        do {
            return try await client.secret(query(key))
        } catch  where error.status == errSecItemNotFound {
            return nil
        }
    }

    /// The secret stored under `key` as UTF-8 text; `nil` when there is none.
    public func string(forKey key: String) async throws(KeychainError) -> String? {
        try await data(forKey: key).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Stores `value` under `key`, replacing what was there; `nil` deletes it.
    public func set(_ value: Data?, forKey key: String) async throws(KeychainError) {
        guard let value else {
            try await removeValue(forKey: key)
            return
        }
        try await client.addGenericPassword(
            service: service, account: key, password: value,
            options: NewItemOptions(accessGroup: accessGroup, accessible: accessible),
            replacing: true)
    }

    /// Stores `value` as UTF-8 under `key`, replacing what was there; `nil` deletes it.
    public func set(_ value: String?, forKey key: String) async throws(KeychainError) {
        try await set(value.map { Data($0.utf8) }, forKey: key)
    }

    /// Deletes what is stored under `key`; `false` when there was nothing.
    @discardableResult
    public func removeValue(forKey key: String) async throws(KeychainError) -> Bool {
        do {
            return try await client.delete(query(key)) > 0
        } catch  where error.status == errSecItemNotFound {
            return false
        }
    }

    /// Every key (account) of the service.
    public func allKeys() async throws(KeychainError) -> [String] {
        var keys: [String] = []
        for try await item in client.items(query()) { keys.append(item.account ?? "") }
        return keys
    }

    // MARK: - Synchronous

    /// The secret under `key` as text, or stores one; `nil` deletes. Blocks until answered.
    public subscript(key: String) -> String? {
        get {
            record(Self.blocking { [self] () async throws(KeychainError) -> String? in try await string(forKey: key) }) ?? nil
        }
        set {
            record(Self.blocking { [self] () async throws(KeychainError) in try await set(newValue, forKey: key) })
        }
    }

    private func record<T>(_ result: Result<T, KeychainError>) -> T? {
        switch result {
        case .success(let value):
            failure.withLock { $0 = nil }
            return value
        case .failure(let error):
            failure.withLock { $0 = error }
            return nil
        }
    }

    /// Runs `body` on a task and waits for it on this thread. The task's work happens on the
    /// transport's event loop, so the wait does not hold what it waits for.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws(KeychainError) -> T) -> Result<T, KeychainError>
    {
        let outcome = Mutex<Result<T, KeychainError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let result: Result<T, KeychainError>
            do throws(KeychainError) { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0! }
    }

    // MARK: - Per-service helpers

    // The four functions of the classic per-service keychain helper: the identifier is the
    // account and the generic attribute, as that helper stores it.

    private func identified(_ identifier: String) -> ItemQuery {
        query(identifier).matching("generic", .data(Data(identifier.utf8)))
    }

    /// Adds `password` under `identifier`; `false` when one is already there.
    public func createKeychainValue(_ password: String, forIdentifier identifier: String) async throws(KeychainError) -> Bool {
        do {
            try await client.add(
                .genericPassword,
                attributes: [
                    "service": .string(service), "account": .string(identifier), "generic": .data(Data(identifier.utf8)),
                ], data: Data(password.utf8), options: NewItemOptions(accessGroup: accessGroup, accessible: accessible))
            return true
        } catch  where error.status == errSecDuplicateItem {
            return false
        }
    }

    /// The secret under `identifier`; `nil` when there is none.
    public func searchKeychainCopyMatching(_ identifier: String) async throws(KeychainError) -> Data? {
        do {
            return try await client.secret(identified(identifier))
        } catch  where error.status == errSecItemNotFound {
            return nil
        }
    }

    /// Replaces the secret under `identifier`; `false` when there is none.
    public func updateKeychainValue(_ password: String, forIdentifier identifier: String) async throws(KeychainError) -> Bool {
        do {
            return try await client.update(identified(identifier), data: Data(password.utf8)) > 0
        } catch  where error.status == errSecItemNotFound {
            return false
        }
    }

    /// Deletes what is under `identifier`, if anything.
    public func deleteKeychainValue(_ identifier: String) async throws(KeychainError) {
        do {
            try await client.delete(identified(identifier))
        } catch  where error.status == errSecItemNotFound {}
    }
}

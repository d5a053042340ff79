internal import Foundation
public import KeychainCrypto
public import KeychainStorage
public import Logging
import Synchronization

/// A server's keychains: `default`, which holds the server's tokens and the list of the
/// others, and the keychains made with `create`, each in a store of its own (a SQLite file, a
/// PostgreSQL schema) with its own passphrase, keys, lock, auto-lock and unlock throttle. One
/// event hub serves them all.
///
/// Thread-safe. A keychain's `Keychain` object stays valid while it is deleted under a request
/// that holds it: its store is closed and its calls fail with errSecNotAvailable.
public final class Keychains: Sendable {
    /// What a server's keychains other than `default` are stored in.
    public struct Storage: Sendable {
        /// The store of the keychain `name`, created (empty) when there is none.
        public var open: @Sendable (_ name: String) throws -> any KeychainStore
        /// Removes what `open` made for `name`, once its store is closed.
        public var remove: @Sendable (_ name: String) throws -> Void
        /// The configuration of the keychain `name`, from the default's.
        public var configure: @Sendable (_ name: String, _ defaultConfiguration: KeychainConfiguration) -> KeychainConfiguration

        public init(
            open: @escaping @Sendable (String) throws -> any KeychainStore, remove: @escaping @Sendable (String) throws -> Void,
            configure: @escaping @Sendable (String, KeychainConfiguration) -> KeychainConfiguration = Keychains.sharedKeyFile
        ) {
            self.open = open
            self.remove = remove
            self.configure = configure
        }
    }

    public let `default`: Keychain
    let storage: Storage?
    private let named = Mutex<[String: Keychain]>([:])
    /// Creations, deletions and refreshes run one at a time.
    private let changes = Mutex<Void>(())
    /// Monotonic ms of the last read of the list (`refresh`).
    private let lastRefresh = Atomic<Int64>(.min / 2)
    private let logger: Logger

    /// The default keychain's metadata key for the names of the others.
    static let registryMeta = "keychains.names"

    /// A server of one keychain.
    public init(only keychain: Keychain) {
        self.default = keychain
        storage = nil
        logger = keychain.logger
    }

    /// The keychains of a server whose default keychain is `default`: the others it lists are
    /// opened from `storage`. Without `storage` the server has only `default`, and `create` is
    /// errSecUnimplemented.
    public init(default keychain: Keychain, storage: Storage?, logger: Logger) throws(KeychainError) {
        self.default = keychain
        self.storage = storage
        self.logger = logger
        lastRefresh.store(keychain.clock.uptime(), ordering: .relaxed)
        guard storage != nil else { return }
        // The shared log's events are each opened by the keychain they name.
        keychain.eventOpener.set { [weak self] stored in self?.openEvent(stored) }
        for name in try registeredNames() {
            let opened = try open(name)
            setNamed(name, opened)
        }
    }

    /// The configuration of a keychain other than `default`: the default's, named, with the
    /// default's instance key file.
    public static func sharedKeyFile(_ name: String, _ configuration: KeychainConfiguration) -> KeychainConfiguration {
        var configuration = configuration
        configuration.keyFile = configuration.resolvedKeyFile
        configuration.name = name
        return configuration
    }

    /// Whether the server has no keychain but `default`: most requests' search lists are then
    /// that one, found without a lock.
    private let onlyDefault = Atomic<Bool>(true)

    private func setNamed(_ name: String, _ keychain: Keychain?) {
        named.withLock { named in
            named[name] = keychain
            onlyDefault.store(named.isEmpty, ordering: .relaxed)
        }
    }

    /// Every keychain's name: `default` first, then the others by name (their bytes).
    public var names: [String] {
        [KeychainName.default] + named.withLock { Array($0.keys) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Every keychain, in the order of `names`.
    public var all: [Keychain] {
        let others = named.withLock { $0 }
        return [self.default] + others.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { others[$0]! }
    }

    /// The keychain `name`, whoever asks.
    public func keychain(named name: String) -> Keychain? {
        if name.isSameBytes(as: KeychainName.default) { return self.default }
        return named.withLock { $0[name] }
    }

    /// The keychain `name` if `token` may use it; errSecNoSuchKeychain otherwise, the same
    /// whether it is missing or not the token's.
    public func keychain(named name: String, for token: AccessToken) throws(KeychainError) -> Keychain {
        guard token.mayUse(keychain: name), let keychain = keychain(named: name) else { throw .noSuchKeychain }
        return keychain
    }

    /// The keychains `token` searches, in its order (kSecMatchSearchList).
    public func searchList(for token: AccessToken) -> [Keychain] {
        if onlyDefault.load(ordering: .relaxed) {
            return token.mayUse(keychain: KeychainName.default) ? [self.default] : []
        }
        return token.searchList(among: names).compactMap { keychain(named: $0) }
    }

    /// The keychain an add of `token` goes to: the first of its search list that exists.
    public func defaultKeychain(for token: AccessToken) throws(KeychainError) -> Keychain {
        // Most tokens name one keychain first, or `*` (whose first is `default`): no list is built.
        if let first = token.keychains.first {
            if first.isSameBytes(as: "*") { return self.default }
            if let keychain = keychain(named: first) { return keychain }
        }
        guard let first = searchList(for: token).first else { throw .noSuchKeychain }
        return first
    }

    // MARK: creating and deleting

    /// Creates the keychain `name` with `passphrase` (SecKeychainCreate): unlocked, empty. Needs
    /// a server admin (`requireServerAdmin`). errSecDuplicateKeychain when it exists. Runs Argon2id.
    public func create(name: String, passphrase: SecureBytes, caller: AccessToken?) throws(KeychainError) -> Keychain {
        try Self.requireServerAdmin(caller, for: "creating a keychain")
        try KeychainName.check(name, key: "name")
        guard let storage else { throw .unimplemented("keychains: this server holds only the default keychain") }
        return try changes.withLock { _ throws(KeychainError) -> Keychain in
            // Another replica's keychain of this name may not have reached this one's list yet.
            let listed = try registeredNames().contains { $0.isSameBytes(as: name) }
            if listed || keychain(named: name) != nil { throw .duplicateKeychain }
            // What a creation interrupted before it was listed left behind is not a keychain.
            do { try storage.remove(name) } catch { throw self.default.map(error) }
            let keychain = try open(name)
            do throws(KeychainError) {
                try keychain.create(passphrase: passphrase)
                try register(name, adding: true)
            } catch {
                keychain.close()
                try? storage.remove(name)
                throw error
            }
            setNamed(name, keychain)
            logger.info("keychain created", metadata: ["keychain": "\(name)"])
            self.default.publishListChanged(keychain: name)
            return keychain
        }
    }

    /// Deletes the keychain `name` and every item in it (SecKeychainDelete). Needs a server admin;
    /// the default keychain is never deleted.
    public func delete(name: String, caller: AccessToken?) throws(KeychainError) {
        try Self.requireServerAdmin(caller, for: "deleting a keychain")
        if name.isSameBytes(as: KeychainName.default) { throw .param("name: the default keychain cannot be deleted") }
        guard let storage else { throw .noSuchKeychain }
        try changes.withLock { _ throws(KeychainError) in
            guard let keychain = keychain(named: name) else { throw .noSuchKeychain }
            try register(name, adding: false)
            setNamed(name, nil)
            keychain.close()
            do { try storage.remove(name) } catch {
                logger.warning("a deleted keychain's store was not removed", metadata: ["keychain": "\(name)"])
            }
            logger.info("keychain deleted", metadata: ["keychain": "\(name)"])
            self.default.publishListChanged(keychain: name)
        }
    }

    /// Revokes the token `id` (`Keychain.revokeToken`), then removes it from every access object
    /// of every keychain. A failure there is logged, not answered: the token is revoked, and a
    /// revoked id, never issued again, trusts nothing.
    public func revokeToken(id: String, caller: AccessToken?) throws(KeychainError) {
        try self.default.revokeToken(id: id, caller: caller)
        for keychain in all {
            do { _ = try keychain.forgetToken(id) } catch {
                logger.warning(
                    "a revoked token is left in access objects",
                    metadata: ["keychain": "\(keychain.name)", "error": "\(error.message)"])
            }
        }
    }

    /// Locks every keychain of `token`'s search list, or every keychain (SecKeychainLockAll):
    /// the keychains, and the last lock event made (delivered in order: the last one delivered
    /// means every one was).
    @discardableResult
    public func lockAll(for token: AccessToken? = nil) throws(KeychainError) -> (keychains: [Keychain], lastEvent: UInt64?) {
        let keychains = token.map(searchList(for:)) ?? all
        var last: UInt64?
        for keychain in keychains { if let event = try keychain.lock() { last = event } }
        return (keychains, last)
    }

    /// Applies due auto-locks and, on a shared store, what other replicas did (`checkAutoLock`).
    public func checkAutoLock() {
        refresh()
        for keychain in all { keychain.checkAutoLock() }
    }

    /// On a store that replicas share, opens the keychains another replica created and closes
    /// those it deleted: the list is read at most once a second.
    func refresh() {
        guard storage != nil, self.default.isShared else { return }
        let now = self.default.clock.uptime()
        let last = lastRefresh.load(ordering: .relaxed)
        guard now - last >= 1000, lastRefresh.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        else { return }
        guard let names = try? registeredNames() else { return }
        changes.withLock { _ in
            let current = named.withLock { $0 }
            for name in names where current[name] == nil {
                guard let opened = try? open(name) else {
                    logger.warning("a keychain another replica created does not open", metadata: ["keychain": "\(name)"])
                    continue
                }
                setNamed(name, opened)
                self.default.publishListChanged(keychain: name)
            }
            for (name, keychain) in current where !names.contains(where: { $0.isSameBytes(as: name) }) {
                setNamed(name, nil)
                keychain.close()
                self.default.publishListChanged(keychain: name)
            }
        }
    }

    /// The event of `stored`, opened by its keychain: one another replica just created is looked
    /// for again after reading the list.
    private func openEvent(_ stored: StoredEvent) -> KeychainEvent? {
        if let keychain = keychain(named: stored.keychain) { return keychain.opened(stored) }
        lastRefresh.store(.min / 2, ordering: .relaxed)
        refresh()
        return keychain(named: stored.keychain)?.opened(stored)
    }

    /// Closes every keychain's store.
    public func close() {
        for keychain in all { keychain.close() }
    }

    /// errSecMissingEntitlement unless `caller` may change the server's keychains: admin over
    /// every group and every keychain (`*` for both). `nil`: local administration.
    public static func requireServerAdmin(_ caller: AccessToken?, for operation: String) throws(KeychainError) {
        guard let caller else { return }
        guard caller.has(.admin), caller.allGroups, caller.allKeychains else {
            throw .missingEntitlement("token: \(operation) needs an admin token for every group and every keychain (\"*\")")
        }
    }

    // MARK: the list

    private func open(_ name: String) throws(KeychainError) -> Keychain {
        guard let storage else { throw .noSuchKeychain }
        let store: any KeychainStore
        do { store = try storage.open(name) } catch {
            throw .notAvailable("storage: the store of keychain \(name) cannot be opened")
        }
        do {
            return try Keychain(
                configuration: storage.configure(name, self.default.configuration), store: store, events: self.default.events,
                logger: logger)
        } catch {
            store.close()
            throw error
        }
    }

    private func registeredNames() throws(KeychainError) -> [String] {
        try Self.names(listedIn: self.default)
    }

    /// The names of the keychains other than `default` that the default keychain `keychain` lists.
    public static func names(listedIn keychain: Keychain) throws(KeychainError) -> [String] {
        guard let bytes = try keychain.snapshot({ try $0.meta(registryMeta) }) else { return [] }
        return decodeNames(bytes)
    }

    private func register(_ name: String, adding: Bool) throws(KeychainError) {
        let barrier = try self.default.barrier()
        try self.default.transaction { writer in
            var names = try writer.meta(Self.registryMeta).map(Self.decodeNames) ?? []
            names.removeAll { $0.isSameBytes(as: name) }
            if adding { names.append(name) }
            try writer.setMeta(Self.registryMeta, Array(names.joined(separator: "\n").utf8))
            try self.default.log(.keychainListChanged, about: name, barrier: barrier, in: writer)
        }
    }

    /// The names the registry holds, one per line; a line that is not a name is left out.
    static func decodeNames(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init).filter(KeychainName.isValid)
    }
}

extension KeychainError {
    /// `POST /v1/keychains` of a name that exists (HTTP 409).
    public static let duplicateKeychain = KeychainError(-25296, "errSecDuplicateKeychain", "name: a keychain of this name exists")
}

extension Keychain {
    /// Publishes `keychainListChanged` for the keychain `keychain`, created or deleted.
    func publishListChanged(keychain: String) {
        guard !logsEvents, events.hasSubscribers else { return }
        events.publish(KeychainEvent(name: .keychainListChanged, keychain: keychain, time: clock.now()))
    }
}

extension Keychains.Storage {
    /// Each keychain in a directory of its own, `<root>/<name>`, where `open` keeps its store
    /// (SQLite: `<root>/<name>/keychain.db`), as macOS keeps each keychain in a file of its own.
    public static func directories(
        under root: String, open: @escaping @Sendable (_ directory: String) throws -> any KeychainStore
    ) -> Keychains.Storage {
        Keychains.Storage(
            open: { name in
                // The keychains' directory is as private as the data directory that holds it.
                try FileManager.default.createDirectory(
                    atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                return try open(root + "/" + name)
            },
            remove: { name in
                let directory = root + "/" + name
                if FileManager.default.fileExists(atPath: directory) { try FileManager.default.removeItem(atPath: directory) }
            },
            configure: { name, configuration in
                var named = Keychains.sharedKeyFile(name, configuration)
                named.dataDirectory = root + "/" + name
                return named
            })
    }
}

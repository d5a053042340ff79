internal import Foundation
import KeychainBarrier
public import KeychainCrypto
public import KeychainStorage
public import Logging
import Synchronization

/// One keychain: Keychain Services semantics over an encrypted store.
///
/// Thread-safe; every operation is synchronous and may be called from any thread. Operations
/// that run Argon2id (`initialize`, `unlock`, `changePassphrase`) take ~0.5 s: callers keep them
/// off latency-sensitive threads, and they run one at a time.
public final class Keychain: Sendable {
    /// The group an add goes to when the token's first group is `*`.
    public static let defaultGroup = "default"

    /// Checked once, when the first keychain opens: a build whose table is inconsistent (a
    /// primary-key attribute its class lacks, a spelling with two meanings) does not run.
    private static let schemaProblems = Schema.problems()

    let configuration: KeychainConfiguration
    let store: any KeychainStore
    /// What only some stores do, cast once here rather than on every request: the store itself
    /// when its searches or adds answer later, and whether it lists groups or is shared.
    let searchesLater: (any SearchesAnswerLater)?
    let addsLater: (any AddsAnswerLater)?
    let listsGroups: Bool
    let isShared: Bool
    let logger: Logger
    /// What the keychain reads the time from (a test moves it by hand).
    public let clock: any KeychainClock
    let barrierSlot: Mutex<Barrier?>
    /// Monotonic ms of the last use of a whenUnlocked secret (or of the unlock).
    let lastSecretUse = Atomic<Int64>(0)
    let lockIntervalSeconds: Atomic<Int>
    /// Serialises Argon2id work: concurrent unlocks run one at a time.
    let kdfGate = Mutex<Void>(())
    /// Verified tokens by a fast keyed hash of their secret.
    let tokenCache: TokenCache
    /// Monotonic ms of the last storage failure logged (see `map`).
    let lastStorageWarning = Atomic<Int64>(.min / 2)
    /// Failed unlocks and store calls, for metrics (`statistics`).
    let counters = KeychainCounters()
    /// This process among the replicas sharing the store: 8 random bytes.
    let replicaID = Sodium.randomBytes(8)
    /// What this replica knows of the others (see `Keychain+Cluster`).
    let cluster = Mutex(ClusterView())
    /// The server's events, for subscribers (`GET /v1/events`): one hub for all its keychains.
    public let events: KeychainEvents
    /// Reads the shared log's events into `events`, when this keychain's store keeps the log
    /// and the hub is its own (the default keychain on PostgreSQL).
    let pump: EventPump?
    /// Who opens the log's events for the pump.
    let eventOpener = EventOpener()
    /// The public keys of Ed25519 keys signed with, by their sealed bytes' nonce: a signature
    /// then costs one scalar multiplication, not two (`Keychain+KeyUse.swift`).
    let ed25519PublicKeys = Mutex<[[UInt8]: [UInt8]]>([:])
    /// `configuration.name`.
    public let name: String
    /// Whether this is the `default` keychain, whose references carry no name.
    public let isDefault: Bool

    /// Opens the keychain kept in `store`, with its instance key file in
    /// `configuration.dataDirectory` (created if needed) unless `configuration.keyFile` says
    /// otherwise. It starts locked, or uninitialized when never initialised. The keychain owns
    /// the store from now on: `close()` closes it.
    /// `events` is the server's hub when the keychain is one of several (`Keychains`).
    public init(
        configuration: KeychainConfiguration, store: any KeychainStore, events: KeychainEvents? = nil, logger: Logger
    ) throws(KeychainError) {
        precondition(Self.schemaProblems.isEmpty, "the schema table is inconsistent: \(Self.schemaProblems)")
        self.configuration = configuration
        self.store = store
        searchesLater = store as? any SearchesAnswerLater
        addsLater = store as? any AddsAnswerLater
        listsGroups = store is any GroupListingStore
        isShared = store is any SharedStore
        self.logger = logger
        clock = configuration.clock
        do { tokenCache = try TokenCache() } catch { throw .notAvailable("random key: \(error)") }
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.dataDirectory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .notAvailable("data directory cannot be created: \(configuration.dataDirectory)")
        }
        barrierSlot = Mutex(nil)
        if let events {
            self.events = events
            pump = nil
        } else if let log = store as? any SharedEventLog {
            let hub = KeychainEvents(capacity: configuration.eventHistory, sharedEpoch: try Self.sharedEventEpoch(store))
            self.events = hub
            let opener = eventOpener
            pump = EventPump(log: log, events: hub, logger: logger) { opener($0) }
        } else {
            self.events = KeychainEvents(capacity: configuration.eventHistory)
            pump = nil
        }
        name = configuration.name
        isDefault = name.isSameBytes(as: KeychainName.default)
        lockIntervalSeconds = Atomic(configuration.defaultLockInterval)
        try refreshSettings()
        if let barrier = try loadBarrier() { try backfillHostSuffixes(barrier) }
        eventOpener.set { [weak self] in self?.opened($0) }
        pump?.start()
    }

    /// The shared log's epoch, kept in the store, made by the first replica that asks: the
    /// same on every replica, so that an event's id names the same event on each.
    private static func sharedEventEpoch(_ store: any KeychainStore) throws(KeychainError) -> String {
        let key = "events.epoch"
        do {
            if let epoch = try store.read({ try $0.meta(key) }) { return String(decoding: epoch, as: UTF8.self) }
            let made = Array(String(UInt64.random(in: 1...UInt64.max) & 0xFFFF_FFFF_FFFF, radix: 36).utf8)
            _ = try store.write { try $0.insertMeta(key, made) }
            return String(decoding: try store.read({ try $0.meta(key) }) ?? made, as: UTF8.self)
        } catch {
            throw .notAvailable("storage: the keychain's database is unavailable")
        }
    }

    /// Set once every internet password carries its server's domain-suffix digests.
    static let hostSuffixesMeta = "lookups.hostSuffixes"

    /// Gives internet passwords stored before `matchHostOrSubdomainOfHost` existed their
    /// domain-suffix digests, once, in one transaction (the metadata key opens their attributes:
    /// no passphrase is needed). An item whose attributes fail to open is left as it is.
    private func backfillHostSuffixes(_ barrier: Barrier) throws(KeychainError) {
        guard try snapshot({ try $0.meta(Self.hostSuffixesMeta) }) == nil else { return }
        let logger = logger
        try transaction { writer in
            guard try writer.meta(Self.hostSuffixesMeta) == nil else { return }
            var count = 0
            for record in try writer.items(matching: ItemFilter(classes: [ItemClass.internetPassword.rawValue])) {
                guard var item = try? DecodedItem(record, barrier: barrier) else { continue }
                try item.reseal(barrier: barrier)
                try writer.replace(item.record)
                count += 1
            }
            try writer.setMeta(Self.hostSuffixesMeta, [1])
            logger.info("internet passwords given host-suffix digests", metadata: ["items": "\(count)"])
        }
    }

    /// The barrier of the keychain the store holds, opened with the instance key and kept; `nil`
    /// while the store holds none. Read from the store whenever this process has no barrier
    /// yet, so a keychain that another process initialised is found.
    func loadBarrier() throws(KeychainError) -> Barrier? {
        if let barrier = barrierSlot.withLock({ $0 }) { return barrier }
        let wrapped = try snapshot { reader in
            (try reader.meta(Barrier.MetaKey.metadata), try reader.meta(Barrier.MetaKey.always))
        }
        guard let wrappedMetadata = wrapped.0, let wrappedAlways = wrapped.1 else { return nil }
        let instanceKey = try KeyFile.read(configuration.resolvedKeyFile)
        let opened: Barrier
        do {
            opened = try Barrier(instanceKey: instanceKey, wrappedMetadata: wrappedMetadata, wrappedAlways: wrappedAlways)
        } catch {
            throw .decode("the instance key file does not open this keychain's keys")
        }
        return barrierSlot.withLock { slot in
            if let barrier = slot { return barrier }
            slot = opened
            return opened
        }
    }

    /// Closes the store and drops every key. Further calls fail with errSecNotAvailable.
    public func close() {
        pump?.stop()
        barrierSlot.withLock {
            $0?.lock()
            $0 = nil
        }
        tokenCache.removeAll()
        store.close()
    }

    // MARK: state

    public var state: KeychainState {
        guard let barrier = try? loadBarrier() else { return .uninitialized }
        enforceAutoLock(barrier)
        return barrier.isUnlocked ? .unlocked : .locked
    }

    /// Whether one read of the store succeeds now (the health check's own view of the database).
    public func storeIsReachable() -> Bool {
        // A read that succeeds finding nothing (an uninitialized store) still reached the store.
        do {
            _ = try snapshot { try $0.meta(Settings.lockInterval) }
            return true
        } catch {
            return false
        }
    }

    /// The barrier, or errSecNotAvailable when uninitialized. Applies a due auto-lock first.
    func barrier() throws(KeychainError) -> Barrier {
        guard let barrier = try loadBarrier() else {
            throw .notAvailable("the keychain is not initialized; run keychaind init")
        }
        enforceAutoLock(barrier)
        return barrier
    }

    /// Creates the keychain: instance key file, salt, wrapped keys, and a first admin token.
    /// Leaves it unlocked. Runs Argon2id.
    public func initialize(passphrase: SecureBytes) throws(KeychainError) -> IssuedToken {
        precondition(isDefault, "a keychain other than the default is made with create(passphrase:)")
        return try setUp(passphrase: passphrase)!
    }

    /// Creates a keychain other than the default: its salt and keys, wrapped under the server's
    /// instance key (which must exist) and `passphrase`. No token: the server's tokens live with
    /// the default keychain. Leaves it unlocked, on every replica of a shared store. Runs Argon2id.
    public func create(passphrase: SecureBytes) throws(KeychainError) {
        precondition(!isDefault, "the default keychain is made with initialize(passphrase:)")
        _ = try setUp(passphrase: passphrase)
        if let barrier = try loadBarrier() { try publishLockState(barrier) }
    }

    private func setUp(passphrase: SecureBytes) throws(KeychainError) -> IssuedToken? {
        guard configuration.kdfLimits.isAtLeastModerate || configuration.allowWeakKDFForTesting else {
            throw .param("kdfLimits: Argon2id limits must be at least MODERATE")
        }
        try requirePassphrase(passphrase, key: "passphrase")
        return try kdfGate.withLock { _ throws(KeychainError) -> IssuedToken? in
            guard try loadBarrier() == nil else { throw Self.alreadyInitialized }
            let salt = Sodium.randomBytes(PasswordHash.saltLength)
            let limits = configuration.kdfLimits
            let kek = try Self.crypto { () throws(CryptoError) in
                try PasswordHash.deriveKey(passphrase: passphrase, salt: salt, limits: limits)
            }
            let keyFile = configuration.resolvedKeyFile
            // The other keychains' keys are wrapped under the default's instance key.
            let instanceKey = isDefault ? try KeyFile.create(keyFile) : try KeyFile.read(keyFile)
            let wrapped: [String: [UInt8]]
            let barrier: Barrier
            let admin: (issued: IssuedToken, record: TokenRecord)?
            let created: Bool
            do throws(KeychainError) {
                wrapped = try Self.crypto { () throws(CryptoError) in
                    try Barrier.generate(instanceKey: instanceKey, kek: kek)
                }
                barrier = try Self.crypto { () throws(CryptoError) in
                    let b = try Barrier(
                        instanceKey: instanceKey, wrappedMetadata: wrapped[Barrier.MetaKey.metadata]!,
                        wrappedAlways: wrapped[Barrier.MetaKey.always]!)
                    let keys = try Barrier.unwrapClassKeys(
                        kek: kek, wrappedWhenUnlocked: wrapped[Barrier.MetaKey.whenUnlocked]!,
                        wrappedAfterFirstUnlock: wrapped[Barrier.MetaKey.afterFirstUnlock]!)
                    b.install(whenUnlocked: keys.whenUnlocked, afterFirstUnlock: keys.afterFirstUnlock)
                    return b
                }
                admin =
                    isDefault
                    ? try makeToken(
                        barrier: barrier, name: "admin", accessGroups: ["*"], keychains: ["*"],
                        capabilities: Set(Capability.allCases), expiresAt: nil) : nil
                let lockInterval = Settings.encodeInt(Int64(self.lockIntervalSeconds.load(ordering: .relaxed)))
                // Created only if absent, in one transaction: of two processes initialising one
                // store, exactly one succeeds, and the other writes nothing.
                created = try transaction { writer in
                    guard try writer.insertMeta(Barrier.MetaKey.metadata, wrapped[Barrier.MetaKey.metadata]!) else {
                        return false
                    }
                    for (key, value) in wrapped where key != Barrier.MetaKey.metadata { try writer.setMeta(key, value) }
                    try writer.setMeta(Barrier.MetaKey.salt, salt)
                    try writer.setMeta(Barrier.MetaKey.limits, Settings.encodeLimits(limits))
                    try writer.setMeta(Settings.lockInterval, lockInterval)
                    try writer.setMeta(Self.hostSuffixesMeta, [1])
                    if let admin { try writer.insert(admin.record) }
                    return true
                }
            } catch {
                if isDefault { KeyFile.remove(keyFile) }
                throw error
            }
            guard created else {
                if isDefault { KeyFile.remove(keyFile) }
                throw Self.alreadyInitialized
            }
            barrierSlot.withLock { $0 = barrier }
            lastSecretUse.store(clock.uptime(), ordering: .relaxed)
            if let admin {
                logger.info("keychain initialized", metadata: ["token.id": "\(admin.issued.token.id)"])
            } else {
                logger.info("keychain created", metadata: ["keychain": "\(name)"])
            }
            return admin?.issued
        }
    }

    static let alreadyInitialized = KeychainError.param("keychain: already initialized")

    // MARK: helpers

    /// Runs `body` in a read snapshot; storage failures become errSecNotAvailable.
    func snapshot<T>(_ body: (any StoreReader) throws -> T) throws(KeychainError) -> T {
        do { return try store.read(body) } catch { throw map(error) }
    }

    /// Runs `body` in one durable write transaction; a KeychainError thrown inside rolls it back
    /// and comes out as it is; a unique-index refusal becomes errSecDuplicateItem.
    func transaction<T>(_ body: @escaping (any StoreWriter) throws -> T) throws(KeychainError) -> T {
        do { return try store.write(body) } catch { throw map(error) }
    }

    /// The client's error for a failure inside a store call. What the store said (a database
    /// host, a SQL error) goes to the log, at most once a second, and never to the client.
    func map(_ error: any Error) -> KeychainError {
        switch error {
        case let error as KeychainError: return error
        case let error as StorageError where error == .uniqueViolation: return .duplicateItem(persistentRef: nil)
        default:
            counters.storageFailures.add(1, ordering: .relaxed)
            let now = clock.uptime()
            let last = lastStorageWarning.load(ordering: .relaxed)
            if now - last >= 1000, lastStorageWarning.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
            {
                logger.warning(
                    "storage failed", metadata: ["error": "\((error as? StorageError)?.message ?? "\(type(of: error))")"])
            }
            return .notAvailable("storage: the keychain's database is unavailable")
        }
    }

    /// Runs a crypto call, turning its errors into errSecDecode.
    static func crypto<T>(_ body: () throws(CryptoError) -> T) throws(KeychainError) -> T {
        do {
            return try body()
        } catch {
            throw .decode("crypto: \(error.message)")
        }
    }
}

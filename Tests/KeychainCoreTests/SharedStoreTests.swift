import Dispatch
import Foundation
import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

/// Several keychains on one store, as several processes sharing one database are: state they
/// share lives in the store and is read-modified-written in one transaction, so none of their
/// updates is lost.
@Suite struct SharedStoreTests {
    /// Two keychains on one store and one instance key file, with one clock.
    final class Pair: Sendable {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let store: any KeychainStore
        let first: Keychain
        let second: Keychain

        init(backend: StoreBackend) throws {
            store = try backend.open(directory.path)
            first = try Keychain(configuration: .testing(directory.path, clock: clock), store: store, logger: .init(label: "a"))
            second = try Keychain(configuration: .testing(directory.path, clock: clock), store: store, logger: .init(label: "b"))
        }

        deinit { store.close() }
    }

    /// The second keychain's reads predate the first one's initialisation (as a process whose
    /// check ran just before another's commit): only the store's create-if-absent stops it.
    @Test(arguments: StoreBackend.all)
    func anInitialisationRacingAnotherOneWritesNothing(backend: StoreBackend) throws {
        let directory = TemporaryDirectory()
        let store = try backend.open(directory.path)
        defer { store.close() }
        let first = try Keychain(configuration: .testing(directory.path), store: store, logger: .init(label: "a"))
        var other = KeychainConfiguration.testing(directory.path)
        other.keyFile = directory.path + "/second.key"
        let second = try Keychain(
            configuration: other, store: StaleReads(store, hiding: Barrier.MetaKey.metadata), logger: .init(label: "b"))
        let admin = try first.initialize(passphrase: SecureBytes(utf8: testPassphrase))
        #expect(second.state == .uninitialized, "its reads do not see the first initialisation")
        expectError(.anyParam, naming: "keychain") { _ = try second.initialize(passphrase: SecureBytes(utf8: "other")) }
        #expect(try store.read { try $0.tokens() }.map(\.id) == [admin.token.id], "the loser wrote nothing")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/second.key"), "the loser removed its key file")
        try first.lock()
        try first.unlock(passphrase: SecureBytes(utf8: testPassphrase))
        #expect(try first.authenticate(bearer: admin.secret) == admin.token)
    }

    @Test(arguments: StoreBackend.all)
    func aKeychainInitialisedElsewhereIsFound(backend: StoreBackend) throws {
        let pair = try Pair(backend: backend)
        #expect(pair.second.state == .uninitialized)
        let admin = try pair.first.initialize(passphrase: SecureBytes(utf8: testPassphrase))
        #expect(pair.second.state == .locked)
        try pair.second.unlock(passphrase: SecureBytes(utf8: testPassphrase))
        #expect(try pair.second.authenticate(bearer: admin.secret) == admin.token)
    }

    /// Failed unlocks in both count toward one budget: its free failures spent concurrently,
    /// two at a time in each, the next starts the ladder, and the attempt after it waits a minute.
    @Test(arguments: StoreBackend.all)
    func failedUnlocksInEveryKeychainCount(backend: StoreBackend) throws {
        let pair = try Pair(backend: backend)
        _ = try pair.first.initialize(passphrase: SecureBytes(utf8: testPassphrase))
        try pair.first.lock()
        let refusals = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: UnlockThrottle.freeFailures) { n in
            let keychain = n % 2 == 0 ? pair.first : pair.second
            do { try keychain.unlock(passphrase: SecureBytes(utf8: "wrong")) } catch { refusals.add(1, ordering: .relaxed) }
        }
        #expect(refusals.load(ordering: .relaxed) == UnlockThrottle.freeFailures)
        let next = expectError(.anyAuthFailed, naming: "passphrase") {
            try pair.first.unlock(passphrase: SecureBytes(utf8: "wrong"))
        }
        #expect(next?.retryAfter == nil)
        let throttled = expectError(.anyAuthFailed) { try pair.second.unlock(passphrase: SecureBytes(utf8: testPassphrase)) }
        #expect(throttled?.retryAfter == 60)
    }

    @Test(arguments: StoreBackend.all)
    func aSettingChangedElsewhereIsSeenAtTheNextRefresh(backend: StoreBackend) throws {
        let pair = try Pair(backend: backend)
        _ = try pair.first.initialize(passphrase: SecureBytes(utf8: testPassphrase))
        #expect(pair.second.lockInterval == 300)
        try pair.first.setLockInterval(0)
        #expect(pair.first.lockInterval == 0)
        pair.second.checkAutoLock()
        #expect(pair.second.lockInterval == 0)
    }

    /// Revoked: refused at once where it was revoked; elsewhere once the cached entry expires.
    @Test(arguments: StoreBackend.all)
    func aRevocationIsSeenAtOnceHereAndWithinTheCacheLifetimeElsewhere(backend: StoreBackend) throws {
        let pair = try Pair(backend: backend)
        let admin = try pair.first.initialize(passphrase: SecureBytes(utf8: testPassphrase)).token
        let issued = try pair.first.createToken(
            name: "svc", accessGroups: ["a"], capabilities: [.read], expiresAt: nil, caller: admin)
        _ = try pair.first.authenticate(bearer: issued.secret)
        _ = try pair.second.authenticate(bearer: issued.secret)
        try pair.first.revokeToken(id: issued.token.id, caller: admin)
        expectError(.anyAuthFailed) { _ = try pair.first.authenticate(bearer: issued.secret) }
        pair.clock.advance(seconds: TokenCache.lifetimeMilliseconds / 1000)
        expectError(.anyAuthFailed) { _ = try pair.second.authenticate(bearer: issued.secret) }
    }
}

/// A store whose snapshot reads miss some meta keys, as reads made before another writer's
/// commit do; writes (and reads inside them) go to the store as they are.
final class StaleReads: KeychainStore {
    let store: any KeychainStore
    let hidden: String

    init(_ store: any KeychainStore, hiding key: String) {
        self.store = store
        hidden = key
    }

    final class Reader: StoreReader {
        let reader: any StoreReader
        let hidden: String

        init(_ reader: any StoreReader, hidden: String) {
            self.reader = reader
            self.hidden = hidden
        }

        func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord] { try reader.items(matching: filter) }
        func countItems(matching filter: ItemFilter) throws(StorageError) -> Int { try reader.countItems(matching: filter) }
        func item(primaryKey: [UInt8]) throws(StorageError) -> ItemRecord? { try reader.item(primaryKey: primaryKey) }
        func meta(_ key: String) throws(StorageError) -> [UInt8]? { key == hidden ? nil : try reader.meta(key) }
        func token(hash: [UInt8]) throws(StorageError) -> TokenRecord? { try reader.token(hash: hash) }
        func tokens() throws(StorageError) -> [TokenRecord] { try reader.tokens() }
    }

    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try store.read { try body(Reader($0, hidden: hidden)) }
    }

    func write<T>(_ body: @escaping (any StoreWriter) throws -> T) throws -> T { try store.write(body) }
    func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord] { try store.items(matching: filter) }
    func close() {}
}

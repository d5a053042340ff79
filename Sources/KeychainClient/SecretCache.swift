import Foundation
import KeychainCrypto
import Synchronization

/// How the client caches the secrets it reads (``KeychainClientConfiguration/cache``).
///
/// A cached secret never outlives the lock that guarded it: the cache empties itself when the
/// keychain's event stream reports a lock or any change (``KeychainClientConfiguration/cacheFollowsEvents``,
/// on by default), or when the stream is lost; when an answer says the keychain is locked (every
/// answer carries the state in `X-Keychain-State`), on a 423, when the token is refused (revoked
/// or expired: 401), on every write this client sends, and when the client locks the keychain;
/// and no entry is used after `maxAge`.
public struct SecretCachePolicy: Sendable {
    /// The longest a secret is answered from memory after the server gave it.
    public var maxAge: Duration
    /// The most secrets kept; the oldest goes first.
    public var maxEntries: Int

    /// A cache of at most `maxEntries` secrets, each answered for `maxAge` after it was read.
    public init(maxAge: Duration = .seconds(30), maxEntries: Int = 256) {
        self.maxAge = maxAge
        self.maxEntries = max(1, maxEntries)
    }
}

/// Secrets by the query that read them, in `sodium_malloc` memory that is zeroed when an entry
/// goes (`SecureBytes`).
final class SecretCache: Sendable {
    private struct Entry {
        let secret: SecureBytes
        let storedAt: ContinuousClock.Instant
    }

    private let policy: SecretCachePolicy
    private let entries = Mutex<[String: Entry]>([:])

    init(_ policy: SecretCachePolicy) {
        self.policy = policy
    }

    /// The secret `key` read, if it was read within `maxAge`.
    func secret(for key: String) -> Data? {
        let now = ContinuousClock.now
        return entries.withLock { entries -> Data? in
            guard let entry = entries[key] else { return nil }
            guard now - entry.storedAt < policy.maxAge else {
                entries[key] = nil
                return nil
            }
            return entry.secret.withUnsafeBytes { Data($0) }
        }
    }

    func store(_ secret: Data, for key: String) {
        guard let bytes = try? secret.withUnsafeBytes({ raw throws(CryptoError) in try SecureBytes(copying: raw) }) else {
            return
        }
        let entry = Entry(secret: bytes, storedAt: .now)
        entries.withLock { entries in
            if entries[key] == nil, entries.count >= policy.maxEntries,
                let oldest = entries.min(by: { $0.value.storedAt < $1.value.storedAt })?.key
            {
                entries[oldest] = nil
            }
            entries[key] = entry
        }
    }

    /// Forgets every secret; their memory is zeroed as it is freed.
    func removeAll() {
        let gone = entries.withLock { entries in
            defer { entries = [:] }
            return entries
        }
        for entry in gone.values { entry.secret.wipe() }
    }

    var count: Int { entries.withLock { $0.count } }
}

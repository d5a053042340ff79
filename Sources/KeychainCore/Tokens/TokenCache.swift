import KeychainCrypto
import Synchronization

/// Verified tokens, found again by a 128-bit SipHash of their secret under a key of this
/// process: a tenth of the keyed BLAKE2b that finds a token in storage.
///
/// Revocation is immediate in this process: `revoke` drops the token's entries and raises an
/// epoch, and a verification that read the store before the revocation cannot cache what it
/// read (`insert` refuses an entry from an older epoch). Another process sharing the store
/// sees a revocation when its entry expires, at most `lifetimeMilliseconds` later.
final class TokenCache: Sendable {
    /// How long a verified token is trusted without a store lookup.
    static let lifetimeMilliseconds: Int64 = 10_000
    /// Past this many entries the cache starts again empty.
    static let capacity = 4096

    /// A secret's place in the cache, and the epoch its lookup saw.
    struct Slot {
        fileprivate let key: Key
        fileprivate let epoch: UInt64
    }

    fileprivate struct Key: Hashable {
        let high: UInt64
        let low: UInt64
    }

    private struct State {
        var entries: [Key: (token: AccessToken, cachedAt: Int64)] = [:]
        /// Raised by every revocation.
        var epoch: UInt64 = 0
    }

    private let hash: ShortKeyedHash
    private let state = Mutex(State())

    init() throws(CryptoError) {
        hash = try ShortKeyedHash()
    }

    /// The cached token for `secret` if it is fresh at `now` (monotonic ms), and the slot to
    /// `insert` a verified one into.
    func lookup(_ secret: UnsafeBufferPointer<UInt8>, now: Int64) -> (token: AccessToken?, slot: Slot) {
        let (high, low) = hash.hash(UnsafeRawBufferPointer(secret))
        let key = Key(high: high, low: low)
        return state.withLock { state in
            let slot = Slot(key: key, epoch: state.epoch)
            guard let cached = state.entries[key], now - cached.cachedAt < Self.lifetimeMilliseconds else {
                return (nil, slot)
            }
            return (cached.token, slot)
        }
    }

    /// Caches `token`, verified against the store, unless a revocation happened since `slot`'s lookup.
    func insert(_ token: AccessToken, at slot: Slot, now: Int64) {
        state.withLock { state in
            guard state.epoch == slot.epoch else { return }
            if state.entries.count >= Self.capacity { state.entries.removeAll() }
            state.entries[slot.key] = (token, now)
        }
    }

    /// Forgets token `id` at once, and keeps verifications under way from caching it again.
    func revoke(id: String) {
        state.withLock { state in
            state.epoch &+= 1
            state.entries = state.entries.filter { !$0.value.token.id.isSameBytes(as: id) }
        }
    }

    func removeAll() {
        state.withLock { state in
            state.epoch &+= 1
            state.entries.removeAll()
        }
    }
}

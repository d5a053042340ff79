import Dispatch
import KeychainCore
import KeychainStorage
import Prometheus
import Synchronization

/// The item counts per class, counted again once they are older than `maxAgeNanoseconds`; one
/// count at a time (concurrent scrapes wait for it rather than scan the index again).
final class ItemCountCache: Sendable {
    private let maxAgeNanoseconds: UInt64
    private let cached = Mutex<(at: UInt64, counts: [(itemClass: ItemClass, count: Int)])?>(nil)

    init(maxAgeNanoseconds: UInt64) {
        self.maxAgeNanoseconds = maxAgeNanoseconds
    }

    func counts(_ keychain: Keychain) throws(KeychainError) -> [(itemClass: ItemClass, count: Int)] {
        try cached.withLock { cached throws(KeychainError) in
            let now = DispatchTime.now().uptimeNanoseconds
            if let cached, maxAgeNanoseconds > 0, now &- cached.at < maxAgeNanoseconds { return cached.counts }
            let counts = try keychain.countItemsByClass()
            cached = (now, counts)
            return counts
        }
    }
}

import KeychainStorage
import Synchronization

/// Counts of what happened to one keychain since it opened, for metrics: read, never reset.
/// Each is one relaxed atomic add where it happens (a failed unlock, a store failure), off the
/// paths a successful request takes.
final class KeychainCounters: Sendable {
    /// Wrong passphrases (from the network or the host).
    let unlockFailures = Atomic<UInt64>(0)
    /// Unlock attempts refused by the keychain's failure budget (errSecAuthFailed, 429).
    let unlockThrottled = Atomic<UInt64>(0)
    /// Store calls that failed for another reason than a duplicate primary key.
    let storageFailures = Atomic<UInt64>(0)
}

/// What a metrics scrape reads of the keychain: numbers only, never a name, a group or a value.
public struct KeychainStatistics: Sendable, Equatable {
    /// Wrong passphrases since the process started.
    public var unlockFailures: UInt64
    /// Unlocks refused by the keychain's failure budget since the process started.
    public var unlockThrottled: UInt64
    /// Store failures (a database out of reach, a full disk…) since the process started.
    public var storageFailures: UInt64

    public init(unlockFailures: UInt64 = 0, unlockThrottled: UInt64 = 0, storageFailures: UInt64 = 0) {
        self.unlockFailures = unlockFailures
        self.unlockThrottled = unlockThrottled
        self.storageFailures = storageFailures
    }
}

/// The keychain's unlock failure budget as the store holds it (shared by every replica).
public struct UnlockBudget: Sendable, Equatable {
    /// Failures counted since the last successful unlock.
    public var failures: Int
    /// Seconds until the network may try again; 0 when it may try now.
    public var retryAfterSeconds: Int
}

extension Keychain {
    /// This process's counts.
    public var statistics: KeychainStatistics {
        KeychainStatistics(
            unlockFailures: counters.unlockFailures.load(ordering: .relaxed),
            unlockThrottled: counters.unlockThrottled.load(ordering: .relaxed),
            storageFailures: counters.storageFailures.load(ordering: .relaxed))
    }

    /// The failure budget now: one read of one metadata row.
    public func unlockBudget() throws(KeychainError) -> UnlockBudget {
        let stored =
            try snapshot { try $0.meta(UnlockThrottle.metaKey) }.flatMap(UnlockThrottle.init(encoded:)) ?? UnlockThrottle()
        return UnlockBudget(failures: stored.failures, retryAfterSeconds: stored.secondsToWait(now: clock.now()) ?? 0)
    }

    /// How many items of each class this build stores there are, in every group: one count
    /// per class through the `(class, grp)` index, in one snapshot. Needs no key, so it works
    /// locked; it costs a scan of the index (see docs/audit-and-metrics.md on how often metrics run it).
    public func countItemsByClass() throws(KeychainError) -> [(itemClass: ItemClass, count: Int)] {
        try snapshot { reader in
            try ItemClass.stored.map { itemClass in
                (itemClass, try reader.countItems(matching: ItemFilter(classes: [itemClass.rawValue])))
            }
        }
    }
}

internal import Foundation
import KeychainBarrier
public import KeychainCrypto
import KeychainStorage
import Logging
import Synchronization

/// Lock state: unlock, lock, the passphrase, the auto-lock and the failure budget.
extension Keychain {
    /// Unlocks with the passphrase. Unlocking an unlocked keychain with the right passphrase
    /// succeeds; a wrong passphrase is verified and refused whatever the state, and never
    /// touches the auto-lock timer (so wrong guesses cannot keep a keychain open).
    ///
    /// From the network, a wrong passphrase is errSecAuthFailed and counts toward the keychain's
    /// failure budget, kept in the store so that a restart keeps it: failures since the last
    /// success are free while at most `UnlockThrottle.freeFailures`, then Apple's
    /// ladder applies (1 min, 5 min, 15 min, then 1 h). The attempt is counted *before* the
    /// passphrase is derived, and cleared on success: an attempt whose count cannot be written
    /// (a full disk) is refused with errSecNotAvailable whatever the passphrase, so it gives
    /// neither a free guess nor an oracle. From the host (`.host`: the passphrase file at start,
    /// a signal) the budget neither applies nor grows, and a success resets it.
    public func unlock(passphrase: SecureBytes, from source: UnlockSource = .network) throws(KeychainError) {
        let barrier = try barrier()
        try kdfGate.withLock { _ throws(KeychainError) in
            let verified = try verifyPassphrase(passphrase, key: "passphrase", from: source)
            lastSecretUse.store(clock.uptime(), ordering: .relaxed)
            if barrier.isUnlocked { return }
            barrier.install(whenUnlocked: verified.keys.whenUnlocked, afterFirstUnlock: verified.keys.afterFirstUnlock)
            do throws(KeychainError) {
                try publishLockState(barrier, logging: .unlock)
            } catch {
                // Unlocked everywhere or nowhere: the other replicas could not be told.
                barrier.lock()
                throw error
            }
            logger.info("keychain unlocked", metadata: ["unlock.source": "\(source)"])
            publish(.unlock)
        }
    }

    /// Locks: the whenUnlocked key leaves memory before this returns. On a shared store the
    /// other replicas are told before it returns, and lock at their next `synchronize`. Returns
    /// the `lock` event's sequence, to wait for its delivery: nil without subscribers, or when
    /// the keychain was locked already (no event then).
    @discardableResult
    public func lock() throws(KeychainError) -> UInt64? {
        let barrier = try barrier()
        let wasUnlocked = barrier.isUnlocked
        barrier.lock()
        logger.info("keychain locked")
        let event = wasUnlocked ? publish(.lock) : nil
        let logged = try publishLockState(barrier, logging: wasUnlocked ? .lock : nil)
        return logged ?? event
    }

    /// Re-wraps the class keys under a new passphrase; no item is touched. Needs the old passphrase.
    public func changePassphrase(old: SecureBytes, new: SecureBytes) throws(KeychainError) {
        try requirePassphrase(new, key: "new")
        _ = try barrier()
        try kdfGate.withLock { _ throws(KeychainError) in
            let (keys, limits) = try verifyPassphrase(old, key: "old", from: .network)
            let newSalt = Sodium.randomBytes(PasswordHash.saltLength)
            let newLimits =
                limits.isAtLeastModerate
                ? limits : (configuration.allowWeakKDFForTesting ? limits : .moderate)
            let rewrapped = try Self.crypto { () throws(CryptoError) in
                let kek = try PasswordHash.deriveKey(passphrase: new, salt: newSalt, limits: newLimits)
                return (
                    whenUnlocked: try AEAD.wrap(
                        keys.whenUnlocked, with: kek, label: Barrier.Label.whenUnlocked),
                    afterFirstUnlock: try AEAD.wrap(
                        keys.afterFirstUnlock, with: kek, label: Barrier.Label.afterFirstUnlock)
                )
            }
            let barrier = try barrier()
            try transaction { writer in
                try writer.setMeta(Barrier.MetaKey.salt, newSalt)
                try writer.setMeta(Barrier.MetaKey.limits, Settings.encodeLimits(newLimits))
                try writer.setMeta(Barrier.MetaKey.whenUnlocked, rewrapped.whenUnlocked)
                try writer.setMeta(Barrier.MetaKey.afterFirstUnlock, rewrapped.afterFirstUnlock)
                try self.log(.passwordChanged, barrier: barrier, in: writer)
            }
            logger.info("passphrase changed")
            publish(.passwordChanged)
        }
    }

    // MARK: auto-lock

    /// Seconds without a whenUnlocked secret being used before the keychain locks; 0 = never.
    public var lockInterval: Int { lockIntervalSeconds.load(ordering: .relaxed) }

    /// Sets `lockInterval` (0 = never, at most a week), durably.
    public func setLockInterval(_ seconds: Int) throws(KeychainError) {
        guard (0...604_800).contains(seconds) else {
            throw .param("lockInterval: expected 0…604800 seconds")
        }
        try transaction { try $0.setMeta(Settings.lockInterval, Settings.encodeInt(Int64(seconds))) }
        lockIntervalSeconds.store(seconds, ordering: .relaxed)
    }

    /// Reads the settings again from the store, where another process sharing it may have
    /// changed them. `checkAutoLock` does, so a server sees such a change within a second.
    public func refreshSettings() throws(KeychainError) {
        let stored = try snapshot { try $0.meta(Settings.lockInterval) }
        if let seconds = stored.flatMap(Settings.decodeInt) {
            lockIntervalSeconds.store(Int(seconds), ordering: .relaxed)
        }
    }

    /// Refreshes the settings, synchronizes with the other replicas on a shared store, then
    /// locks if `lockInterval` has passed since a whenUnlocked secret was last used (on any
    /// replica), and lets idle event streams send their keep-alive. The server calls this four
    /// times a second; every operation checks the auto-lock (without the rest) first.
    public func checkAutoLock() {
        try? refreshSettings()
        synchronize()
        if let barrier = barrierSlot.withLock({ $0 }) { enforceAutoLock(barrier) }
        events.tick(uptime: clock.uptime())
    }

    func enforceAutoLock(_ barrier: Barrier) {
        let interval = lockIntervalSeconds.load(ordering: .relaxed)
        guard interval > 0, barrier.isUnlocked, idleMilliseconds() >= Int64(interval) * 1000 else { return }
        barrier.lock()
        logger.info("keychain auto-locked", metadata: ["keychain.lockInterval": "\(interval)"])
        publish(.lock)
        do throws(KeychainError) {
            try publishLockState(barrier, logging: .lock)
        } catch {
            logger.warning("auto-lock not told to the other replicas", metadata: ["error": "\(error.message)"])
        }
    }

    func noteSecretUse() {
        lastSecretUse.store(clock.uptime(), ordering: .relaxed)
    }

    // MARK: passphrase checks

    func requirePassphrase(_ passphrase: SecureBytes, key: String) throws(KeychainError) {
        guard passphrase.count >= 1 else { throw .param("\(key): the passphrase is empty") }
    }

    /// Checks the failure budget, counts the attempt, derives the key-encryption key from
    /// `passphrase` and unwraps the class keys with it; a right passphrase clears the count.
    /// From the host nothing is checked or counted. Runs Argon2id: call it inside `kdfGate`.
    func verifyPassphrase(_ passphrase: SecureBytes, key: String, from source: UnlockSource) throws(KeychainError)
        -> (keys: (whenUnlocked: SecureBytes, afterFirstUnlock: SecureBytes), limits: KDFLimits)
    {
        let counted = source == .network
        if counted { try countAttempt() }
        let (salt, limits, wu, afu) = try readKDF()
        let kek = try Self.crypto { () throws(CryptoError) in
            try PasswordHash.deriveKey(passphrase: passphrase, salt: salt, limits: limits)
        }
        let keys: (whenUnlocked: SecureBytes, afterFirstUnlock: SecureBytes)
        do {
            keys = try Barrier.unwrapClassKeys(kek: kek, wrappedWhenUnlocked: wu, wrappedAfterFirstUnlock: afu)
        } catch {
            counters.unlockFailures.add(1, ordering: .relaxed)
            logger.info("unlock failed: wrong passphrase", metadata: ["unlock.source": "\(source)"])
            throw .authFailed("\(key): incorrect passphrase")
        }
        do throws(KeychainError) {
            try transaction { try $0.setMeta(UnlockThrottle.metaKey, nil) }
        } catch  where !counted {
            // From the host nothing was counted: a count left by the network stays, harmlessly.
        } catch {
            // The attempt stays counted: one failure too many, never one too few.
            logger.warning(
                "unlock succeeded but its counted attempt could not be cleared", metadata: ["error": "\(error.message)"])
        }
        return (keys, limits)
    }

    /// Refuses the attempt while the failure budget says wait, else counts it as a failure in
    /// the store, reading the count in the same transaction so that attempts in several
    /// processes sharing the store all count. errSecNotAvailable when the count cannot be
    /// written: the attempt is then not made.
    private func countAttempt() throws(KeychainError) {
        let now = clock.now()
        try transaction { writer in
            let stored = try writer.meta(UnlockThrottle.metaKey).flatMap(UnlockThrottle.init(encoded:)) ?? UnlockThrottle()
            if let wait = stored.secondsToWait(now: now) {
                self.counters.unlockThrottled.add(1, ordering: .relaxed)
                throw KeychainError.unlockThrottled(retryAfter: wait)
            }
            try writer.setMeta(UnlockThrottle.metaKey, stored.recordingFailure(at: now).encoded)
        }
    }

    private func readKDF() throws(KeychainError) -> ([UInt8], KDFLimits, [UInt8], [UInt8]) {
        let values = try snapshot { reader in
            (
                try reader.meta(Barrier.MetaKey.salt), try reader.meta(Barrier.MetaKey.limits),
                try reader.meta(Barrier.MetaKey.whenUnlocked),
                try reader.meta(Barrier.MetaKey.afterFirstUnlock)
            )
        }
        guard let salt = values.0, let limits = values.1.flatMap(Settings.decodeLimits),
            let wu = values.2, let afu = values.3
        else { throw .decode("stored key-derivation parameters are missing or malformed") }
        return (salt, limits, wu, afu)
    }
}

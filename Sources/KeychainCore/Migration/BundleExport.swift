import KeychainBarrier
import KeychainCrypto
import KeychainHost
import KeychainStorage
import Logging
import Synchronization

/// A migration bundle being written, piece by piece, as its reader takes it
/// (`Keychain.exportBundle`, `Keychains.exportBundle`): the key is derived and the manifest
/// counted already; `next()` seals the rest one batch at a time, so that the bundle is never
/// whole in memory and at most one batch of secrets is ever open.
///
/// Before each piece every keychain exported must still be unlocked: a lock (by hand, by the auto-lock
/// timer, by another replica) or a close while the bundle is read makes the next piece throw
/// errSecInteractionNotAllowed (or errSecNotAvailable), and every one after it. What was read
/// until then lacks the FINAL message: a truncated bundle, which an import refuses whole
/// (errSecAuthFailed).
///
/// Thread-safe; pieces come in order, one call at a time.
public final class BundleExport: Sendable {
    /// What the bundle holds, counted before any item is sealed: its first message.
    public let manifest: BundleManifest
    /// The keychains exported, in the bundle's order.
    private let sources: [Keychain]
    private let state: Mutex<State>

    private struct State {
        /// The items to export, each with its keychain's index in `sources`, sealed as the
        /// store keeps them: one snapshot per keychain, the one the manifest counts. Dropped
        /// once the bundle ends, well or not.
        var records: [(source: Int, record: ItemRecord)]
        var writer: MigrationBundle.Writer
        /// What ended the bundle early: thrown again by every later call.
        var failure: KeychainError?
    }

    private init(
        sources: [Keychain], records: [(source: Int, record: ItemRecord)], manifest: BundleManifest,
        writer: sending MigrationBundle.Writer
    ) {
        self.sources = sources
        self.manifest = manifest
        state = Mutex(State(records: records, writer: writer))
    }

    /// The bundle of every item of `sources` that may leave this instance (never a
    /// `…ThisDeviceOnly` one, nor a key that is not extractable), sealed under `passphrase`
    /// with the first keychain's KDF limits. Every keychain must be unlocked: each item's
    /// secret is opened to be sealed again. Runs Argon2id, here, before returning.
    ///
    /// Takes one read snapshot of each keychain's items (sealed, as stored: they stay so in
    /// memory until the export is read or dropped) and opens their attributes to count the
    /// manifest, which the bundle carries before any item. Secrets are opened later, one batch
    /// at a time, as `next()` seals each batch.
    static func make(of sources: [Keychain], passphrase: SecureBytes) throws(KeychainError) -> BundleExport {
        let first = sources[0]
        try Keychain.requireBundlePassphrase(passphrase)
        guard first.configuration.kdfLimits.isAtLeastModerate || first.configuration.allowWeakKDFForTesting else {
            throw .param("kdfLimits: Argon2id limits must be at least MODERATE")
        }
        var exported: [(source: Int, record: ItemRecord)] = []
        var manifest = BundleManifest(created: first.clock.now(), leftBehind: [:])
        for (index, keychain) in sources.enumerated() {
            let barrier = try keychain.unlockedBarrier("export")
            for record in try keychain.snapshot({ try $0.items(matching: ItemFilter()) }) {
                let item = try DecodedItem(record, barrier: barrier, logger: keychain.logger)
                guard !item.protection.isThisDeviceOnly else {
                    manifest.leftBehind[item.protection.name, default: 0] += 1
                    continue
                }
                // A key added with `isExtractable: false` never leaves, not even sealed in a bundle.
                guard Keychain.isExtractable(item) else {
                    manifest.leftBehind[BundleManifest.notExtractable, default: 0] += 1
                    continue
                }
                manifest.count(item.itemClass, group: item.group, protection: item.protection, keychain: keychain.name)
                exported.append((index, record))
            }
        }
        let salt = Sodium.randomBytes(PasswordHash.saltLength)
        let limits = first.configuration.kdfLimits
        let key = try first.deriveBundleKey(passphrase, salt: salt, limits: limits)
        let writer = try Keychain.crypto { () throws(CryptoError) in
            try MigrationBundle.Writer(manifest: manifest, key: key, salt: salt, limits: limits)
        }
        return BundleExport(sources: sources, records: exported, manifest: manifest, writer: writer)
    }

    /// A bundle its reader left unfinished (a client gone) drops its items here.
    deinit {
        let held = state.withLock { state in
            let held = !state.records.isEmpty
            state.records = []
            return held
        }
        if held { releaseFreedMemory() }
    }

    /// The writer's next piece, its items' secrets opened with their keychain's barrier. (The
    /// items are read through a copy of the array, gone when this returns: `state.records` is
    /// then their only reference, and emptying it frees them.)
    private static func nextPiece(_ state: inout State, sources: [Keychain], barriers: [Barrier]) throws(KeychainError)
        -> [UInt8]?
    {
        let records = state.records
        return try state.writer.next { index throws(KeychainError) in
            let (source, record) = records[index]
            return try sources[source].bundleItem(record, barrier: barriers[source])
        }
    }

    /// The next piece of the bundle, `nil` once the FINAL message was given: the header and
    /// the manifest first, then one batch of at most 1,000 items (about 1 MiB) per call, each
    /// item's secret opened only as its batch is sealed. Joined in order, the pieces are the
    /// bundle. A throw ends the bundle for good (the keychain locked or closed meanwhile, or a
    /// stored item failed authentication): this call and every later one throw it.
    public func next() throws(KeychainError) -> [UInt8]? {
        try state.withLock { state throws(KeychainError) -> [UInt8]? in
            if let failure = state.failure { throw failure }
            guard !state.writer.isFinished else { return nil }
            do throws(KeychainError) {
                var barriers: [Barrier] = []
                for source in sources { barriers.append(try source.unlockedBarrier("export")) }
                let piece = try Self.nextPiece(&state, sources: sources, barriers: barriers)
                if state.writer.isFinished {
                    state.records = []
                    releaseFreedMemory()
                    let leftBehind = manifest.leftBehind.values.reduce(0, +)
                    sources[0].logger.info(
                        "keychain exported",
                        metadata: [
                            "bundle.items": "\(manifest.itemCount)", "bundle.leftBehind": "\(leftBehind)",
                            "bundle.keychains": "\(sources.map(\.name).joined(separator: ","))",
                        ])
                }
                return piece
            } catch {
                state.failure = error
                state.records = []
                releaseFreedMemory()
                sources[0].logger.warning(
                    "keychain export ended before its final message",
                    metadata: ["error": "\(error.name)", "error.message": "\(error.message)"])
                throw error
            }
        }
    }
}

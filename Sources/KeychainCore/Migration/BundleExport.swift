import KeychainBarrier
import KeychainCrypto
import KeychainHost
import KeychainStorage
import Logging
import Synchronization

/// A migration bundle being written, piece by piece, as its reader takes it
/// (`Keychain.exportBundle`): the key is derived and the manifest counted already; `next()`
/// seals the rest one batch at a time, so that the bundle is never whole in memory and at most
/// one batch of secrets is ever open.
///
/// Before each piece the keychain must still be unlocked: a lock (by hand, by the auto-lock
/// timer, by another replica) or a close while the bundle is read makes the next piece throw
/// errSecInteractionNotAllowed (or errSecNotAvailable), and every one after it. What was read
/// until then lacks the FINAL message: a truncated bundle, which an import refuses whole
/// (errSecAuthFailed).
///
/// Thread-safe; pieces come in order, one call at a time.
public final class BundleExport: Sendable {
    /// What the bundle holds, counted before any item is sealed: its first message.
    public let manifest: BundleManifest
    private let keychain: Keychain
    private let state: Mutex<State>

    private struct State {
        /// The items to export, sealed as the store keeps them: one snapshot, the one the
        /// manifest counts. Dropped once the bundle ends, well or not.
        var records: [ItemRecord]
        var writer: MigrationBundle.Writer
        /// What ended the bundle early: thrown again by every later call.
        var failure: KeychainError?
    }

    init(keychain: Keychain, records: [ItemRecord], manifest: BundleManifest, writer: sending MigrationBundle.Writer) {
        self.keychain = keychain
        self.manifest = manifest
        state = Mutex(State(records: records, writer: writer))
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

    /// The writer's next piece, its items' secrets opened with `barrier`. (The items are read
    /// through a copy of the array, gone when this returns: `state.records` is then their only
    /// reference, and emptying it frees them.)
    private static func nextPiece(_ state: inout State, keychain: Keychain, barrier: Barrier) throws(KeychainError) -> [UInt8]? {
        let records = state.records
        return try state.writer.next { index throws(KeychainError) in try keychain.bundleItem(records[index], barrier: barrier) }
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
                let piece = try Self.nextPiece(&state, keychain: keychain, barrier: keychain.unlockedBarrier("export"))
                if state.writer.isFinished {
                    state.records = []
                    releaseFreedMemory()
                    let leftBehind = manifest.leftBehind.values.reduce(0, +)
                    keychain.logger.info(
                        "keychain exported",
                        metadata: ["bundle.items": "\(manifest.itemCount)", "bundle.leftBehind": "\(leftBehind)"])
                }
                return piece
            } catch {
                state.failure = error
                state.records = []
                releaseFreedMemory()
                keychain.logger.warning(
                    "keychain export ended before its final message",
                    metadata: ["error": "\(error.name)", "error.message": "\(error.message)"])
                throw error
            }
        }
    }
}

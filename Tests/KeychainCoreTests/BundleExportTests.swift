import Foundation
import KeychainCrypto
import Testing

@testable import KeychainCore

/// An export streams its bundle (`BundleExport.next()`): the header and manifest, then one
/// sealed batch a piece, the last tagged FINAL; a lock meanwhile ends it before that message.
@Suite struct BundleExportTests {
    typealias Bundles = MigrationBundleTests

    /// `count` generic passwords, each with a random secret of `secretBytes`, in three groups,
    /// of the migratable protection classes in turn (or all of `protection`).
    static func items(_ count: Int, secretBytes: Int, protection: Protection? = nil) -> [BundleItem] {
        let service = Schema.key(canonical: "service")!
        let account = Schema.key(canonical: "account")!
        let classes: [Protection] = [.whenUnlocked, .afterFirstUnlock, .always]
        return (0..<count).map { n in
            BundleItem(
                itemClass: .genericPassword, protection: protection ?? classes[n % 3], synchronizable: false,
                created: 1_000 + Int64(n), modified: 2_000 + Int64(n), ref: Sodium.randomBytes(16), group: "g\(n % 3)",
                attributes: [(service, .string("svc-\(n)")), (account, .string("acct"))], secret: Sodium.randomBytes(secretBytes))
        }
    }

    /// A keychain holding `items`, imported in one transaction (as fast as it gets).
    static func source(_ items: [BundleItem]) throws -> Fixture {
        let a = try Fixture()
        #expect(try Bundles.importInto(a, try Bundles.craft(items)).imported == items.count)
        return a
    }

    static func export(_ a: Fixture) throws -> BundleExport {
        try a.keychain.exportBundle(passphrase: SecureBytes(utf8: Bundles.bundlePassphrase), caller: a.admin)
    }

    /// The length a framed message's 4-byte prefix gives, at `offset`.
    static func messageLength(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }

    /// 2,500 small items: batches of 1,000 items; 40 of 60,000 bytes: batches closed at 1 MiB.
    @Test(arguments: [(2_500, 16), (40, 60_000)])
    func anExportLargerThanOneBatchStreamsOneMessageAPieceAndRoundTrips(count: Int, secretBytes: Int) throws {
        let items = Self.items(count, secretBytes: secretBytes)
        let a = try Self.source(items)
        let export = try Self.export(a)
        #expect(export.manifest.itemCount == count)
        let thirds = ["whenUnlocked": (count + 2) / 3, "afterFirstUnlock": (count + 1) / 3, "always": count / 3]
        #expect(export.manifest.accessible == thirds)

        var pieces: [[UInt8]] = []
        while let piece = try export.next() { pieces.append(piece) }
        #expect(try export.next() == nil, "nothing follows the FINAL message")
        // The manifest, then three batches: 1,000 + 1,000 + 500 items, or 18 + 18 + 4 (1 MiB each).
        #expect(pieces.count == 4)
        let header = MigrationBundle.headerLength
        #expect(Array(pieces[0].prefix(8)) == Array("KCBUNDLE".utf8))
        #expect(pieces[0].count == header + 4 + Self.messageLength(pieces[0], at: header), "the header and one message")
        for piece in pieces.dropFirst() {
            #expect(piece.count == 4 + Self.messageLength(piece, at: 0), "one framed message a piece")
        }

        // Opened, it holds every item with its secret; imported, every item arrives.
        let bundle = pieces.flatMap { $0 }
        let parts = try MigrationBundle.header(of: bundle)
        let key = try PasswordHash.deriveKey(
            passphrase: SecureBytes(utf8: Bundles.bundlePassphrase), salt: parts.salt, limits: parts.limits)
        let opened = try MigrationBundle.open(bundle, key: key, header: parts)
        #expect(opened.manifest == export.manifest)
        let secrets = Dictionary(uniqueKeysWithValues: opened.items.map { ($0.ref, $0.secret) })
        #expect(secrets.count == count)
        for item in items { #expect(secrets[item.ref] == item.secret, "an item's secret did not arrive whole") }

        let b = try Fixture(passphrase: Bundles.otherPassphrase)
        #expect(try Bundles.importInto(b, bundle).imported == count)
        #expect(try Bundles.count(b) == count)
        let last = try #require(items.last)
        let moved = try #require(try Bundles.item(b, PersistentRef.encode(last.ref)))
        #expect(moved.secret == last.secret)
    }

    @Test func aLockWhileTheBundleStreamsEndsItBeforeItsFinalMessage() throws {
        // afterFirstUnlock items: their key stays after a lock, so what ends the stream is the
        // keychain's lock itself, checked before each piece.
        let a = try Self.source(Self.items(1_500, secretBytes: 32, protection: .afterFirstUnlock))
        let export = try Self.export(a)
        let manifest = try #require(try export.next())
        let firstBatch = try #require(try export.next())
        try a.keychain.lock()
        expectError(.anyLocked, naming: "keychain") { _ = try export.next() }
        try a.unlock()
        expectError(.anyLocked, naming: "keychain") { _ = try export.next() }

        // What was read is a truncated bundle, refused whole.
        let b = try Fixture(passphrase: Bundles.otherPassphrase)
        expectError(.anyAuthFailed, naming: "truncated") { _ = try Bundles.importInto(b, manifest + firstBatch) }
        #expect(try Bundles.count(b) == 0)
    }

    @Test func aLockBeforeTheFirstPieceEndsTheBundleAtOnce() throws {
        let a = try Self.source(Self.items(3, secretBytes: 8))
        let export = try Self.export(a)
        try a.keychain.lock()
        expectError(.anyLocked, naming: "keychain") { _ = try export.next() }
    }

    @Test func anEmptyKeychainExportsItsManifestAloneTaggedFinal() throws {
        let a = try Fixture()
        let export = try Self.export(a)
        #expect(export.manifest.itemCount == 0)
        let only = try #require(try export.next())
        #expect(try export.next() == nil)
        let b = try Fixture(passphrase: Bundles.otherPassphrase)
        let result = try Bundles.importInto(b, only)
        #expect(result.imported == 0 && result.manifest.itemCount == 0)
    }
}

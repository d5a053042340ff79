import Foundation
import KeychainCrypto
import KeychainStorage
import Testing

@testable import KeychainCore

/// The migration bundle. Export from one keychain, import into another with
/// another passphrase and instance key; `…ThisDeviceOnly` items never leave; a bundle that
/// fails authentication anywhere imports nothing; each conflict policy.
@Suite struct MigrationBundleTests {
    static let bundlePassphrase = "bundle passphrase for the move"
    static let otherPassphrase = "the new machine's own passphrase"

    /// Keychain A: items of both classes, three groups, every protection class.
    final class Source {
        let fixture: Fixture
        /// Migratable items' refs → their secrets (nil: no secret).
        var migratable: [String: String?] = [:]
        var deviceOnly: [String] = []

        init() throws {
            fixture = try Fixture()
            let secrets = ["alpha-SECRET-1", "bravo-SECRET-2", "charlie-SECRET-3", "delta-SECRET-4"]
            migratable[
                try fixture.addGeneric(service: "svc.one", account: "ann-account", secret: secrets[0], group: "group-one")] =
                secrets[0]
            migratable[
                try fixture.addGeneric(
                    service: "svc.two", account: "bob", secret: secrets[1], group: "g2", accessible: "afterFirstUnlock",
                    extra: ["label": "Bob's", "generic": .string(Base64.encode([0, 1, 2, 255])), "type": 1_234]
                )] = secrets[1]
            migratable[
                try fixture.addGeneric(service: "svc.three", account: "cy", secret: secrets[2], group: "g3", accessible: "always")
            ] = secrets[2]
            migratable[try fixture.addGeneric(service: "svc.none", account: "dee", secret: nil, group: "group-one")] =
                String?.none
            migratable[
                try fixture.keychain.add(
                    [
                        "class": "internetPassword", "server": "db.example.com", "account": "app", "protocol": "https",
                        "port": 5432,
                        "authenticationType": "httpBasic", "path": "/x", "accessGroup": "g2", "synchronizable": true,
                        "valueData": .string(Base64.encode(Array(secrets[3].utf8))),
                    ], token: fixture.admin
                ).persistentRef] = secrets[3]
            for (n, accessible) in ["whenUnlockedThisDeviceOnly", "afterFirstUnlockThisDeviceOnly", "alwaysThisDeviceOnly"]
                .enumerated()
            {
                deviceOnly.append(
                    try fixture.addGeneric(
                        service: "device.only", account: "a\(n)", secret: "DEVICE-ONLY-\(n)", group: "group-one",
                        accessible: accessible))
            }
        }

        func export(_ passphrase: String = MigrationBundleTests.bundlePassphrase) throws -> [UInt8] {
            try fixture.keychain.exportBundle(passphrase: SecureBytes(utf8: passphrase), caller: fixture.admin).joined()
        }
    }

    static func count(_ fixture: Fixture) throws -> Int { try fixture.keychain.countItems(token: fixture.admin) }

    static func item(_ fixture: Fixture, _ ref: String) throws -> ItemResult? {
        try? fixture.keychain.search(
            ["valuePersistentRef": .string(ref), "returnData": true, "returnAttributes": true, "returnPersistentRef": true],
            token: fixture.admin
        ).first
    }

    static func importInto(
        _ fixture: Fixture, _ bundle: [UInt8], _ policy: ConflictPolicy = .fail,
        passphrase: String = bundlePassphrase
    ) throws -> BundleImport {
        try fixture.keychain.importBundle(
            bundle, passphrase: SecureBytes(utf8: passphrase), conflict: policy, caller: fixture.admin)
    }

    @Test func exportAndImportMoveEveryMigratableItemAndNoThisDeviceOnlyOne() throws {
        let a = try Source()
        let export = try a.fixture.keychain.exportBundle(
            passphrase: SecureBytes(utf8: Self.bundlePassphrase), caller: a.fixture.admin)
        let manifest = export.manifest
        let bundle = try export.joined()
        #expect(manifest.itemCount == 5)
        #expect(manifest.classes == ["genericPassword": 4, "internetPassword": 1])
        #expect(manifest.groups == ["group-one": 2, "g2": 2, "g3": 1])
        #expect(manifest.accessible == ["whenUnlocked": 3, "afterFirstUnlock": 1, "always": 1])
        #expect(
            manifest.leftBehind == [
                "whenUnlockedThisDeviceOnly": 1, "afterFirstUnlockThisDeviceOnly": 1, "alwaysThisDeviceOnly": 1,
            ])

        let b = try Fixture(passphrase: Self.otherPassphrase)
        let result = try Self.importInto(b, bundle)
        #expect(result.imported == 5 && result.skipped == 0 && result.replaced == 0)
        #expect(result.manifest == manifest)
        #expect(try Self.count(b) == 5)
        for (ref, secret) in a.migratable {
            let original = try #require(try Self.item(a.fixture, ref))
            let moved = try #require(try Self.item(b, ref), "item \(ref) did not move")
            #expect(moved.persistentRef == ref)
            #expect(moved.attributesJSON == original.attributesJSON, "attributes and dates are kept")
            #expect(moved.secretString == secret)
        }
        for ref in a.deviceOnly { #expect(try Self.item(b, ref) == nil, "a ThisDeviceOnly item left its device") }
        // B's keys seal what it imported: locked, a whenUnlocked secret is out of reach, an always one is not.
        try b.keychain.lock()
        let always = try #require(a.migratable.first { $0.value == "charlie-SECRET-3" }?.key)
        #expect(try Self.item(b, always)?.secretString == "charlie-SECRET-3")
    }

    @Test func theBundleHoldsNoPlaintext() throws {
        let a = try Source()
        let bundle = try a.export()
        for text in [
            "alpha-SECRET-1", "bravo-SECRET-2", "charlie-SECRET-3", "delta-SECRET-4", "DEVICE-ONLY-0", "svc.one", "ann-account",
            "db.example.com", "group-one", "genericPassword", "whenUnlocked", Self.bundlePassphrase,
        ] {
            #expect(!Self.contains(bundle, Array(text.utf8)), "the bundle holds \(text) in clear")
        }
        for ref in a.migratable.keys {
            #expect(!Self.contains(bundle, PersistentRef.decode(ref)!), "the bundle holds a persistent ref in clear")
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    /// Ways a bundle goes wrong, and the error each must be refused with.
    enum Damage: String, CaseIterable, Sendable {
        case magic, limits, salt, streamHeader, middle, lastByte, truncatedLastMessage, truncatedMidMessage, trailingBytes,
            wrongPassphrase, empty
    }

    @Test(arguments: Damage.allCases)
    func aDamagedBundleIsRefusedWholeAndChangesNothing(_ damage: Damage) throws {
        let a = try Source()
        var bundle = try a.export()
        var passphrase = Self.bundlePassphrase
        let header = MigrationBundle.headerLength
        var expected = KeychainError.anyAuthFailed
        switch damage {
        case .magic:
            bundle[0] ^= 1
            expected = .anyDecode
        case .limits:
            bundle[9] = 0xFF  // opslimit far past what a reader accepts
            expected = .anyDecode
        case .salt: bundle[30] ^= 1
        case .streamHeader: bundle[header - 1] ^= 1
        case .middle: bundle[header + (bundle.count - header) / 2] ^= 0x40
        case .lastByte: bundle[bundle.count - 1] ^= 1
        case .truncatedLastMessage: bundle = Array(bundle[..<Self.lastMessageStart(bundle)])
        case .truncatedMidMessage: bundle.removeLast(5)
        case .trailingBytes:
            bundle += [0, 0, 0, 0]
            expected = .anyDecode
        case .wrongPassphrase: passphrase = "not the bundle passphrase"
        case .empty:
            bundle = []
            expected = .anyDecode
        }
        let b = try Fixture(passphrase: Self.otherPassphrase)
        try b.addGeneric(service: "already.here", account: "x")
        #expect(try Self.count(b) == 1)
        let error = expectError(expected) { _ = try Self.importInto(b, bundle, passphrase: passphrase) }
        #expect(error?.message.contains(passphrase) == false)
        #expect(try Self.count(b) == 1, "a refused bundle imported something")
    }

    /// Where the last sealed message's length prefix starts.
    static func lastMessageStart(_ bundle: [UInt8]) -> Int {
        var offset = MigrationBundle.headerLength
        var last = offset
        while offset < bundle.count {
            last = offset
            let length = bundle[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            offset += 4 + length
        }
        return last
    }

    @Test func reimportingWithEachPolicy() throws {
        let a = try Source()
        let bundle = try a.export()
        let b = try Fixture(passphrase: Self.otherPassphrase)
        #expect(try Self.importInto(b, bundle).imported == 5)

        let duplicate = expectError(.anyDuplicate, naming: "import") { _ = try Self.importInto(b, bundle, .fail) }
        #expect(duplicate.map { a.migratable.keys.contains($0.persistentRef ?? "") } == true, "fail names the colliding item")
        #expect(try Self.count(b) == 5)

        let skipped = try Self.importInto(b, bundle, .skip)
        #expect((skipped.imported, skipped.skipped, skipped.replaced) == (0, 5, 0))
        let replaced = try Self.importInto(b, bundle, .replace)
        #expect((replaced.imported, replaced.skipped, replaced.replaced) == (0, 0, 5))
        #expect(try Self.count(b) == 5)
    }

    @Test func aPrimaryKeyCollisionUnderEachPolicy() throws {
        let a = try Source()
        let bundle = try a.export()
        let moved = try #require(a.migratable.first { $0.value == "alpha-SECRET-1" }?.key)
        for policy in ConflictPolicy.allCases {
            let b = try Fixture(passphrase: Self.otherPassphrase)
            // The same primary key (class, group, service, account), another item: another ref and secret.
            let own = try b.addGeneric(service: "svc.one", account: "ann-account", secret: "B-OWN", group: "group-one")
            switch policy {
            case .fail:
                let error = expectError(.anyDuplicate, naming: "genericPassword") { _ = try Self.importInto(b, bundle, .fail) }
                #expect(error?.persistentRef == own)
                #expect(error?.message.contains(moved) == true, "the message names the bundle item's ref")
                #expect(try Self.count(b) == 1, "fail imported something")
            case .skip:
                let result = try Self.importInto(b, bundle, .skip)
                #expect((result.imported, result.skipped, result.replaced) == (4, 1, 0))
                #expect(try Self.item(b, own)?.secretString == "B-OWN")
                #expect(try Self.item(b, moved) == nil)
            case .replace:
                let result = try Self.importInto(b, bundle, .replace)
                #expect((result.imported, result.skipped, result.replaced) == (4, 0, 1))
                #expect(try Self.item(b, own) == nil)
                #expect(try Self.item(b, moved)?.secretString == "alpha-SECRET-1")
            }
            #expect(try Self.count(b) == (policy == .fail ? 1 : 5))
        }
    }

    /// A bundle imported into B, where one moved item (`moved`) then gets another primary key:
    /// its ref now names an item the bundle's item does not match by key.
    static func importedThenRenamed() throws -> (bundle: [UInt8], moved: String, b: Fixture) {
        let a = try Source()
        let bundle = try a.export()
        let moved = try #require(a.migratable.first { $0.value == "alpha-SECRET-1" }?.key)
        let b = try Fixture(passphrase: otherPassphrase)
        #expect(try importInto(b, bundle).imported == 5)
        try b.keychain.update(
            query: ["valuePersistentRef": .string(moved)], attributesToUpdate: ["account": "renamed"], token: b.admin)
        return (bundle, moved, b)
    }

    @Test func aPersistentRefCollisionIsAConflictToo() throws {
        let (bundle, moved, b) = try Self.importedThenRenamed()
        expectError(.anyDuplicate, naming: "persistent ref") { _ = try Self.importInto(b, bundle, .fail) }
        let skipped = try Self.importInto(b, bundle, .skip)
        #expect(skipped.skipped == 5)
        #expect(try Self.item(b, moved)?.attributesJSON?["account"] == "renamed")
        let replaced = try Self.importInto(b, bundle, .replace)
        #expect(replaced.replaced == 5)
        #expect(try Self.item(b, moved)?.attributesJSON?["account"] == "ann-account")
        #expect(try Self.count(b) == 5)
    }

    @Test func replaceRefusesWhenRefAndPrimaryKeyNameTwoItems() throws {
        let (bundle, _, b) = try Self.importedThenRenamed()
        try b.addGeneric(service: "svc.one", account: "ann-account", secret: "B-OWN", group: "group-one")
        expectError(.anyDuplicate, naming: "primary key of another") { _ = try Self.importInto(b, bundle, .replace) }
        #expect(try Self.count(b) == 6)
    }

    @Test func aBundleCarryingAThisDeviceOnlyItemIsRefused() throws {
        let item = BundleItem(
            itemClass: .genericPassword, protection: .whenUnlockedThisDeviceOnly, synchronizable: false, created: 1, modified: 1,
            ref: Sodium.randomBytes(16), group: "group-one",
            attributes: [(Schema.key(canonical: "service")!, .string("s")), (Schema.key(canonical: "account")!, .string("a"))],
            secret: Array("x".utf8))
        let bundle = try Self.craft([item])
        let b = try Fixture(passphrase: Self.otherPassphrase)
        expectError(.anyParam, naming: "accessible") { _ = try Self.importInto(b, bundle) }
        #expect(try Self.count(b) == 0)
    }

    /// A format-1 bundle (made before keychains had names) still opens: its items have no
    /// keychain, its manifest counts none, and an import puts them where it is asked to.
    @Test func aFormatOneBundleStillImports() throws {
        let item = BundleItem(
            itemClass: .genericPassword, protection: .whenUnlocked, synchronizable: false, created: 1, modified: 1,
            ref: Sodium.randomBytes(16), group: "group-one", attributes: [(Schema.key(canonical: "service")!, .string("old"))],
            secret: Array("from format 1".utf8))
        let bundle = try Self.craft([item], version: 1)
        #expect(bundle[8] == 1)
        let b = try Fixture(passphrase: Self.otherPassphrase)
        let imported = try Self.importInto(b, bundle)
        #expect(imported.imported == 1 && imported.manifest.format == 1 && imported.manifest.keychains.isEmpty)
        let found = try #require(try Self.item(b, PersistentRef.encode(item.ref)))
        #expect(found.secret == Array("from format 1".utf8))
        let v2 = try Self.craft([item])
        #expect(v2[8] == 2)
        var renamed = v2
        // A version byte changed is a header changed: every message is bound to it.
        renamed[8] = 1
        expectError(.anyAuthFailed) { _ = try Self.importInto(b, renamed) }
    }

    @Test func aBundleItemThisBuildWouldNotAddIsRefused() throws {
        let b = try Fixture(passphrase: Self.otherPassphrase)
        let good = BundleItem(
            itemClass: .genericPassword, protection: .whenUnlocked, synchronizable: false, created: 1, modified: 1,
            ref: Sodium.randomBytes(16), group: "group-one", attributes: [(Schema.key(canonical: "service")!, .string("ok"))],
            secret: nil)
        var wrongAttribute = good
        wrongAttribute.ref = Sodium.randomBytes(16)
        wrongAttribute.attributes = [(Schema.key(canonical: "server")!, .string("x"))]
        var unsupported = good
        unsupported.ref = Sodium.randomBytes(16)
        unsupported.itemClass = .identity
        unsupported.attributes = []
        expectError(.anyNoSuchAttr, naming: "server") { _ = try Self.importInto(b, try Self.craft([good, wrongAttribute])) }
        expectError(.anyParam, naming: "class") { _ = try Self.importInto(b, try Self.craft([good, unsupported])) }
        #expect(try Self.count(b) == 0, "a refused bundle imported its good items")
    }

    /// Keys travel whole, and a crafted key item whose bytes are not the key its attributes say
    /// is refused as its add would be.
    @Test func keysTravelAndAKeyWhoseBytesDisagreeIsRefused() throws {
        let a = try Fixture()
        let k = Keys.shared
        try a.addKey(k.p256.privateKey, type: "ec", keyClass: "private", group: "group-one")
        let bundle = try a.keychain.exportBundle(passphrase: SecureBytes(utf8: Self.bundlePassphrase), caller: a.admin).joined()
        let b = try Fixture(passphrase: Self.otherPassphrase)
        _ = try Self.importInto(b, bundle)
        let found = try b.keychain.search(["class": "key", "returnData": true, "returnAttributes": true], token: b.admin)
        #expect(found.first?.json["valueData"]?.stringValue.flatMap(Base64.decode) == k.p256.privateKey)
        #expect(found.first?.attributesJSON?["applicationLabel"] == .string(Base64.encode(k.p256.publicKeyHash)))
        let c = try Fixture(passphrase: Self.otherPassphrase)
        let wrong = BundleItem(
            itemClass: .key, protection: .whenUnlocked, synchronizable: false, created: 1, modified: 1,
            ref: Sodium.randomBytes(16),
            group: "group-one",
            attributes: [
                (Schema.key(canonical: "keyClass")!, .string("private")), (Schema.key(canonical: "keyType")!, .string("rsa")),
            ],
            secret: k.p256.privateKey)
        expectError(.anyParam, naming: "keyType") { _ = try Self.importInto(c, try Self.craft([wrong])) }
        #expect(try Self.count(c) == 0)
    }

    /// A key added with `isExtractable: false` is not in the bundle, even sealed: opened with the
    /// bundle passphrase (the documented format), no message holds its bytes, and the manifest
    /// counts it as left behind.
    @Test func aKeyThatIsNotExtractableStaysBehind() throws {
        let a = try Fixture()
        let k = Keys.shared
        try a.addKey(k.p256.privateKey, type: "ec", keyClass: "private", group: "group-one")
        try a.addKey(k.rsa.privateKey, type: "rsa", keyClass: "private", group: "group-one", extra: ["isExtractable": false])
        let export = try a.keychain.exportBundle(passphrase: SecureBytes(utf8: Self.bundlePassphrase), caller: a.admin)
        #expect(export.manifest.leftBehind == [BundleManifest.notExtractable: 1])
        #expect(export.manifest.classes == ["key": 1])
        let bundle = try export.joined()
        let header = try MigrationBundle.header(of: bundle)
        let key = try PasswordHash.deriveKey(
            passphrase: SecureBytes(utf8: Self.bundlePassphrase), salt: header.salt, limits: header.limits)
        let (manifest, items) = try MigrationBundle.open(bundle, key: key, header: header)
        #expect(manifest.leftBehind == [BundleManifest.notExtractable: 1])
        #expect(items.count == 1)
        #expect(!items.contains { $0.secret == k.rsa.privateKey }, "the key's bytes are in no message")

        let b = try Fixture(passphrase: Self.otherPassphrase)
        let imported = try Self.importInto(b, bundle)
        #expect(imported.imported == 1)
        #expect(imported.manifest.leftBehind == [BundleManifest.notExtractable: 1])
        expectError(.itemNotFound) { _ = try b.keychain.search(["class": "key", "keyType": "rsa"], token: b.admin) }
    }

    /// A bundle of `items`, sealed as an export seals one (for shapes an export never makes),
    /// in format `version`: from 2 on, an item without a keychain is the default keychain's.
    static func craft(_ items: [BundleItem], version: UInt8 = MigrationBundle.version) throws -> [UInt8] {
        let salt = Sodium.randomBytes(PasswordHash.saltLength)
        let limits = KDFLimits.insecureMinimumForTesting
        let key = try PasswordHash.deriveKey(passphrase: SecureBytes(utf8: bundlePassphrase), salt: salt, limits: limits)
        var items = items
        for n in items.indices { items[n].keychain = version >= 2 ? items[n].keychain ?? "default" : nil }
        var manifest = BundleManifest(items: items, created: 1, leftBehind: [:])
        manifest.format = Int(version)
        return try MigrationBundle.seal(manifest: manifest, items: items, key: key, salt: salt, limits: limits, version: version)
    }

    @Test func exportAndImportNeedTheKeychainUnlocked() throws {
        let a = try Source()
        let bundle = try a.export()
        try a.fixture.keychain.lock()
        expectError(.anyLocked, naming: "keychain") { _ = try a.export() }
        let b = try Fixture(passphrase: Self.otherPassphrase)
        try b.keychain.lock()
        expectError(.anyLocked, naming: "keychain") { _ = try Self.importInto(b, bundle) }
        try b.unlock(Self.otherPassphrase)
        #expect(try Self.count(b) == 0)
    }

    @Test func onlyAnAdminOfEveryGroupExportsOrImports() throws {
        let a = try Source()
        let bundle = try a.export()
        let scoped = try a.fixture.token(["group-one"])
        let reader = try a.fixture.token(["*"], [.read, .list, .write])
        for token in [scoped, reader] {
            expectError(.anyMissingEntitlement, naming: "token") {
                _ = try a.fixture.keychain.exportBundle(passphrase: SecureBytes(utf8: Self.bundlePassphrase), caller: token)
            }
            expectError(.anyMissingEntitlement, naming: "token") {
                _ = try a.fixture.keychain.importBundle(
                    bundle, passphrase: SecureBytes(utf8: Self.bundlePassphrase), conflict: .replace, caller: token)
            }
        }
    }
}

extension BundleExport {
    /// Every piece, in order, joined: the whole bundle.
    func joined() throws -> [UInt8] {
        var bundle: [UInt8] = []
        while let piece = try next() { bundle += piece }
        return bundle
    }
}

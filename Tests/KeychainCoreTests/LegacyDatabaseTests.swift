import Foundation
import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import TestSupport
import Testing

@testable import KeychainCore

/// A keychain written by keychaind before sealed attributes and token descriptions had an
/// encoding of their own (they were JSON; `Tests/Fixtures/legacy-v0`, made with `keychaind init`
/// and the API at commit 9318c95, its WAL checkpointed into the file) opens, reads and updates
/// with this build.
@Suite struct LegacyDatabaseTests {
    static let passphrase = "legacy fixture passphrase"
    static let adminSecret = "kcd_jSdK7wgYJA-5d45w4A6Su2Mupu9bVbChcFwc22IvwAI"
    static let readerSecret = "kcd_UVmN5V5-AxR9CUGiutLBTQV9n52JR2oo8YhPq2QYXFE"
    static let databaseRef = "9pchDmcmtbULmUm4bzPYbw"

    /// A copy of the fixture in a directory of its own: opening a keychain writes to it.
    static func open() throws -> (TemporaryDirectory, Keychain) {
        let directory = TemporaryDirectory()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/legacy-v0").standardizedFileURL.path
        for file in ["keychain.db", "instance.key"] {
            try FileManager.default.copyItem(atPath: fixture + "/" + file, toPath: directory.path + "/" + file)
        }
        return (directory, try Keychain.open(KeychainConfiguration(dataDirectory: directory.path)))
    }

    @Test func itsItemsAndTokensReadAsTheyWereWritten() throws {
        let (directory, keychain) = try Self.open()
        defer {
            keychain.close()
            _ = directory
        }
        #expect(keychain.state == .locked)
        try keychain.unlock(passphrase: SecureBytes(utf8: Self.passphrase))
        let admin = try keychain.authenticate(bearer: Self.adminSecret)
        // Made before `metrics` and `use` existed: every capability of its day, and not those.
        #expect(
            admin.name == "admin" && admin.accessGroups == ["*"]
                && admin.capabilities == Set(Capability.allCases).subtracting([.metrics, .use]))
        let reader = try keychain.authenticate(bearer: Self.readerSecret)
        #expect(reader.name == "reader" && reader.accessGroups == ["web", "default"] && reader.capabilities == [.read, .list])

        let database = try #require(
            try keychain.search(
                ["service": "db.example.com", "returnData": true, "returnAttributes": true, "returnPersistentRef": true],
                token: reader
            ).first)
        #expect(database.persistentRef == Self.databaseRef)
        #expect(database.secret == Array("hunter2".utf8))
        let attributes = try #require(database.attributes)
        #expect(attributes.itemClass == .genericPassword && attributes.accessGroup == "default")
        #expect(attributes.value("account") == .string("app"))
        #expect(attributes.value("label") == .string("Database"))
        #expect(attributes.value("generic") == .bytes([0, 1, 2, 255]))
        #expect(attributes.value("comment") == .string("héllo"))
        #expect(attributes.value("creator") == .int(1_633_837_924))
        #expect(attributes.value("isInvisible") == .bool(true))

        // Found through the primary-key index (a read token of named groups pins the whole key).
        let web = try #require(
            try keychain.search(
                [
                    "class": "internetPassword", "server": "example.com", "account": "web", "protocol": "https",
                    "authenticationType": "htmlForm", "port": 443, "path": "/login", "securityDomain": "ex", "returnData": true,
                    "returnAttributes": true,
                ], token: reader
            ).first)
        #expect(web.secret == Array("webpass".utf8))
        #expect(web.attributes?.accessible == .afterFirstUnlock)
        // Through a case-folded lookup digest.
        let sync = try keychain.search(["label": "STRASSE", "matchCaseInsensitive": true, "synchronizable": "any"], token: admin)
        #expect(sync.first?.attributes?.synchronizable == true)
        // Its internet password got the domain-suffix digests host matching needs when it opened.
        #expect(
            try keychain.search(["matchHostOrSubdomainOfHost": "com"], token: admin).first?.attributes?.value("server")
                == .string("example.com"))
        // An always item, and the primary key as stored then: a second one collides.
        #expect(try keychain.search(["service": "boot", "returnData": true], token: admin).first?.secret == Array("always".utf8))
        let duplicate = expectError(.anyDuplicate) {
            _ = try keychain.add(["class": "genericPassword", "service": "db.example.com", "account": "app"], token: admin)
        }
        #expect(duplicate?.persistentRef == Self.databaseRef)
    }

    @Test func anUpdatedItemIsSealedInTheCurrentEncoding() throws {
        let (directory, keychain) = try Self.open()
        defer {
            keychain.close()
            _ = directory
        }
        try keychain.unlock(passphrase: SecureBytes(utf8: Self.passphrase))
        let admin = try keychain.authenticate(bearer: Self.adminSecret)
        let ref = try #require(PersistentRef.decode(Self.databaseRef))
        func sealedVersion() throws -> UInt8? {
            let record = try #require(try keychain.store.items(matching: ItemFilter(ref: ref)).first)
            let ad = Barrier.attributesAD(
                ref: record.ref, itemClass: .genericPassword, group: record.group, protection: .whenUnlocked, sync: false)
            return try keychain.barrier().openAttributes(record.attributes, ad: ad).first
        }
        #expect(try sealedVersion() == UInt8(ascii: "{"))
        try keychain.update(
            query: ["valuePersistentRef": .string(Self.databaseRef)], attributesToUpdate: ["label": "Primary"], token: admin)
        #expect(try sealedVersion() == SealedEncoding.version)
        let read = try #require(
            try keychain.search(
                ["valuePersistentRef": .string(Self.databaseRef), "returnData": true, "returnAttributes": true], token: admin
            ).first)
        #expect(read.attributes?.value("label") == .string("Primary"))
        #expect(read.attributes?.value("generic") == .bytes([0, 1, 2, 255]))
        #expect(read.secret == Array("hunter2".utf8))
    }
}

import Foundation
import KeychainStorage
import TestSupport
import Testing

@testable import KeychainCore

@Suite struct AtRestTests {
    /// Reads every file of the data directory (database, -wal, -shm).
    private func dataFiles(_ f: Fixture) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: f.directory.path) {
            files[name] = [UInt8](try Data(contentsOf: URL(fileURLWithPath: f.directory.path + "/" + name)))
        }
        return files
    }

    private func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard haystack.count >= n.count else { return false }
        return (0...(haystack.count - n.count)).contains { i in haystack[i..<(i + n.count)].elementsEqual(n) }
    }

    @Test func theDataFilesHoldNoPlaintextAfterAddsAndDeletes() throws {
        let f = try Fixture()
        let secrets = [
            "Secret-Zebra-7731", "Account-Quokka-4410", "Service-Narwhal-9925", "server-ocelot.example", "Label-Ibis-1",
        ]
        try f.addGeneric(service: secrets[2], account: secrets[1], secret: secrets[0], extra: ["label": .string(secrets[4])])
        _ = try f.keychain.add(
            [
                "class": "internetPassword", "server": .string(secrets[3]), "account": .string(secrets[1]),
                "valueData": .string(Base64.encode(Array(secrets[0].utf8))),
            ], token: f.admin)
        try f.addGeneric(service: secrets[2] + "-deleted", account: secrets[1], secret: secrets[0] + "-deleted")
        #expect(try f.keychain.delete(["service": .string(secrets[2] + "-deleted")], token: f.admin) == 1)
        let files = try dataFiles(f)
        #expect(files.keys.contains("keychain.db"))
        for (name, bytes) in files {
            for plaintext in secrets + [f.adminSecret, "accessGroup", Keychain.defaultGroup] {
                #expect(!contains(bytes, plaintext), "\(name) contains \(plaintext)")
            }
        }
    }

    @Test func aCiphertextCopiedOntoAnotherRowFailsToOpen() throws {
        let f = try Fixture()
        let victim = try f.addGeneric(service: "victim", account: "v", secret: "victim-secret")
        let attacker = try f.addGeneric(service: "attacker", account: "a", secret: "attacker-secret")
        // Storage is untrusted: write the victim's sealed secret onto the attacker's row.
        try f.keychain.store.write { writer in
            let rows = try writer.items(matching: ItemFilter())
            let source = try #require(rows.first { PersistentRef.encode($0.ref) == victim })
            var target = try #require(rows.first { PersistentRef.encode($0.ref) == attacker })
            target.secret = source.secret
            target.lookups = []
            try writer.replace(target)
        }
        expectError(.anyDecode, naming: "valueData") {
            _ = try f.keychain.search(["valuePersistentRef": .string(attacker), "returnData": true], token: f.admin)
        }
        #expect(
            try f.keychain.search(["valuePersistentRef": .string(victim), "returnData": true], token: f.admin)[0]
                .secretString == "victim-secret")
    }

    @Test func aRowMovedToAnotherGroupFailsToOpen() throws {
        let f = try Fixture()
        let ref = try f.addGeneric(service: "s", account: "a", secret: "pw", group: "private")
        try f.addGeneric(service: "t", account: "b", group: "public")
        try f.keychain.store.write { writer in
            let rows = try writer.items(matching: ItemFilter())
            let publicGroup = try #require(rows.first { PersistentRef.encode($0.ref) != ref }).group
            var moved = try #require(rows.first { PersistentRef.encode($0.ref) == ref })
            moved.group = publicGroup
            try writer.replace(moved)
        }
        let publicToken = try f.token(["public"])
        expectError(.anyDecode, naming: "attributes") {
            _ = try f.keychain.search(["valuePersistentRef": .string(ref)], token: publicToken)
        }
    }

    /// The store hands back a guarded item's row with the attributes it had before its access
    /// object (a rollback): the secret, sealed bound to having one, does not open unchecked.
    @Test func aGuardedSecretDoesNotOpenWithoutItsAccessObject() throws {
        let f = try Fixture()
        let ref = try f.addGeneric(service: "guarded", account: "a", secret: "guarded-secret")
        let (_, bytes) = try #require(PersistentRef.parse(ref))
        let before = try #require(try f.keychain.store.write { try $0.items(matching: ItemFilter(ref: bytes)) }.first)
        let access = AccessObject(entries: [
            AccessEntry(authorizations: [.any], tokens: [], description: "", prompt: true)
        ])
        try f.keychain.setAccess(ref: bytes, access, token: f.admin)
        expectError(.interactionRequired(""), naming: "prompt") {
            _ = try f.keychain.search(["valuePersistentRef": .string(ref), "returnData": true], token: f.admin)
        }
        try f.keychain.store.write { writer in
            var rolledBack = try #require(try writer.items(matching: ItemFilter(ref: bytes)).first)
            rolledBack.attributes = before.attributes
            try writer.replace(rolledBack)
        }
        expectError(.anyDecode, naming: "valueData") {
            _ = try f.keychain.search(["valuePersistentRef": .string(ref), "returnData": true], token: f.admin)
        }
    }

    @Test func tokensAreStoredOnlyAsKeyedHashes() throws {
        let f = try Fixture()
        let issued = try f.keychain.createToken(
            name: "ci-runner", accessGroups: ["builds"], capabilities: [.read], expiresAt: nil, caller: f.admin)
        #expect(try f.keychain.authenticate(bearer: issued.secret) == issued.token)
        for (name, bytes) in try dataFiles(f) {
            #expect(!contains(bytes, issued.secret), "\(name) holds a token secret")
            #expect(!contains(bytes, "ci-runner"), "\(name) holds a token name")
        }
    }
}

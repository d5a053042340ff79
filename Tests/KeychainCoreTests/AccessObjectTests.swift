import KeychainCrypto
import KeychainJSON
import TestSupport
import Testing

@testable import KeychainCore

/// Access objects in the core, on each store and across replicas: the decision, the prompt's
/// passphrase, "Always Allow" and a revoked token's removal.
@Suite struct AccessObjectTests {
    static func token(_ keychain: Keychain, _ admin: AccessToken, _ name: String) throws -> AccessToken {
        try keychain.createToken(
            name: name, accessGroups: ["*"], capabilities: [.read, .list, .write, .delete], expiresAt: nil, caller: admin
        ).token
    }

    static func read(_ keychain: Keychain, _ ref: String, _ token: AccessToken) throws -> [UInt8]? {
        try keychain.search(["valuePersistentRef": .string(ref), "returnData": true], token: token).first?.secret
    }

    static func prompted(_ token: AccessToken, _ passphrase: String = testPassphrase, always: Bool = false) throws -> AccessToken
    {
        token.prompting(AccessPrompt(passphrase: try SecureBytes(utf8: passphrase), alwaysAllow: always))
    }

    @Test(arguments: StoreBackend.all)
    func theDecisionThePromptAndAlwaysAllow(backend: StoreBackend) throws {
        let f = try Fixture(backend: backend)
        let trusted = try Self.token(f.keychain, f.admin, "trusted")
        let other = try Self.token(f.keychain, f.admin, "other")
        let access = AccessObject.standard(description: "db", trusted: [trusted.id])
        let added = try f.keychain.add(
            ["class": "genericPassword", "service": "db", "valueData": "c2VjcmV0", "access": access.json], token: f.admin)
        let ref = added.persistentRef
        #expect(try Self.read(f.keychain, ref, trusted) == Array("secret".utf8))
        expectError(.interactionRequired(""), naming: "prompt") { _ = try Self.read(f.keychain, ref, other) }
        expectError(.authFailed(""), naming: "prompt") { _ = try Self.read(f.keychain, ref, Self.prompted(other, "wrong")) }
        #expect(try Self.read(f.keychain, ref, Self.prompted(other)) == Array("secret".utf8))
        expectError(.interactionRequired("")) { _ = try Self.read(f.keychain, ref, other) }

        // "Always Allow" is an update of the item: its subscribers are told so.
        let always = try Self.prompted(other, always: true)
        #expect(try Self.read(f.keychain, ref, always) == Array("secret".utf8))
        let subscriber = f.keychain.events.subscribe(after: nil) {}
        #expect(try f.keychain.applyAlwaysAllow(token: always).count == 1)
        #expect(try Self.read(f.keychain, ref, other) == Array("secret".utf8))
        var seen: [KeychainEvent] = []
        #expect(
            eventually {
                if case .events(let events) = subscriber.next() { seen += events }
                return !seen.isEmpty
            })
        let (_, refBytes) = try #require(PersistentRef.parse(ref))
        #expect(seen.map(\.name) == [.update])
        #expect(seen.first?.persistentRef == refBytes)

        // Revoking `other` takes it out again, on this store.
        try f.keychain.revokeToken(id: other.id, caller: f.admin)
        #expect(try f.keychain.forgetToken(other.id) == 1)
        #expect(try f.keychain.access(ref: refBytes, token: f.admin).access?.entries[2].tokens == [trusted.id])
    }

    /// An access object set through one replica holds on the other at once: it is in the row.
    @Suite(.enabled(if: PostgresServer.isInstalled, PostgresServer.notInstalled))
    struct Replicas {
        @Test(arguments: StoreBackend.shared)
        func anAccessObjectSetOnOneReplicaHoldsOnTheOther(backend: StoreBackend) throws {
            let pair = try SharedStoreTests.Pair(backend: backend)
            let admin = try pair.first.initialize(passphrase: SecureBytes(utf8: testPassphrase)).token
            try pair.first.lock()
            pair.second.checkAutoLock()
            try pair.first.unlock(passphrase: SecureBytes(utf8: testPassphrase))
            pair.second.checkAutoLock()
            let other = try AccessObjectTests.token(pair.first, admin, "other")
            let added = try pair.first.add(["class": "genericPassword", "service": "db", "valueData": "c2VjcmV0"], token: admin)
            let (_, bytes) = try #require(PersistentRef.parse(added.persistentRef))
            #expect(try AccessObjectTests.read(pair.second, added.persistentRef, other) == Array("secret".utf8))
            try pair.first.setAccess(ref: bytes, AccessObject.standard(description: "", trusted: []), token: admin)
            expectError(.interactionRequired(""), naming: "prompt") {
                _ = try AccessObjectTests.read(pair.second, added.persistentRef, other)
            }
            #expect(
                try AccessObjectTests.read(pair.second, added.persistentRef, AccessObjectTests.prompted(other))
                    == Array("secret".utf8))
        }
    }
}

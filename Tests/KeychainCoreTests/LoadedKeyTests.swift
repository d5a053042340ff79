import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import KeychainX509
import TestSupport
import Testing

@testable import KeychainCore

/// An RSA or EC private key used in place is loaded into OpenSSL once and kept by the barrier
/// while the keychain is unlocked: under every input of its seal's authentication, dropped when
/// the keychain locks or a key item is deleted.
@Suite struct LoadedKeyTests {
    static let algorithm = KeyAlgorithm.ecdsaSignatureMessageX962SHA256

    /// An EC private key item, kept; its persistent reference and public key.
    static func ecKey(_ f: Fixture, label: String) throws -> (ref: [UInt8], publicKey: [UInt8]) {
        let pair = try f.keychain.generateKeyPair(
            type: .ec, bits: 256,
            privateQuery: QueryParser.parse([
                "class": "key", "isPermanent": true, "label": .string(label), "keyClass": "private", "keyType": "ec",
            ]),
            publicQuery: QueryParser.parse(["class": "key", "keyClass": "public", "keyType": "ec"]), token: f.admin)
        let ref = try #require(pair.privateItem?.ref)
        return (ref, pair.publicKey)
    }

    static func sign(_ f: Fixture, _ ref: [UInt8]) throws -> [UInt8] {
        guard
            case .data(let signature) = try f.keychain.useKey(
                ItemQuery(persistentRef: ref), .sign(data: [1, 2, 3]), algorithm: algorithm, token: f.admin
            ).result
        else {
            Issue.record("no signature")
            return []
        }
        return signature
    }

    @Test func aKeyIsLoadedOnceKeptWhileUnlockedAndDroppedOnLockAndDelete() throws {
        let f = try Fixture()
        let barrier = try f.keychain.barrier()
        let (ref, publicKey) = try Self.ecKey(f, label: "kept")
        for _ in 0..<3 {
            let signature = try Self.sign(f, ref)
            #expect(
                try KeyOperations.verify(
                    [1, 2, 3], signature: signature, algorithm: Self.algorithm, publicKey: publicKey, type: .ec))
        }
        #expect(barrier.keptCount == 1)
        try f.keychain.lock()
        #expect(barrier.keptCount == 0)
        expectError(.interactionNotAllowed("")) { _ = try Self.sign(f, ref) }
        try f.keychain.unlock(passphrase: SecureBytes(utf8: testPassphrase))
        _ = try Self.sign(f, ref)
        #expect(barrier.keptCount == 1)
        _ = try f.keychain.delete(ItemQuery(persistentRef: ref), token: f.admin)
        #expect(barrier.keptCount == 0)
    }

    /// The store writes one key's sealed bytes onto another key's row, after the first was
    /// used: the second's use opens its row, which fails, and never reaches the kept key.
    @Test func aKeptKeyServesOnlyTheRowItWasOpenedFor() throws {
        let f = try Fixture()
        let (victim, _) = try Self.ecKey(f, label: "victim")
        let (attacker, _) = try Self.ecKey(f, label: "attacker")
        _ = try Self.sign(f, victim)
        try f.keychain.store.write { writer in
            let source = try #require(try writer.items(matching: ItemFilter(ref: victim)).first)
            var target = try #require(try writer.items(matching: ItemFilter(ref: attacker)).first)
            target.secret = source.secret
            try writer.replace(target)
        }
        expectError(.anyDecode, naming: "valueData") { _ = try Self.sign(f, attacker) }
        #expect(try !Self.sign(f, victim).isEmpty)
    }
}

import Dispatch
import KeychainBarrier
import KeychainCrypto
import KeychainJSON
import KeychainStorage
import KeychainX509
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

/// An RSA or EC private key used in place is loaded into OpenSSL once and kept by the barrier
/// while the keychain is unlocked: under every input of its seal's authentication, dropped when
/// the keychain locks or a key item is deleted.
@Suite struct LoadedKeyTests {
    static let algorithm = KeyAlgorithm.ecdsaSignatureMessageX962SHA256

    /// An EC (or `type`) private key item, kept; its persistent reference and public key.
    static func key(_ f: Fixture, label: String, type: KeyMaterial.Algorithm = .ec, bits: Int = 256) throws -> (
        ref: [UInt8], publicKey: [UInt8]
    ) {
        let keyType = JSON.string(type.rawValue)
        let pair = try f.keychain.generateKeyPair(
            type: type, bits: bits,
            privateQuery: QueryParser.parse([
                "class": "key", "isPermanent": true, "label": .string(label), "keyClass": "private", "keyType": keyType,
            ]),
            publicQuery: QueryParser.parse(["class": "key", "keyClass": "public", "keyType": keyType]), token: f.admin)
        let ref = try #require(pair.privateItem?.ref)
        return (ref, pair.publicKey)
    }

    static func sign(_ f: Fixture, _ ref: [UInt8]) throws -> [UInt8] { try sign(f.keychain, f.admin, ref) }

    static func sign(
        _ keychain: Keychain, _ token: AccessToken, _ ref: [UInt8], algorithm: KeyAlgorithm = algorithm
    ) throws -> [UInt8] {
        guard
            case .data(let signature) = try keychain.useKey(
                ItemQuery(persistentRef: ref), .sign(data: [1, 2, 3]), algorithm: algorithm, token: token
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
        let (ref, publicKey) = try Self.key(f, label: "kept")
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
        let (victim, _) = try Self.key(f, label: "victim")
        let (attacker, _) = try Self.key(f, label: "attacker")
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

    /// One kept key serves several threads at once: OpenSSL's key object is read, never changed
    /// (RSA's blinding included).
    @Test(arguments: [
        (KeyMaterial.Algorithm.ec, 256, KeyAlgorithm.ecdsaSignatureMessageX962SHA256),
        (.rsa, 2048, .rsaSignatureMessagePKCS1v15SHA256),
    ])
    func aKeptKeySignsOnSeveralThreadsAtOnce(type: KeyMaterial.Algorithm, bits: Int, algorithm: KeyAlgorithm) throws {
        let f = try Fixture()
        let (ref, publicKey) = try Self.key(f, label: "shared", type: type, bits: bits)
        let (keychain, admin) = (f.keychain, f.admin)
        _ = try Self.sign(keychain, admin, ref, algorithm: algorithm)
        let results = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<50 {
                let verified =
                    (try? Self.sign(keychain, admin, ref, algorithm: algorithm)).flatMap {
                        try? KeyOperations.verify(
                            [1, 2, 3], signature: $0, algorithm: algorithm, publicKey: publicKey, type: type)
                    } ?? false
                results.withLock { $0.append(verified) }
            }
        }
        #expect(results.withLock { $0 } == Array(repeating: true, count: 200))
        #expect(try f.keychain.barrier().keptCount == 1)
    }
}

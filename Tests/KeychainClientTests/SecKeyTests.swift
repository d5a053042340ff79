import Foundation
import KeychainClient
import Testing

/// The SecKey functions against a live server: keys made and kept by the keychain, used in
/// place, with Apple's dictionaries and Apple's answers.
@Suite struct SecKeyTests {
    let server: LiveServer
    let client: KeychainClient

    init() throws {
        server = try LiveServer()
        client = try server.client()
    }

    private func makeKey(_ type: String, bits: Int, tag: String, privateAttributes: [String: Any] = [:]) async throws -> SecKey {
        var privateKeyAttributes: [String: Any] = [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data(tag.utf8)]
        privateKeyAttributes.merge(privateAttributes) { $1 }
        return try await SecKeyCreateRandomKey(
            [kSecAttrKeyType: type, kSecAttrKeySizeInBits: bits, kSecPrivateKeyAttrs: privateKeyAttributes], client)
    }

    @Test func aKeptP256KeySignsAndItsPublicKeyInHandVerifies() async throws {
        let key = try await makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, tag: "signing")
        #expect(key.keyType == "ec" && key.keyClass == "private")
        #expect(key.persistentRef?.count == 22)
        let message = Data("the message".utf8)
        let signature = try await SecKeyCreateSignature(key, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, message, client)
        #expect(signature.first == 0x30, "an X9.62 DER ECDSA-Sig-Value")

        let publicKey = try await SecKeyCopyPublicKey(key, client)
        #expect(publicKey.keyClass == "public" && publicKey.persistentRef == nil)
        let bytes = try await SecKeyCopyExternalRepresentation(publicKey, client)
        #expect(bytes.count == 65 && bytes.first == 4)
        let algorithm = kSecKeyAlgorithmECDSASignatureMessageX962SHA256
        #expect(try await SecKeyVerifySignature(publicKey, algorithm, message, signature, client))
        #expect(try await !SecKeyVerifySignature(publicKey, algorithm, Data("another".utf8), signature, client))

        // The same public key, made from its bytes, verifies too; as a private key it is refused.
        let fromData = try SecKeyCreateWithData(
            bytes, [kSecAttrKeyType: kSecAttrKeyTypeEC, kSecAttrKeyClass: kSecAttrKeyClassPublic])
        #expect(try await SecKeyVerifySignature(fromData, algorithm, message, signature, client))
        await #expect(throws: KeychainError.self) { try await SecKeyCreateSignature(fromData, algorithm, message, client) }
    }

    @Test func returnRefAnswersASecKeyThatSignsAndDigestsSignAsMessagesDo() async throws {
        _ = try await makeKey(kSecAttrKeyTypeEC, bits: 384, tag: "by-ref")
        let found = try await SecItemCopyMatching(
            [
                kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("by-ref".utf8), kSecAttrKeyClass: kSecAttrKeyClassPrivate,
                kSecReturnRef: true,
            ], client)
        let key = try #require(found as? SecKey, "\(String(describing: found))")
        #expect(key.keyType == "ec" && key.keyClass == "private" && key.persistentRef != nil)
        let publicKey = try await SecKeyCopyPublicKey(key, client)
        #expect(try await SecKeyCopyExternalRepresentation(publicKey, client).count == 97)
        let digest = Data(repeating: 0xA5, count: 48)
        let signature = try await SecKeyCreateSignature(key, kSecKeyAlgorithmECDSASignatureDigestX962SHA384, digest, client)
        #expect(
            try await SecKeyVerifySignature(publicKey, kSecKeyAlgorithmECDSASignatureDigestX962SHA384, digest, signature, client))

        // With attributes, the reference is the SecKey under kSecValueRef, and no persistent reference is shown.
        let attributes = try #require(
            try await SecItemCopyMatching(
                [
                    kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("by-ref".utf8),
                    kSecAttrKeyClass: kSecAttrKeyClassPrivate,
                    kSecReturnRef: true, kSecReturnAttributes: true,
                ], client) as? [String: Any])
        #expect((attributes[kSecValueRef] as? SecKey)?.persistentRef == key.persistentRef)
        #expect(attributes[kSecValuePersistentRef] == nil)
    }

    @Test func aTokenWithUseAloneSignsWithAKeyItNamesByQuery() async throws {
        _ = try await makeKey(kSecAttrKeyTypeEd25519, bits: 256, tag: "ed")
        let created = try await client.createToken(name: "signer", accessGroups: ["*"], capabilities: ["use"])
        let signer = try server.client(token: created.secret)
        let key = try SecKey(query: [kSecAttrApplicationTag: Data("ed".utf8), kSecAttrKeyClass: kSecAttrKeyClassPrivate])
        let message = Data("signed by a service".utf8)
        let signature = try await signer.SecKeyCreateSignature(
            key, kSecKeyAlgorithmEdDSASignatureMessageCurve25519SHA512, message)
        #expect(signature.count == 64)
        let publicKey = try await signer.SecKeyCopyPublicKey(key)
        #expect(publicKey.keyType == "ed25519")
        #expect(
            try await signer.SecKeyVerifySignature(
                publicKey, kSecKeyAlgorithmEdDSASignatureMessageCurve25519SHA512, message, signature))
        // `use` alone reveals nothing: the key's bytes and a search are refused.
        let read = await #expect(throws: KeychainError.self) {
            _ = try await signer.SecItemCopyMatching([kSecClass: kSecClassKey, kSecReturnData: true])
        }
        #expect(read?.status == errSecMissingEntitlement)
    }

    @Test func eciesAndOAEPRoundTripThroughTheKeptPrivateKey() async throws {
        for (type, bits, algorithm) in [
            (kSecAttrKeyTypeECSECPrimeRandom, 256, kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM),
            (kSecAttrKeyTypeRSA, 2048, kSecKeyAlgorithmRSAEncryptionOAEPSHA256),
        ] {
            let key = try await makeKey(type, bits: bits, tag: "crypt-\(type)")
            let publicKey = try await SecKeyCopyPublicKey(key, client)
            let plaintext = Data("a secret for \(type)".utf8)
            let ciphertext = try await SecKeyCreateEncryptedData(publicKey, algorithm, plaintext, client)
            #expect(ciphertext != plaintext)
            #expect(try await SecKeyCreateDecryptedData(key, algorithm, ciphertext, client) == plaintext)
            var tampered = ciphertext
            tampered[tampered.count - 1] ^= 1
            let refused = await #expect(throws: KeychainError.self) {
                _ = try await SecKeyCreateDecryptedData(key, algorithm, tampered, client)
            }
            #expect(refused?.status == errSecParam && refused?.message.contains("ciphertext") == true)
        }
    }

    @Test func twoKeptKeysAgreeOnASecret() async throws {
        let alice = try await makeKey(kSecAttrKeyTypeEC, bits: 256, tag: "alice")
        let bob = try await makeKey(kSecAttrKeyTypeEC, bits: 256, tag: "bob")
        let parameters: [String: Any] = [
            kSecKeyKeyExchangeParameterRequestedSize: 48, kSecKeyKeyExchangeParameterSharedInfo: Data("context".utf8),
        ]
        let algorithm = kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256
        let ours = try await SecKeyCopyKeyExchangeResult(alice, algorithm, bob, parameters, client)
        let theirs = try await SecKeyCopyKeyExchangeResult(
            bob, algorithm, try await SecKeyCopyPublicKey(alice, client), parameters, client)
        #expect(ours.count == 48)
        #expect(ours == theirs)
        let raw = try await SecKeyCopyKeyExchangeResult(alice, kSecKeyAlgorithmECDHKeyExchangeStandard, bob, [:], client)
        #expect(raw.count == 32 && raw != ours.prefix(32))
    }

    @Test func aKeyThatIsNotKeptIsInHandForExportOnly() async throws {
        let key = try await SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeEd25519], client)
        #expect(key.persistentRef == nil && key.keyClass == "private")
        #expect(try await SecKeyCopyExternalRepresentation(key, client).count == 32)
        let refused = await #expect(throws: KeychainError.self) {
            _ = try await SecKeyCreateSignature(
                key, kSecKeyAlgorithmEdDSASignatureMessageCurve25519SHA512, Data("x".utf8), client)
        }
        #expect(refused?.status == errSecParam && refused?.message.contains("kSecAttrIsPermanent") == true)
        let kept = await #expect(throws: KeychainError.self) {
            _ = try await SecItemCopyMatching([kSecClass: kSecClassKey, kSecMatchLimit: kSecMatchLimitAll], client)
        }
        #expect(kept?.status == errSecItemNotFound, "nothing was kept")
    }

    @Test func refusalsCarryTheirOSStatusAndNameTheirKey() async throws {
        let key = try await makeKey(kSecAttrKeyTypeEC, bits: 256, tag: "no-sign", privateAttributes: [kSecAttrCanSign: false])
        let message = Data("m".utf8)
        let flag = await #expect(throws: KeychainError.self) {
            _ = try await SecKeyCreateSignature(key, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, message, client)
        }
        #expect(flag?.status == errSecParam && flag?.message.contains("canSign") == true)
        let other = try await makeKey(kSecAttrKeyTypeEC, bits: 256, tag: "signs")
        let algorithm = await #expect(throws: KeychainError.self) {
            _ = try await SecKeyCreateSignature(other, kSecKeyAlgorithmRSASignatureMessagePSSSHA256, message, client)
        }
        #expect(algorithm?.status == errSecParam && algorithm?.message.contains("algorithm") == true)
        let missing = await #expect(throws: KeychainError.self) {
            _ = try await SecKeyCreateSignature(
                try SecKey(query: [kSecAttrApplicationTag: Data("nothing".utf8)]),
                kSecKeyAlgorithmECDSASignatureMessageX962SHA256,
                message, client)
        }
        #expect(missing?.status == errSecItemNotFound)
        let size = await #expect(throws: KeychainError.self) {
            _ = try await SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits: 192], client)
        }
        #expect(size?.status == errSecParam && size?.message.contains("keySizeInBits") == true)
    }
}

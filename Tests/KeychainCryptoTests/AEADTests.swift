import KeychainCrypto
import Testing

@Suite struct AEADTests {
    @Test func sealThenOpenRoundTrips() throws {
        let key = try SecureBytes.random(count: AEAD.keyLength)
        let frame = try AEAD.seal(Array("hello".utf8), key: key, associatedData: [1, 2, 3])
        #expect(frame[0] == AEAD.currentVersion)
        #expect(frame.count == 1 + 24 + 5 + 16)
        #expect(try AEAD.open(frame, key: key, associatedData: [1, 2, 3]) == Array("hello".utf8))
    }

    @Test func twoSealsOfTheSamePlaintextDiffer() throws {
        let key = try SecureBytes.random(count: AEAD.keyLength)
        #expect(try AEAD.seal([7], key: key, associatedData: []) != AEAD.seal([7], key: key, associatedData: []))
    }

    @Test func otherAssociatedDataAKeyOrAFlippedBitFailAuthentication() throws {
        let key = try SecureBytes.random(count: AEAD.keyLength)
        let frame = try AEAD.seal(Array("hello".utf8), key: key, associatedData: [1])
        #expect(throws: CryptoError.authenticationFailed) { try AEAD.open(frame, key: key, associatedData: [2]) }
        #expect(throws: CryptoError.authenticationFailed) {
            try AEAD.open(frame, key: try SecureBytes.random(count: AEAD.keyLength), associatedData: [1])
        }
        for index in [1, 25, frame.count - 1] {
            var tampered = frame
            tampered[index] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed) { try AEAD.open(tampered, key: key, associatedData: [1]) }
        }
        var relabelled = frame
        relabelled[0] = 2
        #expect(throws: CryptoError.malformedCiphertext) { try AEAD.open(relabelled, key: key, associatedData: [1]) }
        #expect(throws: CryptoError.malformedCiphertext) { try AEAD.open([1, 2, 3], key: key, associatedData: [1]) }
    }

    @Test func wrappedKeysUnwrapOnlyWithTheirLabel() throws {
        let kek = try SecureBytes.random(count: AEAD.keyLength)
        let key = try SecureBytes.random(count: 32)
        let wrapped = try AEAD.wrap(key, with: kek, label: "class.whenUnlocked")
        #expect(try AEAD.unwrap(wrapped, with: kek, label: "class.whenUnlocked").constantTimeEquals(key))
        #expect(throws: CryptoError.authenticationFailed) { try AEAD.unwrap(wrapped, with: kek, label: "class.always") }
    }

    @Test func argon2idDerivesTheSameKeyFromTheSameInputsOnly() throws {
        let salt = Sodium.randomBytes(PasswordHash.saltLength)
        let limits = KDFLimits.insecureMinimumForTesting
        let a = try PasswordHash.deriveKey(passphrase: SecureBytes(utf8: "pw"), salt: salt, limits: limits)
        let b = try PasswordHash.deriveKey(passphrase: SecureBytes(utf8: "pw"), salt: salt, limits: limits)
        let c = try PasswordHash.deriveKey(passphrase: SecureBytes(utf8: "pW"), salt: salt, limits: limits)
        #expect(a.constantTimeEquals(b))
        #expect(!a.constantTimeEquals(c))
        #expect(KDFLimits.moderate.isAtLeastModerate)
        #expect(!limits.isAtLeastModerate)
    }

    @Test func keyedDigestsDependOnKeyAndFraming() throws {
        let d1 = try KeyedDigest(key: SecureBytes.random(count: 32))
        let d2 = try KeyedDigest(key: SecureBytes.random(count: 32))
        #expect(d1.digest(Array("ab".utf8), Array("c".utf8)) != d1.digest(Array("a".utf8), Array("bc".utf8)))
        #expect(d1.digest(Array("x".utf8)) == d1.digest(Array("x".utf8)))
        #expect(d1.digest(Array("x".utf8)) != d2.digest(Array("x".utf8)))
        #expect(d1.digest(Array("x".utf8)).count == KeyedDigest.length)
    }

    @Test func secureBytesNeverPrintsItsContents() throws {
        var raw = Array("topsecret".utf8)
        let bytes = try SecureBytes(consuming: &raw)
        #expect(raw.allSatisfy { $0 == 0 })
        #expect(!"\(bytes)".contains("topsecret"))
        #expect("\(bytes)" == "SecureBytes(9 bytes)")
        bytes.wipe()
        #expect(bytes.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
    }
}

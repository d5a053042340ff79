import Testing

@testable import KeychainCrypto

/// Key material opened into the pool's buffers is zeroed when handed back, before anyone else
/// can take the buffer, and a buffer of another size is never handed out for it.
@Suite struct SecureBytesPoolTests {
    @Test func aRecycledBufferIsZeroedBeforeItIsTakenAgain() throws {
        let pool = SecureBytesPool()
        let first = try pool.take(count: 48)
        first.withUnsafeMutableBytes { $0.copyBytes(from: [UInt8](repeating: 0xA5, count: 48)) }
        pool.recycle(first)
        let again = try pool.take(count: 48)
        #expect(again === first, "the buffer is reused")
        #expect(again.withUnsafeBytes { Array($0) } == [UInt8](repeating: 0, count: 48))
        let other = try pool.take(count: 32)
        #expect(other !== first && other.count == 32)
    }

    @Test func anOpenedSecretHoldsTheSecretAndAnotherBindingOpensNothing() throws {
        let key = try SecureBytes.random(count: AEAD.keyLength)
        let frame = try AEAD.seal(Array("a private key's bytes".utf8), key: key, associatedData: [1])
        let opened = try AEAD.openSecure(frame, key: key, associatedData: [1])
        #expect(opened.withUnsafeBytes { Array($0) } == Array("a private key's bytes".utf8))
        SecureBytesPool.shared.recycle(opened)
        #expect(throws: CryptoError.self) { try AEAD.openSecure(frame, key: key, associatedData: [2]) }
    }
}

import CSodium
import KeychainCrypto
import Testing

/// Stored lookup digests, primary keys and token hashes depend on these exact bytes: a change
/// here would orphan every item of an existing keychain. The expected values were computed
/// independently, with Python's `hashlib.blake2b(data, digest_size=16, key=bytes(range(32)))`
/// over the length-prefixed parts.
@Suite struct KeyedDigestTests {
    private func testKey() throws -> KeyedDigest {
        let key = try SecureBytes(count: 32)
        key.withUnsafeMutableBytes { bytes in
            for i in bytes.indices { bytes[i] = UInt8(i) }
        }
        return try KeyedDigest(key: key)
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func partsAreLengthPrefixedBlake2b() throws {
        let digest = try testKey()
        let lookup = digest.digest(parts: [[0x45], Array("service".utf8), [0x73] + Array("svc-1".utf8)])
        #expect(hex(lookup) == "dffb1cce20a2835bd11d45b5fdcbf476")
        let port = digest.digest(parts: [[0x45], Array("port".utf8), [0x69, 0, 0, 0, 0, 0, 0, 0x01, 0xBB]])
        #expect(hex(port) == "4261bfe43bcff0c9e69ef7c181880de9")
    }

    @Test func streamedPartsEqualArrayParts() throws {
        let digest = try testKey()
        let streamed = digest.digest { input in
            input.append([0x50, 0x01, 0x00])
            input.append("default")
            Array("acct-1".utf8).withUnsafeBytes { input.append(tag: 0x73, $0) }
            Array("svc-1".utf8).withUnsafeBytes { input.append(tag: 0x73, $0) }
        }
        #expect(hex(streamed) == "175deb6e342089046ab724af84529894")
        #expect(
            streamed
                == digest.digest(parts: [
                    [0x50, 0x01, 0x00], Array("default".utf8), [0x73] + Array("acct-1".utf8), [0x73] + Array("svc-1".utf8),
                ]))
    }

    @Test func anEmptyPartStillCounts() throws {
        let digest = try testKey()
        #expect(digest.digest(parts: [[], [1]]) != digest.digest(parts: [[1]]))
        #expect(
            digest.digest {
                $0.append("")
                $0.append([1])
            } == digest.digest(parts: [[], [1]]))
    }

    /// A digest started from the copied keyed state is libsodium's own keyed BLAKE2b of the
    /// length-prefixed message: every part length from 0 to 600, so messages of 4 to 604 bytes,
    /// across each block boundary.
    @Test func aDigestIsLibsodiumsKeyedBlake2bOfTheMessage() throws {
        let key = try SecureBytes.random(count: 32)
        let digest = try KeyedDigest(key: key)
        for count in 0...600 {
            let part = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ count) }
            let message = withUnsafeBytes(of: UInt32(count).littleEndian, Array.init) + part
            var expected = [UInt8](repeating: 0, count: KeyedDigest.length)
            key.withUnsafeBytes { k in
                _ = crypto_generichash(
                    &expected, expected.count, message, UInt64(message.count), k.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    k.count)
            }
            #expect(digest.digest(part) == expected, "a part of \(count) bytes")
        }
    }

    /// A digest of no parts names nothing: a caller's mistake, which stops the process rather
    /// than answer a digest every such mistake would share.
    @Test func aDigestOfNoPartsTraps() async {
        await #expect(processExitsWith: .failure) {
            let key = try SecureBytes.random(count: 32)
            _ = try KeyedDigest(key: key).digest(parts: [])
        }
    }

    @Test func shortHashesAreStablePerKeyAndDifferAcrossKeys() throws {
        let one = try ShortKeyedHash()
        let other = try ShortKeyedHash()
        let token = "kcd_x_ZCNW7rNhh2kryUuzAa9Bcn4deBL97z1vEbCCF6Zj8"
        #expect(one.hash(token) == one.hash(String(token)))
        #expect(one.hash(token) != one.hash(token + "x"))
        #expect(one.hash(token) != other.hash(token), "each instance has its own random key")
    }
}

@Suite struct ShortKeyedHashInputTests {
    @Test func bytesHashAsTheStringTheyEncode() throws {
        let hash = try ShortKeyedHash()
        let header = Array("Bearer kcd_x_ZCNW7rNhh2kryUuzAa9Bcn4deBL97z1vEbCCF6Zj8".utf8)
        header.withUnsafeBytes { bytes in
            let credentials = UnsafeRawBufferPointer(rebasing: bytes[7...])
            #expect(hash.hash(credentials) == hash.hash("kcd_x_ZCNW7rNhh2kryUuzAa9Bcn4deBL97z1vEbCCF6Zj8"))
            #expect(hash.hash(UnsafeRawBufferPointer(rebasing: bytes[7..<(bytes.count - 1)])) != hash.hash(credentials))
        }
    }
}

import KeychainBarrier
import TestSupport
import Testing

@testable import KeychainCore

/// Sealed attributes and token descriptions in their own encoding (version 1), independent of
/// the wire's JSON; version 0 (JSON) still reads (`LegacyDatabaseTests` on a real database).
@Suite struct SealedEncodingTests {
    static let attributes: [(key: SchemaKey, value: AttributeValue)] = [
        (Schema.key(canonical: "service")!, .string("db é")), (Schema.key(canonical: "generic")!, .bytes([0, 255])),
        (Schema.key(canonical: "port")!, .int(-1)), (Schema.key(canonical: "isInvisible")!, .bool(true)),
        (Schema.key(canonical: "label")!, .string("")),
    ]

    @Test func attributesRoundTripInOrder() throws {
        let encoded = SealedAttributes.encode(group: "team", attributes: Self.attributes)
        #expect(encoded.first == SealedEncoding.version)
        let decoded = try #require(SealedAttributes.decode(encoded))
        #expect(decoded.group == "team")
        #expect(decoded.attributes.map(\.key.name) == Self.attributes.map(\.key.name))
        #expect(decoded.attributes.map(\.value) == Self.attributes.map(\.value))
    }

    @Test func anAccessObjectFollowsTheAttributes() throws {
        let access = AccessObject.standard(description: "d", trusted: ["tok_0123456789abcdef"])
        let encoded = SealedAttributes.encode(group: "team", attributes: Self.attributes, access: access)
        let decoded = try #require(SealedAttributes.decode(encoded))
        #expect(decoded.access == access)
        #expect(decoded.attributes.map(\.value) == Self.attributes.map(\.value))
        // Exact matching leaves such an item to `decode`.
        #expect(SealedAttributes.hold(encoded, ExactValues(values: [(Self.attributes[0].key, "db é")])) == nil)
        // Cut inside the access object, never back to an item without one.
        let plain = SealedAttributes.encode(group: "team", attributes: Self.attributes).count
        for cut in (plain + 1)..<encoded.count {
            #expect(SealedAttributes.decode(Array(encoded[..<cut])) == nil, "cut at \(cut)")
        }
        var writer = SealedEncoding.Writer()
        writer.append("other")
        writer.append("{}")
        #expect(SealedAttributes.decode(SealedAttributes.encode(group: "team", attributes: []) + writer.bytes.dropFirst()) == nil)
    }

    @Test func anythingMalformedIsRefused() {
        let encoded = SealedAttributes.encode(group: "team", attributes: Self.attributes)
        for cut in 0..<encoded.count { #expect(SealedAttributes.decode(Array(encoded[..<cut])) == nil, "cut at \(cut)") }
        #expect(SealedAttributes.decode(encoded + [0]) == nil, "trailing bytes")
        #expect(SealedAttributes.decode([2] + encoded.dropFirst()) == nil, "an unknown version")
        let unknown = SealedAttributes.encode(group: "g", attributes: [(Schema.key(canonical: "returnData")!, .bool(true))])
        #expect(SealedAttributes.decode(unknown) == nil, "not an attribute")
        let mistyped = SealedAttributes.encode(group: "g", attributes: [(Schema.key(canonical: "port")!, .string("443"))])
        #expect(SealedAttributes.decode(mistyped) == nil, "a value of another type")
    }

    /// A group or a value whose bytes are not UTF-8 is refused, not repaired (the strings are
    /// checked in place, ASCII without the standard library's generic validation).
    @Test func stringsThatAreNotUTF8AreRefused() throws {
        let encoded = SealedAttributes.encode(group: "g", attributes: [(Schema.key(canonical: "service")!, .string("ab"))])
        #expect(SealedAttributes.decode(encoded)?.attributes.first?.value == .string("ab"))
        // Version, the group's length (4 bytes), then its one byte.
        #expect(encoded[5] == UInt8(ascii: "g"))
        var badGroup = encoded
        badGroup[5] = 0xFF
        #expect(SealedAttributes.decode(badGroup) == nil)
        let value = try #require(encoded.lastIndex(of: UInt8(ascii: "a")))
        for bytes in [[0xC3, 0x28], [0x80, 0x62], [0xED, 0xA0]] as [[UInt8]] {
            var badValue = encoded
            badValue.replaceSubrange(value..<value + 2, with: bytes)
            #expect(SealedAttributes.decode(badValue) == nil, "\(bytes)")
        }
        var accented = encoded
        accented.replaceSubrange(value..<value + 2, with: [0xC3, 0xA9])
        #expect(SealedAttributes.decode(accented)?.attributes.first?.value == .string("é"))
    }

    @Test func tokenDescriptionsRoundTripAndVersionZeroReads() throws {
        let encoded = TokenDescription.encode(
            name: "ci", accessGroups: ["a", "b"], keychains: ["team-a", "*"], capabilities: [.read, .admin])
        let decoded = try #require(TokenDescription.decode(encoded))
        #expect(decoded.name == "ci" && decoded.accessGroups == ["a", "b"] && decoded.capabilities == [.read, .admin])
        #expect(decoded.keychains == ["team-a", "*"])
        // A description sealed before keychains had names ends after the capabilities.
        var unnamed = SealedEncoding.Writer()
        unnamed.append("ci")
        unnamed.append(UInt32(1))
        unnamed.append("a")
        unnamed.append(byte: 1)
        let before = try #require(TokenDescription.decode(unnamed.bytes))
        #expect(before.keychains == nil && before.accessGroups == ["a"] && before.capabilities == [.read])
        let legacy = Array(#"{"name":"ci","accessGroups":["a"],"capabilities":["list","write"]}"#.utf8)
        let old = try #require(TokenDescription.decode(legacy))
        #expect(old.name == "ci" && old.accessGroups == ["a"] && old.capabilities == [.list, .write])
        #expect(TokenDescription.decode(encoded + [1]) == nil)
    }
}

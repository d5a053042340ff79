@testable import KeychainCore
import TestSupport
import Testing

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

    @Test func tokenDescriptionsRoundTripAndVersionZeroReads() throws {
        let encoded = TokenDescription.encode(name: "ci", accessGroups: ["a", "b"], capabilities: [.read, .admin])
        let decoded = try #require(TokenDescription.decode(encoded))
        #expect(decoded.name == "ci" && decoded.accessGroups == ["a", "b"] && decoded.capabilities == [.read, .admin])
        let legacy = Array(#"{"name":"ci","accessGroups":["a"],"capabilities":["list","write"]}"#.utf8)
        let old = try #require(TokenDescription.decode(legacy))
        #expect(old.name == "ci" && old.accessGroups == ["a"] && old.capabilities == [.list, .write])
        #expect(TokenDescription.decode(encoded + [1]) == nil)
    }
}

import KeychainAPI
import KeychainJSON
import Testing

@testable import KeychainCore

/// An answer's attributes are written straight as bytes: exactly the bytes their `JSONObject`
/// serializes to, for every kind of value and for strings that need escaping.
@Suite struct ItemResultJSONTests {
    static func key(_ name: String) -> SchemaKey { Schema.key(canonical: name)! }

    static let cases: [ItemAttributes] = [
        ItemAttributes(
            itemClass: .genericPassword, accessGroup: "default", accessible: .whenUnlocked, synchronizable: false,
            creationDate: 1_795_665_511_579, modificationDate: 1_795_665_511_580, values: []),
        ItemAttributes(
            itemClass: .internetPassword, accessGroup: "team \"a\"\\b", accessible: .afterFirstUnlockThisDeviceOnly,
            synchronizable: true, creationDate: -1, modificationDate: 0,
            values: [
                (key("service"), .string("line\nnext\ttab \u{1}é😀")), (key("generic"), .bytes([0, 1, 254, 255])),
                (key("port"), .int(-443)), (key("isInvisible"), .bool(true)), (key("isNegative"), .bool(false)),
                (key("label"), .string("")), (key("creator"), .int(Int64.min)),
            ]),
        ItemAttributes(
            itemClass: .key, accessGroup: "k", accessible: .always, synchronizable: false, creationDate: 0,
            modificationDate: 253_402_300_799_999,
            values: [(key("startDate"), .int(951_782_400_000)), (key("endDate"), .int(-2_208_988_800_000))]),
    ]

    @Test(arguments: cases.indices)
    func attributesAreTheBytesOfTheirJSON(index: Int) throws {
        let attributes = Self.cases[index]
        var written: [UInt8] = []
        attributes.write(into: &written)
        #expect(written == JSON.object(attributes.json).serialized())
        #expect(try JSON.parse(written) == .object(attributes.json))
    }
}

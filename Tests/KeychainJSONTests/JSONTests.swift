import Testing

@testable import KeychainJSON

/// Serialization: plain strings are copied as they are, the rest escaped as RFC 8259 asks.
@Suite struct JSONTests {
    @Test(arguments: [
        ("c2VjcmV0LTAx", #""c2VjcmV0LTAx""#), ("", #""""#), ("é€😀", "\"é€😀\""),
        ("a\"b", #""a\"b""#), (#"a\b"#, #""a\\b""#), ("line\nnext\r\ttab", #""line\nnext\r\ttab""#),
        ("\u{0}\u{1f}", #""\u0000\u001f""#), ("\u{7f}", "\"\u{7f}\""),
    ])
    func stringsSerializeAsRFC8259(value: String, expected: String) throws {
        let bytes = JSON.string(value).serialized()
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(try JSON.parse(bytes) == .string(value))
    }

    /// A string's bytes must be UTF-8, with or without escapes in it: a lone continuation byte,
    /// a truncated sequence, an overlong form and a surrogate's encoding are each refused.
    @Test(arguments: [[0x80], [0xC3], [0xC3, 0x28], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xFF]] as [[UInt8]])
    func stringsThatAreNotUTF8AreRefused(bytes: [UInt8]) {
        for prefix in [[UInt8](), Array("a\\n".utf8)] {
            do {
                _ = try JSON.parse([0x22] + prefix + bytes + [0x22])
                Issue.record("parsed \(prefix + bytes)")
            } catch {
                #expect(error.reason == "invalid UTF-8 in a string")
            }
        }
    }

    @Test func objectsKeepTheirKeyOrder() {
        let object: JSON = .object(["b": 1, "a": .array([.bool(true), .null]), "c": .object(["k": "v"])])
        #expect(String(decoding: object.serialized(), as: UTF8.self) == #"{"b":1,"a":[true,null],"c":{"k":"v"}}"#)
    }
}

/// Parsing costs time linear in the input, whatever the number of keys (an unauthenticated
/// body reaches the parser): 100,000 keys parse, and a duplicate among them is still found.
@Suite struct JSONManyKeysTests {
    static func object(keys: Int, duplicateLast: Bool) -> [UInt8] {
        var text = "{"
        for n in 0..<keys {
            if n > 0 { text += "," }
            text += "\"k\(duplicateLast && n == keys - 1 ? 0 : n)\":\(n)"
        }
        return Array((text + "}").utf8)
    }

    @Test func aHundredThousandKeysParseInOrder() throws {
        let parsed = try #require(try JSON.parse(Self.object(keys: 100_000, duplicateLast: false)).objectValue)
        #expect(parsed.entries.count == 100_000)
        #expect(parsed.entries.first?.key == "k0" && parsed.entries.last?.key == "k99999")
        #expect(parsed.entries.last?.value == .int(99_999))
    }

    @Test(arguments: [3, 16, 17, 100_000])
    func aDuplicateKeyIsRefusedNamingIt(keys: Int) {
        #expect(throws: JSONParseError.self) { try JSON.parse(Self.object(keys: keys, duplicateLast: true)) }
        do {
            _ = try JSON.parse(Self.object(keys: keys, duplicateLast: true))
        } catch {
            #expect(error.reason == #"duplicate key "k0""#)
        }
    }
}

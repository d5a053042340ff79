@testable import KeychainCore
import Testing

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

    @Test func objectsKeepTheirKeyOrder() {
        let object: JSON = .object(["b": 1, "a": .array([.bool(true), .null]), "c": .object(["k": "v"])])
        #expect(String(decoding: object.serialized(), as: UTF8.self) == #"{"b":1,"a":[true,null],"c":{"k":"v"}}"#)
    }
}

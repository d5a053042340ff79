import Testing

@testable import KeychainJSON

/// `JSON.forEachMember(ofObject:_:)`: a passphrase's body read without a `String` of its values.
@Suite struct JSONMemberTests {
    /// Every member of `text`, string values as their bytes (`nil` for another type).
    static func members(_ text: String) throws(JSONParseError) -> [(String, [UInt8]?)] {
        var members: [(String, [UInt8]?)] = []
        try JSON.forEachMember(ofObject: Array(text.utf8)) { key, value in members.append((key, value.map { Array($0) })) }
        return members
    }

    @Test func stringValuesArriveAsTheirBytesInOrderAndOtherValuesAsNil() throws {
        let members = try Self.members(#" {"passphrase": "plain", "n": 5, "o": {"x": "y"}, "empty": ""} "#)
        #expect(members.map(\.0) == ["passphrase", "n", "o", "empty"])
        #expect(members[0].1 == Array("plain".utf8))
        #expect(members[1].1 == nil && members[2].1 == nil)
        #expect(members[3].1 == [])
    }

    /// Escapes decode to the bytes `JSON.parse` gives the same string: quotes, backslashes,
    /// control characters, a BMP character and a surrogate pair.
    @Test(arguments: [#"a\"b\\c"#, #"tab\there\n"#, #"caf\u00e9"#, #"\ud83d\ude00 smile"#, #"\/slash"#, "é€ raw"])
    func escapesDecodeAsParseDecodesThem(_ literal: String) throws {
        let members = try Self.members("{\"p\":\"\(literal)\"}")
        guard case .object(let object) = try JSON.parse("{\"p\":\"\(literal)\"}"), case .string(let parsed)? = object["p"] else {
            Issue.record("not a string")
            return
        }
        #expect(members[0].1 == Array(parsed.utf8))
    }

    @Test(arguments: [
        (#"{"p":"a","p":"b"}"#, #"duplicate key "p""#), (#"["p"]"#, "expected a JSON object"),
        (#"{"p":"a"} x"#, "unexpected data after the JSON value"), (#"{"p":"a"#, "unterminated string"),
        (#"{"p":"\ud800"}"#, "unpaired surrogate"), (#"{"p":"\q"}"#, "invalid escape"), ("", "expected a JSON object"),
    ])
    func malformedBodiesAreRefused(_ text: String, _ reason: String) {
        #expect(throws: JSONParseError.self) { try Self.members(text) }
        do { _ = try Self.members(text) } catch { #expect(error.reason == reason) }
    }

    /// Bytes that are not UTF-8 are refused in a value with or without escapes, as `parse` does.
    @Test func invalidUTF8IsRefused() {
        for value in [[0xFF], [0x5C, 0x6E, 0xC3]] as [[UInt8]] {
            let body = Array(#"{"p":""#.utf8) + value + Array(#""}"#.utf8)
            do {
                try JSON.forEachMember(ofObject: body) { _, _ in Issue.record("a member was handed over") }
                Issue.record("accepted")
            } catch {
                #expect(error.reason == "invalid UTF-8 in a string")
            }
        }
    }

    @Test func wipeZeroesTheBytes() {
        var bytes: [UInt8] = Array("secret".utf8)
        bytes.withUnsafeMutableBytes { JSON.wipe($0) }
        #expect(bytes == [0, 0, 0, 0, 0, 0])
    }
}

import Foundation
import KeychainJSON
import Testing

/// The cursor the audit line is written through: the same bytes as the array's appends, within
/// the bound it promises, and a trap rather than a write past it.
@Suite struct ByteCursorTests {
    /// Every byte value below 0x80, alone and between plain bytes, and UTF-8 beyond ASCII: the
    /// cursor escapes exactly as `JSON.appendString`, and writes at most `jsonStringBound`.
    @Test func stringsAreEscapedAsTheSerializerEscapesThem() {
        var values = (0..<0x80).flatMap { byte -> [String] in
            let one = String(decoding: [UInt8(byte)], as: UTF8.self)
            return [one, "ab" + one, one + "cd", "x" + one + one + "y"]
        }
        values += ["", "é€😀", "tok_0123456789abcdef", String(repeating: "\u{1}", count: 40)]
        for value in values {
            var expected: [UInt8] = []
            JSON.appendString(value, to: &expected)
            var written: [UInt8] = [0x7B]
            written.append(atMost: ByteCursor.jsonStringBound(value)) { $0.jsonString(value) }
            #expect(written == [0x7B] + expected, "\(Array(value.utf8))")
            #expect(expected.count <= ByteCursor.jsonStringBound(value))
        }
    }

    @Test(arguments: [
        (Int64(0), "0"), (9, "9"), (10, "10"), (99, "99"), (100, "100"), (1_790_000_000_000, "1790000000000"),
        (-25300, "-25300"), (Int64.max, "9223372036854775807"), (Int64.min, "-9223372036854775808"),
    ])
    func decimalsAreWrittenInFull(value: Int64, expected: String) {
        var written: [UInt8] = []
        written.append(atMost: 20) { $0.decimal(value) }
        #expect(String(decoding: written, as: UTF8.self) == expected)
    }

    @Test func theLargestNumberFitsItsTwentyBytes() {
        for value in [UInt64.max, 10_000_000_000_000_000_000, 9_999_999_999_999_999_999, 1] {
            var written: [UInt8] = []
            written.append(atMost: 20) { $0.decimal(value) }
            #expect(String(decoding: written, as: UTF8.self) == String(value))
        }
    }

    /// Every length from 0 to 70 (each remainder of three, the audit line's 16-byte digests and
    /// refs among them), of random bytes and of the bytes that use the alphabet's last symbols:
    /// the same characters as Foundation's base64 with the URL alphabet and no padding, in
    /// exactly `base64urlCount` bytes.
    @Test func base64urlIsFoundationsEncodingInTheURLAlphabetUnpadded() {
        var generator = SystemRandomNumberGenerator()
        for count in 0...70 {
            let random = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for bytes in [random, [UInt8](repeating: 0xFF, count: count)] {
                let expected = Data(bytes).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "")
                var written: [UInt8] = []
                written.append(atMost: ByteCursor.base64urlCount(count)) { cursor in
                    bytes.withUnsafeBytes { cursor.base64url($0) }
                }
                #expect(String(decoding: written, as: UTF8.self) == expected, "\(bytes)")
                #expect(written.count == ByteCursor.base64urlCount(count))
            }
        }
    }

    /// Literals, bytes, quoted text and an encoder's room land in order after what the array held.
    @Test func writesFollowTheArraysBytes() {
        var out = Array("head:".utf8)
        out.append(atMost: 32) { cursor in
            cursor.literal("{\"a\":")
            cursor.quoted("r-1")
            cursor.byte(UInt8(ascii: ","))
            cursor.write(atMost: 4) { room in
                room[0] = UInt8(ascii: "x")
                room[1] = UInt8(ascii: "y")
                return 2
            }
            #expect(cursor.count == 13)
            #expect(Array(cursor.written) == Array("{\"a\":\"r-1\",xy".utf8))
        }
        #expect(String(decoding: out, as: UTF8.self) == "head:{\"a\":\"r-1\",xy")
    }

    /// A line that would write past the bound it reserved stops the process instead.
    @Test func aWritePastTheBoundTraps() async {
        await #expect(processExitsWith: .failure) {
            var out: [UInt8] = []
            out.append(atMost: 4) { $0.literal("12345") }
        }
        await #expect(processExitsWith: .failure) {
            var out: [UInt8] = []
            out.append(atMost: 4) { cursor in cursor.write(atMost: 4) { _ in 5 } }
        }
    }
}

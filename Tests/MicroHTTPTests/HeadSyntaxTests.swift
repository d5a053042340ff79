import Testing

@testable import MicroHTTP

struct HeadSyntaxTests {
    /// The token check is a bitmap: every one of the 256 byte values answers as RFC 9110 §5.6.2
    /// spells `tchar` (the end-to-end refusals are in HTTPServerEdgeTests).
    @Test func tokenBytesAreExactlyRFC9110sTchar() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        #expect(tchar.count == 77)
        for byte in UInt8.min...UInt8.max {
            #expect(HeadSyntax.isTokenByte(byte) == tchar.contains(byte), "byte \(byte)")
        }
    }
}

extension HeadSyntaxTests {
    /// The word-at-a-time check of header values answers as the byte check does, for every byte
    /// value at every position of values of 1 to 24 bytes (the words and the tail alike), and
    /// for values whose every byte is allowed, tabs and obs-text among them.
    @Test func valueBytesAreCheckedAtEveryPosition() {
        let allowed: [UInt8] = Array(0x20...0x7E) + Array(0x80...0xFF) + [0x09]
        for count in 1...24 {
            var value = [UInt8](repeating: UInt8(ascii: "a"), count: count)
            for position in 0..<count {
                for byte in UInt8.min...UInt8.max {
                    value[position] = byte
                    let expected = HeadSyntax.isValueByte(byte)
                    let answer = value.withUnsafeBufferPointer { HeadSyntax.allValueBytes($0.baseAddress!, count: count) }
                    #expect(answer == expected, "byte \(byte) at \(position) of \(count)")
                }
                value[position] = UInt8(ascii: "a")
            }
            var mixed = (0..<count).map { allowed[($0 * 37) % allowed.count] }
            if count > 9 { mixed[9] = 0x09 }
            #expect(mixed.withUnsafeBufferPointer { HeadSyntax.allValueBytes($0.baseAddress!, count: count) })
        }
    }

    /// Names: every byte value at every position of names of 1 to 12 bytes.
    @Test func nameBytesAreCheckedAtEveryPosition() {
        for count in 1...12 {
            var name = [UInt8](repeating: UInt8(ascii: "X"), count: count)
            for position in 0..<count {
                for byte in UInt8.min...UInt8.max {
                    name[position] = byte
                    let answer = name.withUnsafeBufferPointer { HeadSyntax.allTokenBytes($0.baseAddress!, count: count) }
                    #expect(answer == HeadSyntax.isTokenByte(byte), "byte \(byte) at \(position) of \(count)")
                }
                name[position] = UInt8(ascii: "X")
            }
        }
    }
}

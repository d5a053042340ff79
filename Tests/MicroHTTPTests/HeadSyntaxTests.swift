@testable import MicroHTTP
import Testing

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

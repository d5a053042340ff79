import Foundation
@testable import KeychainCore
import Testing

@Suite struct Base64Tests {
    @Test(arguments: 0..<40)
    func encodingMatchesFoundationAndRoundTrips(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
        let encoded = Base64.encode(bytes)
        #expect(encoded == Data(bytes).base64EncodedString())
        #expect(Base64.decode(encoded) == bytes)
        let urlSafe = Base64.encodeURLSafe(bytes)
        #expect(!urlSafe.contains("=") && !urlSafe.contains("+") && !urlSafe.contains("/"))
        #expect(Base64.decode(urlSafe) == bytes)
    }

    @Test(arguments: ["a", "ab=c", "abc!", "YQ==YQ==", "YR==", " YWJj", "YWJj\n"])
    func nonBase64IsRefused(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}

@Suite struct Base64AppendTests {
    @Test(arguments: 0..<10)
    func appendWritesTheBytesOfEncodeAfterWhatIsThere(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: 251 &- $0 &* 7) }
        var out = Array("prefix".utf8)
        Base64.append(bytes, to: &out)
        #expect(out == Array(("prefix" + Base64.encode(bytes)).utf8))
        var safe: [UInt8] = []
        Base64.append(bytes, urlSafe: true, to: &safe)
        #expect(safe == Array(Base64.encodeURLSafe(bytes).utf8))
    }
}

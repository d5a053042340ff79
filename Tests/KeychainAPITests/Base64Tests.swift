import Foundation
import KeychainAPI
import KeychainCore
import TestSupport
import Testing

/// Base64 through swift-extras-base64: what the API takes (canonical encodings only) and how
/// an answer's bytes are written in place.
@Suite struct Base64Tests {
    @Test(arguments: 0..<40)
    func canonicalEncodingsRoundTrip(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
        let padded = Base64.encodeToString(bytes: bytes)
        #expect(padded == Data(bytes).base64EncodedString())
        #expect(Base64.decodeCanonical(padded) == bytes)
        let unpadded = String(padded.prefix { $0 != "=" })
        #expect(Base64.decodeCanonical(unpadded) == bytes)
        let urlSafe = PersistentRef.encode(bytes)
        #expect(!urlSafe.contains("=") && !urlSafe.contains("+") && !urlSafe.contains("/"))
        #expect(Base64.decodeCanonical(urlSafe, urlSafe: true) == bytes)
        #expect(Base64.decodeCanonical(urlSafe) == bytes, "the URL-safe alphabet is accepted on input")
        let urlSafePadded = Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet])
        #expect(Base64.decodeCanonical(urlSafePadded) == bytes)
        #expect(urlSafePadded == urlSafe || Base64.decodeCanonical(urlSafePadded, urlSafe: true) == nil, "refs have no padding")
    }

    @Test(arguments: ["a", "ab=c", "abc!", "YQ==YQ==", "YR==", " YWJj", "YWJj\n", "YQ=", "Y===", "-_9", "+-8A"])
    func anythingButACanonicalEncodingIsRefused(text: String) {
        #expect(Base64.decodeCanonical(text) == nil)
    }

    @Test func aPersistentReferenceIsTwentyTwoURLSafeCharacters() {
        let ref = [UInt8](repeating: 0xFB, count: 16)
        #expect(PersistentRef.decode(PersistentRef.encode(ref)) == ref)
        #expect(PersistentRef.decode(Base64.encodeToString(bytes: ref)) == nil, "standard alphabet, padded")
        #expect(PersistentRef.decode(PersistentRef.encode([UInt8](repeating: 1, count: 15))) == nil)
    }

    @Test(arguments: 0..<10)
    func appendWritesTheEncodingAfterWhatIsThere(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: 251 &- $0 &* 7) }
        var out = Array("prefix".utf8)
        out.appendBase64(bytes)
        #expect(out == Array(("prefix" + Base64.encodeToString(bytes: bytes)).utf8))
        var safe: [UInt8] = []
        safe.appendBase64(bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
        #expect(safe == Array(PersistentRef.encode(bytes).utf8))
    }
}

import Foundation
import KeychainCrypto
import TestSupport
import Testing

@testable import KeychainCore

/// Lookups and primary keys stream each value into the digest; the bytes must be exactly the
/// value's `digestBytes`, the form existing keychains were indexed with.
@Suite struct DigestPartTests {
    @Test(arguments: [
        AttributeValue.string("svc-1"), .string(""), .string("é€"), .bytes([0, 1, 255]), .bytes([]), .int(443), .int(-1),
        .bool(true), .bool(false),
    ])
    func streamedValueEqualsItsDigestBytes(value: AttributeValue) throws {
        let digest = try KeyedDigest(key: SecureBytes.random(count: 32))
        #expect(digest.digest { value.appendDigestPart(to: $0) } == digest.digest(parts: [value.digestBytes]))
    }

    @Test(arguments: ["svc-1", "Svc-1", "", "Straße", "e\u{301}"])
    func aStreamedFoldedStringEqualsItsFoldedPart(text: String) throws {
        let digest = try KeyedDigest(key: SecureBytes.random(count: 32))
        #expect(
            digest.digest { AttributeValue.appendFoldedDigestPart(text, to: $0) }
                == digest.digest(parts: [AttributeValue.foldedDigestPart(text)]))
    }
}

/// The ASCII fast path of case folding gives what the full path gives: folded lookups written by
/// earlier builds keep matching.
@Suite struct CaseFoldingTests {
    @Test func asciiFoldEqualsTheFullFold() {
        let printable = (0x20...0x7E).map { String(UnicodeScalar(UInt8($0))) }.joined()
        for text in [printable, "", "Svc-1", "ACCT", "already lower", "MiXeD 123 !?"] {
            #expect(CaseFolding.asciiFold(text) == text.uppercased().lowercased().precomposedStringWithCanonicalMapping)
        }
    }

    @Test(arguments: ["Straße", "É", "e\u{301}", "Σίσυφος"])
    func anythingElseTakesTheFullFold(text: String) {
        #expect(CaseFolding.asciiFold(text) == nil)
        #expect(CaseFolding.fold(text) == text.uppercased().lowercased().precomposedStringWithCanonicalMapping)
    }
}

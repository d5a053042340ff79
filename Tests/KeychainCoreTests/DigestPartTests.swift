@testable import KeychainCore
import TestSupport
import KeychainCrypto
import Testing

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
}

import TestSupport
import Testing

/// `OSX/sec/Security/Regressions/secitem/si-*.c` (Security-61901.0.87.0.1), case by case.
@Suite struct SecItemRegressions {
    /// si-00-find-nothing.c `tests`: SecItemCopyMatching of `{class: internetPassword}` in an empty
    /// keychain is errSecItemNotFound, and no result comes back.
    @Test func si00FindNothing() throws {
        let kc = AppleCalls(try APIFixture())
        let found = try kc.copyMatching(["class": "internetPassword"])
        #expect(found.status == errSecItemNotFound, "find nothing: \(found)")
        #expect(found.items.isEmpty, "results still NULL?")
    }
}

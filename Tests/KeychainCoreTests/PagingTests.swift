import KeychainCrypto
import TestSupport
import Testing

@testable import KeychainCore

/// A search's answer is bounded: pages of at most `maxAnswerItems` items and about
/// `maxAnswerBytes`, each with the cursor of the next, which together hold the whole answer.
@Suite struct PagingTests {
    private func fixture(items: Int, pageSize: Int = 3, bytes: Int = 1 << 20) throws -> Fixture {
        let f = try Fixture {
            $0.maxAnswerItems = pageSize
            $0.maxAnswerBytes = bytes
        }
        for n in 0..<items { try f.addGeneric(service: "paged", account: "a\(n)", secret: "secret \(n)") }
        try f.addGeneric(service: "other", account: "x")
        return f
    }

    /// Every page's accounts, following `next` until there is none.
    private func pages(_ f: Fixture, _ query: JSONObject, token: AccessToken? = nil) throws -> [[String]] {
        var query = query
        var pages: [[String]] = []
        while true {
            let page = try f.keychain.searchPage(query, token: token ?? f.admin)
            pages.append(
                page.items.compactMap {
                    if case .string(let account)? = $0.attributes?.value("account") { account } else { nil }
                })
            guard let next = page.next else { return pages }
            query["pageAfter"] = .string(next)
            if pages.count > 100 {
                Issue.record("the pages do not end")
                return pages
            }
        }
    }

    @Test func pagesHoldTheWholeAnswerInInsertionOrder() throws {
        let f = try fixture(items: 8)
        let all = try pages(f, ["service": "paged", "matchLimit": "all", "returnAttributes": true])
        #expect(all == [["a0", "a1", "a2"], ["a3", "a4", "a5"], ["a6", "a7"]])
        #expect(try f.keychain.search(["service": "paged", "matchLimit": "all"], token: f.admin).count == 3)
    }

    @Test func matchLimitCountsAcrossPages() throws {
        let f = try fixture(items: 8)
        #expect(
            try pages(f, ["service": "paged", "matchLimit": 5, "returnAttributes": true]) == [["a0", "a1", "a2"], ["a3", "a4"]])
        #expect(try pages(f, ["service": "paged", "matchLimit": 3, "returnAttributes": true]) == [["a0", "a1", "a2"]])
        #expect(
            try pages(f, ["service": "paged", "matchLimit": 6, "returnAttributes": true]) == [
                ["a0", "a1", "a2"], ["a3", "a4", "a5"],
            ])
    }

    /// Past the byte budget a page ends early, and holds one item at least.
    @Test func thePageEndsAtItsByteBudget() throws {
        let f = try fixture(items: 4, pageSize: 100, bytes: 1)
        let all = try pages(f, ["service": "paged", "matchLimit": "all", "returnAttributes": true, "returnData": true])
        #expect(all == [["a0"], ["a1"], ["a2"], ["a3"]])
    }

    /// A cursor can be neither read, forged, nor carried to another query or token.
    @Test func aCursorBelongsToItsQueryAndToken() throws {
        let f = try fixture(items: 5)
        let first = try f.keychain.searchPage(["service": "paged", "matchLimit": "all"], token: f.admin)
        let next = try #require(first.next)
        expectError(.anyParam, naming: "pageAfter") {
            _ = try f.keychain.searchPage(["service": "other", "matchLimit": "all", "pageAfter": .string(next)], token: f.admin)
        }
        expectError(.anyParam, naming: "pageAfter") {
            _ = try f.keychain.searchPage(["service": "paged", "matchLimit": 4, "pageAfter": .string(next)], token: f.admin)
        }
        let other = try f.token(["*"])
        expectError(.anyParam, naming: "pageAfter") {
            _ = try f.keychain.searchPage(["service": "paged", "matchLimit": "all", "pageAfter": .string(next)], token: other)
        }
        var tampered = Array(next.utf8)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        expectError(.anyParam, naming: "pageAfter") {
            _ = try f.keychain.searchPage(
                ["service": "paged", "matchLimit": "all", "pageAfter": .string(String(decoding: tampered, as: UTF8.self))],
                token: f.admin)
        }
        expectError(.anyParam, naming: "pageAfter") {
            _ = try f.keychain.delete(["service": "paged", "pageAfter": .string(next)], token: f.admin)
        }
    }

    /// A token sees only its groups' items on every page; a page counts no other group's item.
    @Test func pagesKeepTheTokensGroups() throws {
        let f = try Fixture { $0.maxAnswerItems = 2 }
        for n in 0..<6 { try f.addGeneric(service: "s", account: "a\(n)", group: n % 2 == 0 ? "even" : "odd") }
        let even = try f.token(["even"])
        #expect(
            try pages(f, ["service": "s", "matchLimit": "all", "returnAttributes": true], token: even) == [["a0", "a2"], ["a4"]])
    }

    @Test func anAttributeHoldsAtMost4096Bytes() throws {
        let f = try Fixture()
        let most = String(repeating: "l", count: ItemQuery.maxAttributeBytes)
        try f.addGeneric(service: "big", account: "u", extra: ["label": .string(most)])
        expectError(.anyTooLarge, naming: "label") {
            try f.addGeneric(service: "big", account: "v", extra: ["label": .string(most + "l")])
        }
        expectError(.anyTooLarge, naming: "label") {
            try f.keychain.update(query: ["service": "big"], attributesToUpdate: ["label": .string(most + "l")], token: f.admin)
        }
        expectError(.anyTooLarge, naming: "generic") {
            try f.addGeneric(
                service: "big", account: "w", extra: ["generic": .string(Base64.encode([UInt8](repeating: 1, count: 4097)))])
        }
        expectError(.anyParam, naming: "accessGroup") {
            try f.addGeneric(service: "big", account: "x", group: String(repeating: "g", count: 257))
        }
        #expect(try f.keychain.search(["service": "big", "matchLimit": "all"], token: f.admin).count == 1)
    }
}

import Dispatch
import KeychainBarrier
import KeychainStorage
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

/// A string attribute's lookup digest is that of its case-folded value: one index entry an
/// attribute rather than two. The store then selects "DUP" for a search of "dup" too, and the
/// opened attributes decide. Here the other case comes first and outnumbers the match, so that
/// a read limited before that check would answer the wrong item, or none.
@Suite struct ExactMatchTests {
    /// a0 DUP, a1 DUP, a2 dup, a3 DUP, a4 DUP, a5 dup.
    private func fixture(pageSize: Int = 100, backend: StoreBackend? = nil) throws -> Fixture {
        let f = try Fixture(backend: backend) { $0.maxAnswerItems = pageSize }
        for n in 0..<6 { try f.addGeneric(service: n % 3 == 2 ? "dup" : "DUP", account: "a\(n)") }
        return f
    }

    private func accounts(_ results: [ItemResult]) -> [String] {
        results.compactMap { if case .string(let account)? = $0.attributes?.value("account") { account } else { nil } }
    }

    @Test func aStringAttributeWritesOneDigestWhateverItsCase() throws {
        let f = try Fixture()
        let query = try QueryParser.parse(
            ["class": "genericPassword", "service": "Mail", "account": "alice", "label": "L", "generic": "AAE="])
        let (item, barrier) = try f.keychain.addedItem(query, token: f.admin)
        // service, account, label, generic (bytes) and the protection class: five, not eight.
        #expect(item.record.lookups.count == 5)
        let service = try #require(Schema.key(canonical: "service"))
        #expect(barrier.lookup(service, .string("Mail")) == barrier.lookup(service, .string("mAIL")))
        #expect(item.record.lookups.contains(barrier.lookup(service, .string("MAIL"))))
        let generic = try #require(Schema.key(canonical: "generic"))
        #expect(item.record.lookups.contains(barrier.lookup(generic, .bytes([0, 1]))))
    }

    /// The check reads the opened attributes where they lie; bytes it cannot walk go to the
    /// full decode (`nil`), which says what is wrong with them.
    @Test func theOpenedAttributesAreComparedByteForByte() throws {
        let service = try #require(Schema.key(canonical: "service"))
        let account = try #require(Schema.key(canonical: "account"))
        let generic = try #require(Schema.key(canonical: "generic"))
        let bytes = SealedAttributes.encode(
            group: "g", attributes: [(service, .string("Mail")), (generic, .bytes(Array("x".utf8))), (account, .string("é"))])
        func hold(_ values: [(key: SchemaKey, value: String)], _ bytes: [UInt8] = bytes) -> Bool? {
            SealedAttributes.hold(bytes, ExactValues(values: values))
        }
        #expect(hold([(service, "Mail"), (account, "é")]) == true)
        #expect(hold([(service, "mail")]) == false)
        #expect(hold([(account, "e\u{301}")]) == false, "canonically equivalent, other bytes")
        #expect(hold([(generic, "x")]) == false, "bytes are not a string")
        #expect(hold([(service, "Mail")], Array(bytes.dropLast())) == nil)
        #expect(hold([(service, "Mail")], Array(#"{"accessGroup":"g"}"#.utf8)) == nil)
    }

    @Test func aSearchAnswersTheExactCaseOnly() throws {
        let f = try fixture()
        #expect(accounts(try f.keychain.search(["service": "dup", "returnAttributes": true], token: f.admin)) == ["a2"])
        let all: JSONObject = ["service": "dup", "matchLimit": "all", "returnAttributes": true]
        #expect(accounts(try f.keychain.search(all, token: f.admin)) == ["a2", "a5"])
        #expect(
            accounts(try f.keychain.search(["service": "DUP", "matchLimit": 3, "returnAttributes": true], token: f.admin))
                == ["a0", "a1", "a3"])
        // Only the data asked for: the attributes are opened all the same, to compare.
        #expect(try f.keychain.search(["service": "dup", "account": "a5", "returnData": true], token: f.admin).count == 1)
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "Dup"], token: f.admin) }
        let folded = try f.keychain.search(["service": "Dup", "matchCaseInsensitive": true, "matchLimit": "all"], token: f.admin)
        #expect(folded.count == 6)
    }

    @Test func pagesHoldOnlyExactMatches() throws {
        let f = try fixture(pageSize: 1)
        var query: JSONObject = ["service": "dup", "matchLimit": "all", "returnAttributes": true]
        var pages: [[String]] = []
        while pages.count < 10 {
            let page = try f.keychain.searchPage(query, token: f.admin)
            pages.append(accounts(page.items))
            guard let next = page.next else { break }
            query["pageAfter"] = .string(next)
        }
        // The first page read on to a5 to know another page follows; the second read past the rest.
        #expect(pages == [["a2"], ["a5"]])
        // A cursor is bound to the exact value: "DUP"'s does not continue "dup"'s.
        let first = try f.keychain.searchPage(["service": "dup", "matchLimit": "all"], token: f.admin)
        let cursor = try #require(first.next)
        expectError(.anyParam, naming: "pageAfter") {
            _ = try f.keychain.searchPage(["service": "DUP", "matchLimit": "all", "pageAfter": .string(cursor)], token: f.admin)
        }
    }

    /// The server's searches go through `search(_:token:completion:)`: on PostgreSQL it reads on
    /// from the store's own thread, past the other case.
    @Test(arguments: StoreBackend.all)
    func theSearchAnsweredThroughACompletionIsExactToo(backend: StoreBackend) throws {
        let f = try fixture(backend: backend)
        for (object, expected) in [
            (["service": "dup", "returnAttributes": true], ["a2"]),
            (["service": "dup", "matchLimit": 2, "returnAttributes": true], ["a2", "a5"]),
            (["service": "DUP", "matchLimit": "all", "returnAttributes": true], ["a0", "a1", "a3", "a4"]),
        ] as [(JSONObject, [String])] {
            let answer = Mutex<Result<SearchPage, KeychainError>?>(nil)
            let answered = DispatchSemaphore(value: 0)
            f.keychain.search(try QueryParser.parse(object), token: f.admin) { result in
                answer.withLock { $0 = result }
                answered.signal()
            }
            #expect(answered.wait(timeout: .now() + 30) == .success)
            #expect(accounts(try #require(answer.withLock { $0 }).get().items) == expected)
        }
        let answer = Mutex<Result<SearchPage, KeychainError>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        f.keychain.search(try QueryParser.parse(["service": "Dup"]), token: f.admin) { result in
            answer.withLock { $0 = result }
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 30) == .success)
        #expect(throws: KeychainError.itemNotFound) { try #require(answer.withLock { $0 }).get() }
    }

    /// A token of every group names a whole primary key but its group: the items' primary-key
    /// digests decide, made with each item's group once an opened item has shown its name.
    @Test func aWholeKeyButItsGroupIsCheckedOnTheKeyDigest() throws {
        let f = try Fixture()
        let inA = try f.addGeneric(service: "DUP", account: "x", group: "a")
        let inB = try f.addGeneric(service: "dup", account: "x", group: "b")
        try f.addGeneric(service: "dup", account: "X", group: "a")
        let selection = try f.keychain.filter(
            for: QueryParser.parse(["service": "dup", "account": "x"]), token: f.admin, barrier: f.keychain.barrier())
        #expect(selection.filter.primaryKeys == nil && selection.exact.key != nil && selection.exact.values.isEmpty)
        let barrier = try f.keychain.barrier()
        let groupB = barrier.groupDigest("b")
        #expect(barrier.groupName(digest: groupB) == nil, "an add opens nothing it reads")
        for _ in 0..<2 {
            #expect(
                try f.keychain.search(["service": "dup", "account": "x", "matchLimit": "all"], token: f.admin)
                    .map(\.persistentRef) == [inB])
            #expect(try f.keychain.search(["service": "DUP", "account": "x"], token: f.admin).map(\.persistentRef) == [inA])
            expectError(.itemNotFound) { _ = try f.keychain.search(["service": "Dup", "account": "x"], token: f.admin) }
        }
        #expect(barrier.groupName(digest: groupB) == "b")
        // A label beside the key is still compared on the opened attributes.
        try f.keychain.update(query: ["service": "dup", "account": "x"], attributesToUpdate: ["label": "L"], token: f.admin)
        let labelled = try f.keychain.search(["service": "dup", "account": "x", "label": "L"], token: f.admin)
        #expect(labelled.map(\.persistentRef) == [inB])
        expectError(.itemNotFound) {
            _ = try f.keychain.search(["service": "dup", "account": "x", "label": "l"], token: f.admin)
        }
        #expect(try f.keychain.delete(["service": "dup", "account": "x"], token: f.admin) == 1)
        #expect(try f.keychain.search(["service": "dup", "matchLimit": "all"], token: f.admin).count == 1)
    }

    @Test func anUpdateOrADeleteTouchesTheExactCaseOnly() throws {
        let f = try fixture()
        let updated = try f.keychain.update(query: ["service": "dup"], attributesToUpdate: ["label": "x"], token: f.admin)
        #expect(updated.count == 2)
        #expect(
            accounts(try f.keychain.search(["label": "x", "matchLimit": "all", "returnAttributes": true], token: f.admin))
                == ["a2", "a5"])
        expectError(.itemNotFound) {
            try f.keychain.update(query: ["service": "Dup"], attributesToUpdate: ["label": "y"], token: f.admin)
        }
        expectError(.itemNotFound) { try f.keychain.delete(["service": "dUP"], token: f.admin) }
        #expect(try f.keychain.delete(["service": "dup"], token: f.admin) == 2)
        #expect(
            accounts(try f.keychain.search(["service": "DUP", "matchLimit": "all", "returnAttributes": true], token: f.admin))
                == ["a0", "a1", "a3", "a4"])
        #expect(try f.keychain.delete(["service": "DUP"], token: f.admin) == 4)
    }
}

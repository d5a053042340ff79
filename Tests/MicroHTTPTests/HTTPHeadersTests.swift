import Testing

@testable import MicroHTTP

/// Headers are kept as received, in one buffer; names compare in any ASCII case.
@Suite struct HTTPHeadersTests {
    let headers = HTTPHeaders([
        (name: "Host", value: "a"), (name: "AUTHORIZATION", value: "Bearer one"), (name: "X-Forwarded-For", value: "1.2.3.4"),
        (name: "authorization", value: "Bearer two"), (name: "x-forwarded-for", value: ""),
    ])

    /// A head's bytes (a bearer token among them) are zeroed in place, names and values alike.
    @Test func wipeZeroesEveryNameAndValue() {
        let headers = HTTPHeaders([(name: "Authorization", value: "Bearer kc_secret")])
        headers.wipeInPlace()
        #expect(headers.count == 1)
        #expect(headers.value(at: 0) == String(repeating: "\0", count: "Bearer kc_secret".utf8.count))
        #expect(headers.name(at: 0) == String(repeating: "\0", count: "Authorization".utf8.count))
    }

    /// A body grown chunk by chunk keeps every byte in order, and grows by doubling.
    @Test func wipedAppendKeepsTheBytes() {
        var body: [UInt8] = []
        var expected: [UInt8] = []
        for n in 0..<200 {
            let chunk = [UInt8](repeating: UInt8(n), count: n % 7 + 1)
            chunk.withUnsafeBytes { WipedBytes.append($0, to: &body) }
            expected += chunk
        }
        #expect(body == expected)
        #expect(body.capacity < 2 * expected.count + 16)
    }

    @Test func lookupsIgnoreTheCaseOfNamesAndFindTheFirstValue() {
        #expect(headers["Authorization"] == "Bearer one")
        #expect(headers["x-FORWARDED-for"] == "1.2.3.4")
        #expect(headers.values("X-Forwarded-For") == ["1.2.3.4", ""])
        #expect(headers["Content-Length"] == nil)
        #expect(headers.withFirstValue(lowercased: "authorization") { String(decoding: $0, as: UTF8.self) } == "Bearer one")
        #expect(headers.withFirstValue(lowercased: "content-length") { $0.count } == nil)
        #expect(headers.nameEquals(at: 0, lowercased: "host") && !headers.nameEquals(at: 0, lowercased: "hos"))
    }

    @Test func iterationKeepsOrderAndDuplicates() {
        #expect(headers.count == 5)
        #expect(headers.map(\.name) == ["Host", "AUTHORIZATION", "X-Forwarded-For", "authorization", "x-forwarded-for"])
        #expect(headers.map(\.value) == ["a", "Bearer one", "1.2.3.4", "Bearer two", ""])
    }

    @Test func rawBytesThatAreNotUTF8ReadAsReplacementCharacters() {
        var raw = HTTPHeaders()
        let name: [UInt8] = Array("X-Raw".utf8)
        let value: [UInt8] = [0x61, 0xFF, 0x62]
        name.withUnsafeBytes { n in value.withUnsafeBytes { raw.append(name: n, value: $0) } }
        #expect(raw["x-raw"] == "a\u{FFFD}b")
        #expect(raw.withFirstValue(lowercased: "x-raw") { Array($0) } == value)
    }
}

/// The budget of log lines a client can cause without a token.
@Suite struct LogBudgetTests {
    /// Within a second, lines past the budget are left out; the first line of a later second is
    /// written and carries the count of those left out, once.
    @Test func linesPastTheBudgetAreCountedAndReportedOnce() {
        let budget = LogBudget(perSecond: 3)
        let first = (0..<5).map { _ in budget.take(nowSeconds: 10) }
        #expect(first.map(\.write) == [true, true, true, false, false])
        #expect(first.allSatisfy { $0.suppressedBefore == 0 })
        #expect(budget.take(nowSeconds: 11) == LogBudget.Verdict(write: true, suppressedBefore: 2))
        #expect(budget.take(nowSeconds: 11) == LogBudget.Verdict(write: true, suppressedBefore: 0))
        #expect(LogBudget(perSecond: 0).take(nowSeconds: 1).write == false)
    }
}

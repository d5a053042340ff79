import TestSupport
import Testing

/// A search's answer over HTTP is bounded: `next` in the body, and `pageAfter` (a URL parameter
/// or a body key) continues it.
@Suite struct AnswerPagingRouteTests {
    @Test func aLongAnswerComesInPagesWithNext() throws {
        let f = try APIFixture { $0.maxAnswerItems = 2 }
        for n in 0..<5 { try f.add(service: "p", account: "a\(n)") }
        let first = try f.call("GET", "/v1/items?service=p&matchLimit=all")
        #expect(first.status == 200)
        #expect(first.items.count == 2)
        let next = try #require(first.json["next"]?.stringValue)
        let second = try f.call("GET", "/v1/items?service=p&matchLimit=all&pageAfter=\(next)")
        #expect(second.items.count == 2)
        let third = try f.call(
            "POST", "/v1/items/search",
            json: #"{"service":"p","matchLimit":"all","pageAfter":"\#(try #require(second.json["next"]?.stringValue))"}"#)
        #expect(third.items.count == 1)
        #expect(third.json["next"] == nil)
        let accounts = [first, second, third].flatMap {
            $0.items.compactMap { $0["attributes"]?.objectValue?["account"]?.stringValue }
        }
        #expect(accounts == ["a0", "a1", "a2", "a3", "a4"])
        try f.call("GET", "/v1/items?service=q&matchLimit=all&pageAfter=\(next)").expectError(400, -50, naming: "pageAfter")
    }

    @Test func aLabelOver4096BytesIs413NamingIt() throws {
        let f = try APIFixture()
        let label = String(repeating: "x", count: 65536)
        let response = try f.call(
            "POST", "/v1/items", json: #"{"class":"genericPassword","service":"s","account":"a","label":"\#(label)"}"#)
        response.expectError(413, -25302, naming: "label")
        try f.call("GET", "/v1/items?service=s").expectError(404, -25300)
    }
}

import KeychainCore
import TestSupport
import Testing

@Suite struct ItemRouteTests {
    @Test func addAnswers201WithLocationAndETag() throws {
        let f = try APIFixture()
        let response = try f.call("POST", "/v1/items", json: #"{"class":"genericPassword","service":"db","valueData":"cHc="}"#)
        #expect(response.status == 201)
        let ref = try #require(response.items.first?["persistentRef"]?.stringValue)
        #expect(response.header("Location") == "/v1/items/\(ref)")
        #expect(response.header("ETag") == "\"1\"")
        #expect(response.items.first?["attributes"]?.objectValue?["service"] == "db")
    }

    @Test func searchByURLParametersAndByAGETBodyGiveTheSameResult() throws {
        let f = try APIFixture()
        try f.add(service: "db", account: "a")
        try f.add(service: "db", account: "b")
        let byParameters = try f.call("GET", "/v1/items?service=db&matchLimit=all&returnData=true&returnAttributes=true")
        let byBody = try f.call(
            "GET", "/v1/items", json: #"{"service":"db","matchLimit":"all","returnData":true,"returnAttributes":true}"#)
        let byPost = try f.call(
            "POST", "/v1/items/search", json: #"{"service":"db","matchLimit":"all","returnData":true,"returnAttributes":true}"#)
        #expect(byParameters.status == 200)
        #expect(byParameters.items.count == 2)
        #expect(byParameters.body == byBody.body)
        #expect(byParameters.body == byPost.body)
        #expect(byParameters.items[0]["valueData"] == "c2VjcmV0")
    }

    @Test func parametersAndABodyTogetherAreParam() throws {
        let f = try APIFixture()
        try f.call("GET", "/v1/items?service=db", json: #"{"service":"db"}"#).expectError(400, -50, naming: "query")
    }

    @Test func aURLParameterGivenTwiceIsParamNamingIt() throws {
        let f = try APIFixture()
        try f.add(service: "db")
        try f.call("GET", "/v1/items?service=db&account=u&service=db").expectError(400, -50, naming: "service")
        try f.call("DELETE", "/v1/items?account=u&account=u").expectError(400, -50, naming: "account")
    }

    @Test func updateByQueryChangesEveryMatch() throws {
        let f = try APIFixture()
        try f.add(service: "db", account: "a")
        try f.add(service: "db", account: "b")
        let response = try f.call(
            "PATCH", "/v1/items", json: #"{"query":{"service":"db"},"attributesToUpdate":{"label":"rotated"}}"#)
        #expect(response.status == 200)
        #expect(response.items.count == 2)
        #expect(response.items.allSatisfy { $0["attributes"]?.objectValue?["label"] == "rotated" })
        try f.call("PATCH", "/v1/items", json: #"{"query":{"service":"db"}}"#).expectError(400, -50, naming: "attributesToUpdate")
    }

    @Test func deleteByQueryParametersOrBody() throws {
        let f = try APIFixture()
        try f.add(service: "a")
        try f.add(service: "b")
        #expect(try f.call("DELETE", "/v1/items?service=a").json["deleted"] == 1)
        #expect(try f.call("DELETE", "/v1/items", json: #"{"service":"b"}"#).json["deleted"] == 1)
        try f.call("DELETE", "/v1/items").expectError(400, -50, naming: "deleteAll")
        try f.call("DELETE", "/v1/items?service=a").expectError(404, -25300)
    }

    @Test func oneItemByPersistentRefWithETagAndIfMatch() throws {
        let f = try APIFixture()
        let ref = try f.add(service: "db")
        let get = try f.call("GET", "/v1/items/\(ref)")
        #expect(get.status == 200)
        #expect(get.header("ETag") == "\"1\"")
        #expect(Set(get.items[0].keys) == ["attributes", "persistentRef"])
        #expect(try f.call("GET", "/v1/items/\(ref)?returnData=true").items[0].keys == ["valueData"])
        try f.call("GET", "/v1/items/\(ref)?service=x").expectError(400, -50, naming: "service")

        let stale = try f.call("PATCH", "/v1/items/\(ref)", json: #"{"label":"x"}"#, headers: f.auth + [("If-Match", "\"9\"")])
        stale.expectError(412, -25310, naming: "If-Match")
        let patched = try f.call("PATCH", "/v1/items/\(ref)", json: #"{"label":"x"}"#, headers: f.auth + [("If-Match", "\"1\"")])
        #expect(patched.status == 200)
        #expect(patched.header("ETag") == "\"2\"")
        try f.call("DELETE", "/v1/items/\(ref)", headers: f.auth + [("If-Match", "\"1\"")]).expectError(412, -25310)
        let deleted = try f.call("DELETE", "/v1/items/\(ref)", headers: f.auth + [("If-Match", "W/\"2\"")])
        #expect(deleted.status == 200)
        #expect(deleted.json["deleted"] == 1)
        try f.call("GET", "/v1/items/\(ref)").expectError(404, -25300)
    }

    @Test func anotherGroupsPersistentRefIsA404ByteForByteLikeAMissingOne() throws {
        let f = try APIFixture()
        let other = try f.add(service: "db", group: "secret-team")
        let mine = try f.token(groups: ["mine"])
        let auth = [("Authorization", "Bearer \(mine)")]
        let missing = "AAAAAAAAAAAAAAAAAAAAAA"
        for (method, suffix, json) in [
            ("GET", "", nil), ("GET", "?returnData=true", nil), ("PATCH", "", #"{"label":"x"}"#), ("DELETE", "", nil),
        ] {
            let hidden = try f.call(method, "/v1/items/\(other)\(suffix)", json: json, headers: auth)
            let absent = try f.call(method, "/v1/items/\(missing)\(suffix)", json: json, headers: auth)
            hidden.expectError(404, -25300)
            #expect(hidden.status == absent.status)
            #expect(hidden.body == absent.body)
            #expect(
                hidden.headers.filter { $0.name != "Date" }.map { "\($0.name): \($0.value)" }
                    == absent.headers.filter { $0.name != "Date" }.map { "\($0.name): \($0.value)" })
        }
        // A malformed reference answers the same.
        #expect(
            try f.call("GET", "/v1/items/not-a-ref", headers: auth).body
                == (try f.call("GET", "/v1/items/\(missing)", headers: auth)).body)
    }

    @Test func twoRequestsOnOneKeepAliveConnection() throws {
        let f = try APIFixture()
        try f.add(service: "db")
        let client = try f.client()
        let first = try client.request("GET", "/v1/items?service=db", headers: f.auth)
        #expect(first.status == 200)
        #expect(!first.saysClose)
        let second = try client.request("GET", "/v1/items?service=db&returnData=true", headers: f.auth)
        #expect(second.status == 200)
        #expect(second.items[0]["valueData"] == "c2VjcmV0")
    }
}

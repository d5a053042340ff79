import KeychainCore
import KeychainJSON
import MicroHTTP
import TestSupport
import Testing

/// `GET /v1/events` in process: which events a subscriber gets, for what, in what order, and
/// what they never carry (docs/events.md). The stream is read as far as it has gone.
@Suite struct EventRouteTests {
    /// One server-sent event.
    struct Event: Equatable {
        var id: String
        var name: String
        var data: JSONObject
    }

    /// A subscription's stream, read so far by `read()`.
    struct Subscriber {
        let body: HTTPStreamBody
        let response: HTTPResponse

        /// The events sent since the last read, and the raw text.
        func read() -> (events: [Event], text: String) {
            let text = String(decoding: body.readAll().bytes, as: UTF8.self)
            return (EventRouteTests.parse(text), text)
        }
    }

    static func parse(_ text: String) -> [Event] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var id = ""
            var name = ""
            var data: JSONObject = [:]
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = (try? JSON.parse(Array(line.dropFirst(6).utf8)))?.objectValue ?? [:] }
            }
            return name.isEmpty ? nil : Event(id: id, name: name, data: data)
        }
    }

    let fixture: APIFixture

    init() throws {
        fixture = try APIFixture()
    }

    func subscribe(token: String? = nil, lastEventID: String? = nil) throws -> Subscriber {
        var headers = [("Authorization", "Bearer \(token ?? fixture.adminToken)")]
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        let response = fixture.inProcess.response("GET", "/v1/events", headers: headers)
        #expect(response.status == 200)
        #expect(response.headers.contains { $0.name == "Content-Type" && $0.value == "text/event-stream" })
        return Subscriber(body: try #require(response.bodyStream), response: response)
    }

    @Test func eachOperationGivesItsEventInOrderAndNoValue() throws {
        let subscriber = try subscribe()
        #expect(subscriber.read().text.hasPrefix("retry: 2000\n"))
        let ref = try fixture.add(service: "payroll-db", account: "svc-account", secret: "c2VjcmV0LXZhbHVl")
        #expect(
            try fixture.call(
                "PATCH", "/v1/items", json: #"{"query":{"service":"payroll-db"},"attributesToUpdate":{"label":"L"}}"#
            )
            .status == 200)
        #expect(try fixture.call("DELETE", "/v1/items?service=payroll-db").status == 200)
        #expect(try fixture.call("POST", "/v1/keychain/lock").status == 200)
        #expect(try fixture.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#).status == 200)
        #expect(
            try fixture.call("POST", "/v1/keychain/passphrase", json: #"{"old":"\#(testPassphrase)","new":"another one"}"#)
                .status == 204)
        let (events, text) = subscriber.read()
        #expect(events.map(\.name) == ["add", "update", "delete", "lock", "unlock", "passwordChanged"])
        for event in events.prefix(3) {
            #expect(
                event.data == [
                    "keychain": "default", "time": try #require(event.data["time"]), "class": "genericPassword",
                    "accessGroup": "default", "persistentRef": .string(ref),
                ])
        }
        #expect(events[3].data.keys.sorted() == ["keychain", "time"])
        // Ids grow, one per event.
        let sequences = events.map { Int($0.id.split(separator: "-").last ?? "") ?? 0 }
        #expect(sequences == Array(sequences[0]..<sequences[0] + 6))
        for value in [
            "payroll-db", "svc-account", "c2VjcmV0LXZhbHVl", "secret-value", "\"L\"", testPassphrase, fixture.adminToken,
        ] {
            #expect(!text.contains(value), "\(value) is in the stream")
        }
    }

    @Test func itemEventsOnlyForTheGroupsATokenMayListOrRead() throws {
        let reader = try fixture.token(groups: ["team"], capabilities: ["read"])
        let writer = try fixture.token(groups: ["team"], capabilities: ["write"])
        let other = try fixture.token(groups: ["other"], capabilities: ["list"])
        let (readerStream, writerStream, otherStream) = (
            try subscribe(token: reader), try subscribe(token: writer), try subscribe(token: other)
        )
        try fixture.add(service: "s", group: "team")
        #expect(try fixture.call("POST", "/v1/keychain/lock").status == 200)
        #expect(readerStream.read().events.map(\.name) == ["add", "lock"])
        // Without list or read, an item's existence is not the token's to learn.
        #expect(writerStream.read().events.map(\.name) == ["lock"])
        #expect(otherStream.read().events.map(\.name) == ["lock"])
    }

    /// A keychain's events reach only the tokens that may use it; its creation and deletion are
    /// `keychainListChanged`, and its items' refs name it.
    @Test func eventsOfAKeychainReachOnlyTheTokensThatMayUseIt() throws {
        let everyKeychain = try subscribe()
        let defaultOnly = try subscribe(token: fixture.token(groups: ["*"], capabilities: ["read"]))
        #expect(
            try fixture.call("POST", "/v1/keychains", json: #"{"name":"team-a","passphrase":"team a"}"#).status == 201)
        let added = try fixture.call(
            "POST", "/v1/items", json: #"{"class":"genericPassword","service":"s","valueData":"c2VjcmV0","useKeychain":"team-a"}"#
        )
        let ref = try #require(added.items.first?["persistentRef"]?.stringValue)
        #expect(try fixture.call("POST", "/v1/keychains/team-a/lock").status == 200)
        try fixture.add(service: "d")
        #expect(try fixture.call("DELETE", "/v1/keychains/team-a?confirm=team-a").status == 204)
        let seen = everyKeychain.read().events
        #expect(seen.map(\.name) == ["keychainListChanged", "add", "lock", "add", "keychainListChanged"])
        #expect(seen.map { $0.data["keychain"]?.stringValue } == ["team-a", "team-a", "team-a", "default", "team-a"])
        #expect(seen[1].data["persistentRef"] == .string(ref) && ref.hasPrefix("team-a."))
        #expect(defaultOnly.read().events.map(\.name) == ["add"], "nothing of team-a, not even that it exists")
    }

    @Test func aRevocationReachesOnlyTheTokenRevokedAndEndsItsStream() throws {
        let created = try fixture.call(
            "POST", "/v1/tokens", json: #"{"name":"x","accessGroups":["default"],"capabilities":["read"]}"#)
        let secret = try #require(created.json["token"]?.stringValue)
        let id = try #require(created.json["id"]?.stringValue)
        let (revoked, admin) = (try subscribe(token: secret), try subscribe())
        _ = revoked.read()
        _ = admin.read()
        #expect(try fixture.call("DELETE", "/v1/tokens/\(id)").status == 204)
        let events = revoked.read().events
        #expect(events.map(\.name) == ["tokenRevoked"])
        #expect(events.first?.data["tokenID"] == .string(id))
        #expect(admin.read().events.isEmpty)
        // Ended: nothing more, whatever happens.
        try fixture.add(service: "after")
        #expect(revoked.read().text.isEmpty)
    }

    @Test func aStreamEndsWhenItsTokenExpires() throws {
        let clock = ManualClock()
        let fixture = try APIFixture { $0.clock = clock }
        let expiry = RFC3339.format(milliseconds: clock.now() + 60_000)
        let created = try fixture.call(
            "POST", "/v1/tokens",
            json: #"{"name":"brief","accessGroups":["default"],"capabilities":["read"],"expiresAt":"\#(expiry)"}"#)
        let secret = try #require(created.json["token"]?.stringValue)
        let stream = try #require(
            fixture.inProcess.response("GET", "/v1/events", headers: [("Authorization", "Bearer \(secret)")]).bodyStream)
        _ = stream.readAll()
        try fixture.add(service: "before")
        #expect(Self.parse(String(decoding: stream.readAll().bytes, as: UTF8.self)).map(\.name) == ["add"])
        clock.advance(seconds: 61)
        try fixture.add(service: "after")
        #expect(stream.readAll().bytes.isEmpty, "ended: the add after the expiry is not sent")
    }

    @Test func lastEventIDResumesAfterItAndAnIDNotCoveredIsAReset() throws {
        let first = try subscribe()
        for service in ["a", "b", "c"] { try fixture.add(service: service) }
        let events = first.read().events
        #expect(events.count == 3)
        let resumed = try subscribe(lastEventID: events[0].id)
        #expect(resumed.read().events.map(\.id) == events.dropFirst().map(\.id))
        // An id of another process (another epoch) or a malformed one: drop the cache.
        for unknown in ["0000-1", "garbage", events[2].id + "0"] {
            let reset = try subscribe(lastEventID: unknown).read().events
            #expect(reset.map(\.name) == ["reset"], "\(unknown)")
            #expect(reset.first?.data["reason"] == "resume")
            #expect(reset.first?.id == events[2].id, "it goes on from the newest event")
        }
    }

    @Test func aSubscriberAWholeHistoryBehindIsResetAndCutOff() throws {
        let fixture = try APIFixture { $0.eventHistory = 4 }
        let headers = [("Authorization", "Bearer \(fixture.adminToken)")]
        let slow = try #require(fixture.inProcess.response("GET", "/v1/events", headers: headers).bodyStream)
        _ = slow.readAll()
        for service in ["a", "b", "c", "d", "e", "f"] { try fixture.add(service: service) }
        let events = Self.parse(String(decoding: slow.readAll().bytes, as: UTF8.self))
        #expect(events.map(\.name) == ["reset"])
        #expect(events.first?.data["reason"] == "behind")
        try fixture.add(service: "g")
        #expect(slow.readAll().bytes.isEmpty, "cut off: the stream has ended")
    }

    @Test func anImportedIdentityGivesAnEventPerRowWrittenAndItsDeleteOnePerRowRemoved() throws {
        let m = IdentityRouteTests.material
        let text =
            try String(contentsOfFile: m.leaf.certificatePath, encoding: .utf8)
            + String(contentsOfFile: m.leaf.keyPath, encoding: .utf8)
            + String(contentsOfFile: m.ca.certificatePath, encoding: .utf8)
        let subscriber = try subscribe()
        _ = subscriber.read()
        let imported = fixture.call(
            "POST", "/v1/items/import?accessGroup=web", body: Array(text.utf8), contentType: "application/x-pem-file")
        #expect(imported.status == 201, "\(imported.text)")
        let added = subscriber.read().events
        #expect(added.map(\.name) == ["add", "add", "add"], "the leaf, its key and the CA certificate")
        #expect(added.compactMap { $0.data["class"]?.stringValue }.sorted() == ["certificate", "certificate", "key"])
        #expect(added.allSatisfy { $0.data["accessGroup"] == "web" })
        #expect(try fixture.call("DELETE", "/v1/items?class=identity&accessGroup=web").status == 200)
        let deleted = subscriber.read().events
        #expect(deleted.map(\.name) == ["delete", "delete"], "the identity's certificate and key")
        let addedRefs = Set(added.compactMap { $0.data["persistentRef"]?.stringValue })
        #expect(deleted.allSatisfy { addedRefs.contains($0.data["persistentRef"]?.stringValue ?? "") })
    }

    @Test func onlyAChangeOfLockStateIsAnEvent() throws {
        let subscriber = try subscribe()
        _ = subscriber.read()
        #expect(try fixture.call("POST", "/v1/keychain/lock").status == 200)
        #expect(try fixture.call("POST", "/v1/keychain/lock").status == 200)
        #expect(try fixture.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#).status == 200)
        #expect(try fixture.call("POST", "/v1/keychain/unlock", json: #"{"passphrase":"\#(testPassphrase)"}"#).status == 200)
        #expect(subscriber.read().events.map(\.name) == ["lock", "unlock"])
    }

    @Test func aTokenIsRequiredAndTheRouteTakesOnlyGET() throws {
        #expect(try fixture.call("GET", "/v1/events", headers: []).status == 401)
        #expect(try fixture.call("POST", "/v1/events").status == 405)
    }
}

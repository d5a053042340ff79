import Foundation
import KeychainCrypto
import KeychainSQLite
import Logging
import MicroHTTP
import TestSupport
import Testing

@testable import KeychainAPI
@testable import KeychainCore

/// `GET /metrics`: who may read it, what it counts, and what it never shows.
@Suite struct MetricsRouteTests {
    static func bearer(_ secret: String) -> [(String, String)] { [("Authorization", "Bearer \(secret)")] }

    // MARK: access

    /// No token, or a wrong one: the same 401, byte for byte, as any other route's.
    @Test func withoutAValidTokenItIsTheSame401AsAnyRoute() throws {
        let f = try APIFixture()
        for headers in [[], Self.bearer("kcd_not-a-token")] {
            let metrics = try f.call("GET", "/metrics", headers: headers)
            metrics.expectError(401, -25293, naming: "Authorization")
            #expect(metrics.body == (try f.call("GET", "/v1/keychain/settings", headers: headers)).body)
        }
    }

    /// A token without `metrics` is refused as any missing capability is (403), an admin of
    /// every group included: `admin` does not imply `metrics`.
    @Test func aTokenWithoutTheMetricsCapabilityIsRefused() throws {
        let f = try APIFixture()
        let app = try f.token(groups: ["*"])
        let admin = try f.token(groups: ["*"], capabilities: ["admin", "read", "write", "delete", "list", "lock"])
        for secret in [app, admin] {
            try f.call("GET", "/metrics", headers: Self.bearer(secret)).expectError(403, -34018, naming: "metrics")
        }
        let wrongMethod = try f.call(
            "POST", "/metrics", headers: Self.bearer(try f.token(groups: ["*"], capabilities: ["metrics"])))
        wrongMethod.expectError(405, -4)
        #expect(wrongMethod.header("Allow") == "GET")
    }

    /// A metrics token, even over every group, reads metrics and nothing else: no item, no
    /// secret, no token list.
    @Test func aMetricsTokenReadsNoItem() throws {
        let f = try APIFixture()
        let ref = try f.add(service: "svc")
        let scraper = Self.bearer(try f.token(groups: ["*"], capabilities: ["metrics"]))
        let scrape = try f.call("GET", "/metrics", headers: scraper)
        #expect(scrape.status == 200)
        #expect(scrape.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        try f.call("GET", "/v1/items?service=svc", headers: scraper).expectError(403, -34018, naming: "capability")
        try f.call("GET", "/v1/items/\(ref)", headers: scraper).expectError(403, -34018, naming: "capability")
        try f.call("POST", "/v1/items/search", json: #"{"service":"svc","returnData":true}"#, headers: scraper)
            .expectError(403, -34018, naming: "capability")
        try f.call("POST", "/v1/items", json: #"{"class":"genericPassword","service":"x","valueData":"eA=="}"#, headers: scraper)
            .expectError(403, -34018, naming: "capability")
        try f.call("GET", "/v1/tokens", headers: scraper).expectError(403, -34018, naming: "admin")
    }

    /// Only `metrics` grants it, so a `*` admin made before the capability existed cannot hand
    /// it on; `keychaind token create --capability metrics` can (local administration).
    @Test func onlyAHolderOfMetricsGrantsIt() throws {
        let f = try APIFixture()
        let admin = Self.bearer(try f.token(groups: ["*"], capabilities: ["admin", "read"]))
        try f.call("POST", "/v1/tokens", json: #"{"name":"m","accessGroups":["*"],"capabilities":["metrics"]}"#, headers: admin)
            .expectError(403, -34018, naming: "metrics")
        #expect(
            try f.call("POST", "/v1/tokens", json: #"{"name":"m","accessGroups":["*"],"capabilities":["metrics"]}"#).status == 201
        )
    }

    /// Locked, the keychain still serves its metrics, and says it is locked.
    @Test func aLockedKeychainServesMetrics() throws {
        let f = try APIFixture()
        #expect(try f.call("POST", "/v1/keychain/lock").status == 200)
        let scrape = try f.call("GET", "/metrics")
        #expect(scrape.status == 200)
        let samples = try PrometheusText(scrape.text)
        #expect(samples.value("keychaind_keychain_state", ["state": "locked"]) == 1)
        #expect(samples.value("keychaind_keychain_state", ["state": "unlocked"]) == 0)
        #expect(samples.value("keychaind_keychain_state", ["state": "uninitialized"]) == 0)
    }

    /// Each keychain's state, item counts (locked or not) and unlock budget, by its name; a deleted
    /// keychain's series go.
    @Test func eachKeychainByName() throws {
        let f = try APIFixture(metrics: KeychainMetrics(itemCountSeconds: 0))
        #expect(try f.call("POST", "/v1/keychains", json: #"{"name":"team-a","passphrase":"team a"}"#).status == 201)
        for service in ["a", "b"] {
            let body = #"{"class":"genericPassword","service":"\#(service)","valueData":"eA==","useKeychain":"team-a"}"#
            #expect(try f.call("POST", "/v1/items", json: body).status == 201)
        }
        try f.add(service: "in-default")
        #expect(try f.call("POST", "/v1/keychains/team-a/lock").status == 200)
        _ = try f.call("POST", "/v1/keychains/team-a/unlock", json: #"{"passphrase":"wrong"}"#)
        let samples = try PrometheusText(try f.call("GET", "/metrics").text)
        #expect(samples.value("keychaind_keychains_unlocked", ["keychain": "default"]) == 1)
        #expect(samples.value("keychaind_keychains_unlocked", ["keychain": "team-a"]) == 0)
        #expect(samples.value("keychaind_keychains_unlock_budget_failures", ["keychain": "team-a"]) == 1)
        #expect(samples.value("keychaind_keychains_unlock_budget_failures", ["keychain": "default"]) == 0)
        let genericPasswords = ["class": "genericPassword"]
        #expect(samples.value("keychaind_keychains_items", genericPasswords.merging(["keychain": "team-a"]) { $1 }) == 2)
        #expect(samples.value("keychaind_keychains_items", genericPasswords.merging(["keychain": "default"]) { $1 }) == 1)
        #expect(samples.value("keychaind_keychains_items", ["class": "key", "keychain": "team-a"]) == 0)
        #expect(samples.value("keychaind_keychain_items", genericPasswords) == 1, "the default keychain's alone")
        #expect(try f.call("DELETE", "/v1/keychains/team-a?confirm=team-a").status == 204)
        let after = try f.call("GET", "/metrics").text
        #expect(!after.contains("team-a"))
        #expect(try PrometheusText(after).value("keychaind_keychains_unlocked", ["keychain": "default"]) == 1)
    }

    // MARK: what it counts

    /// Each answered request moves its route template's counter and histogram: by template
    /// (never the persistent ref), method and status class; a path no route has is `unmatched`.
    @Test func requestCountsMoveByTemplateMethodAndClass() throws {
        let f = try APIFixture()
        let before = try PrometheusText(f.call("GET", "/metrics").text)
        let added = ["/v1/items", "POST", "2xx"]
        #expect(before.value("keychaind_http_requests_total", Self.labels(added)) == nil, "no series before its first request")
        let refs = try (1...3).map { try f.add(service: "s\($0)") }
        try f.call("GET", "/v1/items/\(refs[0])?returnData=true")
        try f.call("GET", "/v1/items/not-a-ref")
        try f.call("GET", "/nowhere/at/all")
        try f.call("BREW", "/v1/items")
        let after = try PrometheusText(f.call("GET", "/metrics").text)
        #expect(after.value("keychaind_http_requests_total", Self.labels(added)) == 3)
        #expect(after.value("keychaind_http_request_duration_seconds_count", Self.labels(added)) == 3)
        #expect(after.value("keychaind_http_request_duration_seconds_bucket", Self.labels(added) + ["le": "+Inf"]) == 3)
        #expect(after.value("keychaind_http_requests_total", Self.labels(["/v1/items/{persistentRef}", "GET", "2xx"])) == 1)
        #expect(after.value("keychaind_http_requests_total", Self.labels(["/v1/items/{persistentRef}", "GET", "4xx"])) == 1)
        #expect(after.value("keychaind_http_requests_total", Self.labels(["unmatched", "GET", "4xx"])) == 1)
        #expect(after.value("keychaind_http_requests_total", Self.labels(["/v1/items", "other", "4xx"])) == 1)
        #expect(after.value("keychaind_http_requests_total", Self.labels(["/metrics", "GET", "2xx"])) == 1, "the first scrape")
        let routes = Set(after.samples.compactMap { $0.labels["route"] })
        #expect(routes.isSubset(of: Set(Route.metricsTemplates)), "\(routes)")
        #expect(!after.text.contains(refs[0]) && !after.text.contains("nowhere") && !after.text.contains("BREW"))
    }

    /// Item counts per class, the lock state, counted at scrape time; counted again only once
    /// the cache is older than its age (here 0: every scrape).
    @Test func itemCountsPerClass() throws {
        let f = try APIFixture(metrics: KeychainMetrics(itemCountSeconds: 0))
        try f.add(service: "a")
        try f.add(service: "b")
        #expect(
            try f.call("POST", "/v1/items", json: #"{"class":"internetPassword","server":"h.example","valueData":"eA=="}"#).status
                == 201)
        let samples = try PrometheusText(f.call("GET", "/metrics").text)
        #expect(samples.value("keychaind_keychain_items", ["class": "genericPassword"]) == 2)
        #expect(samples.value("keychaind_keychain_items", ["class": "internetPassword"]) == 1)
        #expect(samples.value("keychaind_keychain_state", ["state": "unlocked"]) == 1)
    }

    /// Subscribers of the event stream now, and the events they were sent.
    @Test func eventSubscribersAndEventsPublished() throws {
        let f = try APIFixture()
        let quiet = try PrometheusText(f.call("GET", "/metrics").text)
        #expect(quiet.value("keychaind_events_subscribers", [:]) == 0)
        #expect(quiet.value("keychaind_events_published_total", [:]) == 0)
        try f.add(service: "unseen")
        let subscriber = f.inProcess.response("GET", "/v1/events", headers: f.auth)
        try f.add(service: "a")
        try f.add(service: "b")
        let samples = try PrometheusText(f.call("GET", "/metrics").text)
        #expect(samples.value("keychaind_events_subscribers", [:]) == 1)
        #expect(samples.value("keychaind_events_published_total", [:]) == 2, "the add before the subscription made none")
        withExtendedLifetime(subscriber) {}
    }

    /// With the default cache, a scrape within its age shows the counts of the last count.
    @Test func itemCountsAreCachedForTheirAge() throws {
        let f = try APIFixture(metrics: KeychainMetrics(itemCountSeconds: 3600))
        try f.add(service: "a")
        #expect(
            try PrometheusText(f.call("GET", "/metrics").text).value("keychaind_keychain_items", ["class": "genericPassword"])
                == 1)
        try f.add(service: "b")
        #expect(
            try PrometheusText(f.call("GET", "/metrics").text).value("keychaind_keychain_items", ["class": "genericPassword"])
                == 1)
    }

    /// Wrong passphrases, the per-address throttle (a wait after 5 from one address) and the
    /// keychain's budget (after 21 from any): counters, and the budget's state as gauges.
    @Test func unlockFailuresAndThrottles() throws {
        let f = try APIFixture()
        #expect(try f.call("POST", "/v1/keychain/lock").status == 200)
        let wrong = #"{"passphrase":"wrong"}"#
        for _ in 1...5 { try f.call("POST", "/v1/keychain/unlock", json: wrong, headers: []).expectError(401, -25293) }
        #expect(try f.call("POST", "/v1/keychain/unlock", json: wrong, headers: []).status == 429)
        var samples = try PrometheusText(f.call("GET", "/metrics").text)
        #expect(samples.value("keychaind_unlock_failures_total", [:]) == 5)
        #expect(samples.value("keychaind_unlock_throttled_total", ["scope": "address"]) == 1)
        #expect(samples.value("keychaind_unlock_throttled_total", ["scope": "keychain"]) == 0)
        #expect(samples.value("keychaind_unlock_budget_failures", [:]) == 5)
        #expect(samples.value("keychaind_unlock_retry_after_seconds", [:]) == 0)
        for n in 6...UnlockThrottle.freeFailures {
            try f.call("POST", "/v1/keychain/unlock", json: wrong, headers: [], remoteAddress: "192.0.2.\(n)").expectError(
                401, -25293)
        }
        #expect(try f.call("POST", "/v1/keychain/unlock", json: wrong, headers: [], remoteAddress: "198.51.100.1").status == 401)
        #expect(try f.call("POST", "/v1/keychain/unlock", json: wrong, headers: [], remoteAddress: "198.51.100.2").status == 429)
        samples = try PrometheusText(f.call("GET", "/metrics").text)
        #expect(samples.value("keychaind_unlock_failures_total", [:]) == Double(UnlockThrottle.freeFailures + 1))
        #expect(samples.value("keychaind_unlock_throttled_total", ["scope": "keychain"]) == 1)
        #expect(samples.value("keychaind_unlock_budget_failures", [:]) == Double(UnlockThrottle.freeFailures + 1))
        let wait = try #require(samples.value("keychaind_unlock_retry_after_seconds", [:]))
        #expect((1...60).contains(wait), "the ladder's first step is a minute: \(wait)")
    }

    /// A store failure answers 503 and counts as a database error.
    @Test func databaseErrorsAreCounted() throws {
        let f = try APIFixture(faulty: true)
        f.faulty?.failsWrites = true
        #expect(
            try f.call("POST", "/v1/items", json: #"{"class":"genericPassword","service":"x","valueData":"eA=="}"#).status == 503)
        let samples = try PrometheusText(f.call("GET", "/metrics").text)
        #expect(samples.value("keychaind_database_errors_total", [:]) == 1)
        #expect(samples.value("keychaind_http_requests_total", Self.labels(["/v1/items", "POST", "5xx"])) == 1)
    }

    /// The store reports each commit: one write alone is a batch of one, timed, and its COMMIT
    /// (the WAL written and synced) timed apart, a part of the whole.
    @Test func storeCommitsAreObserved() throws {
        let directory = TemporaryDirectory(prefix: "kcd-metrics")
        let metrics = KeychainMetrics()
        let keychain = try Keychain(
            configuration: .testing(directory.path), store: SQLiteStore(directory: directory.path, observer: metrics),
            logger: Logger(label: "test"))
        defer { keychain.close() }
        let admin = try keychain.initialize(passphrase: SecureBytes(utf8: testPassphrase)).token
        let before = try PrometheusText(String(decoding: metrics.exposition(keychains: Keychains(only: keychain)), as: UTF8.self))
        let commits = try #require(before.value("keychaind_store_commit_batch_size_count", ["path": "write"]))
        let items = try #require(before.value("keychaind_store_commit_batch_size_sum", ["path": "write"]))
        #expect(commits >= 1, "initialize committed")
        try keychain.setLockInterval(60)
        let after = try PrometheusText(String(decoding: metrics.exposition(keychains: Keychains(only: keychain)), as: UTF8.self))
        #expect(after.value("keychaind_store_commit_batch_size_count", ["path": "write"]) == commits + 1)
        #expect(after.value("keychaind_store_commit_batch_size_sum", ["path": "write"]) == items + 1)
        #expect(after.value("keychaind_store_commit_duration_seconds_count", ["path": "write"]) == commits + 1)
        #expect(after.value("keychaind_store_commit_batch_size_bucket", ["path": "write", "le": "1.0"]) == commits + 1)
        #expect(after.value("keychaind_store_commit_batch_size_count", ["path": "add"]) == 0, "SQLite has no batched adds")
        #expect(before.value("keychaind_store_sync_duration_seconds_count", [:]) == commits, "a sync for every commit")
        #expect(after.value("keychaind_store_sync_duration_seconds_count", [:]) == commits + 1)
        let synced = try #require(after.value("keychaind_store_sync_duration_seconds_sum", [:]))
        let committed = try #require(after.value("keychaind_store_commit_duration_seconds_sum", ["path": "write"]))
        #expect(synced > 0 && synced <= committed, "\(synced) s of syncs within \(committed) s of commits")
        _ = admin
    }

    // MARK: what it never shows

    /// Group names, attribute values, secrets, refs, token names, ids and secrets never appear,
    /// whatever the requests were; label values are drawn from fixed sets, or are the names of
    /// the server's keychains.
    @Test func noGroupNameTokenOrValueInTheOutput() throws {
        let f = try APIFixture()
        let ref = try f.add(service: "svc-canary", account: "acct-canary", secret: "c2VjcmV0LWNhbmFyeQ==", group: "group-canary")
        let made = try f.call(
            "POST", "/v1/tokens",
            json: #"{"name":"name-canary","accessGroups":["group-canary"],"capabilities":["read","metrics"]}"#)
        let secret = try #require(made.json["token"]?.stringValue)
        let id = try #require(made.json["id"]?.stringValue)
        try f.call("GET", "/v1/items?service=svc-canary&returnData=true", headers: Self.bearer(secret))
        try f.call("GET", "/v1/items/\(ref)", headers: Self.bearer(secret))
        try f.call("GET", "/v1/items?accessGroup=group-nobody", headers: Self.bearer(secret))
        let scrape = try f.call("GET", "/metrics", headers: Self.bearer(secret))
        #expect(scrape.status == 200)
        for canary in ["canary", "c2VjcmV0", ref, secret, id, "group-nobody", "name-"] {
            #expect(!scrape.text.contains(canary), "\(canary) in the metrics")
        }
        let samples = try PrometheusText(scrape.text)
        let allowed: [String: Set<String>] = [
            "route": Set(Route.metricsTemplates), "method": Set(RequestMetrics.methods),
            "status_class": Set(RequestMetrics.statusClasses),
            "state": ["uninitialized", "locked", "unlocked"], "class": Set(ItemClass.stored.map(\.name)),
            "scope": ["address", "keychain"],
            "path": ["write", "add"], "keychain": Set(f.keychains.names),
        ]
        for sample in samples.samples {
            for (name, value) in sample.labels where name != "le" {
                #expect(allowed[name]?.contains(value) == true, "\(sample.name){\(name)=\"\(value)\"}")
            }
        }
    }

    // MARK: the metrics listener

    /// `--metrics-listen`: `GET /metrics` without a token, and nothing else; the API listener's
    /// open connections counted.
    @Test func theMetricsListenerServesOnlyMetricsWithoutAToken() throws {
        let f = try APIFixture(metricsListener: true)
        let port = try #require(try f.server.metricsPort)
        let apiScrape = try f.socketCall("GET", "/metrics")
        #expect(apiScrape.status == 200)
        #expect(
            try PrometheusText(apiScrape.text).value("keychaind_http_open_connections", [:]) == 1, "the scrape's own connection")
        let scrape = try RawHTTPClient(port: port).request("GET", "/metrics", headers: [])
        #expect(scrape.status == 200)
        #expect(scrape.header("Content-Type") == KeychainMetrics.contentType)
        let samples = try PrometheusText(scrape.text)
        #expect(
            samples.value("keychaind_http_requests_total", Self.labels(["/metrics", "GET", "2xx"])) == 1, "the API port's scrape")
        let item = try RawHTTPClient(port: port).request("GET", "/v1/items", headers: f.auth)
        item.expectError(404, -4, naming: "path")
        try RawHTTPClient(port: port).request("POST", "/metrics", headers: []).expectError(405, -4, naming: "method")
        try RawHTTPClient(port: port).request("GET", "/metrics", headers: [], body: Array("x".utf8)).expectError(413, -25302)
    }

    // MARK: routing

    @Test func theRouteIsExactlyMetricsOutsideV1() {
        #expect(Route(path: "/metrics") == .metrics)
        for path in ["/metrics/", "/v1/metrics", "/metricsx", "/Metrics", "//metrics", "/metrics/x"] {
            #expect(Route(path: path) == nil, "\(path)")
        }
        #expect(Route.metrics.operation(method: "GET") == "readMetrics")
        #expect(!Route.metrics.isPublic)
        #expect(Route.metricsTemplates.count == Route.metricsSlots && Set(Route.metricsTemplates).count == Route.metricsSlots)
    }

    static func labels(_ values: [String]) -> [String: String] {
        ["route": values[0], "method": values[1], "status_class": values[2]]
    }
}

extension Dictionary where Key == String, Value == String {
    fileprivate static func + (lhs: Self, rhs: Self) -> Self { lhs.merging(rhs) { $1 } }
}

/// Prometheus' text format 0.0.4, read strictly enough for tests: `# HELP`/`# TYPE` lines, and
/// `name{label="value",…} number` samples with `\\`, `\"` and `\n` escapes in values.
struct PrometheusText {
    struct Sample {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    struct Malformed: Error, CustomStringConvertible {
        let line: String
        var description: String { "not a Prometheus sample line: \(line)" }
    }

    let text: String
    let samples: [Sample]

    init(_ text: String) throws {
        self.text = text
        var samples: [Sample] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            samples.append(try Self.sample(String(line)))
        }
        self.samples = samples
    }

    /// The value of the one sample named `name` with exactly these labels; `nil` when none has.
    func value(_ name: String, _ labels: [String: String]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    private static func sample(_ line: String) throws -> Sample {
        var rest = Substring(line)
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard !name.isEmpty else { throw Malformed(line: line) }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let key = rest.prefix { $0 != "=" }
                rest = rest.dropFirst(key.count)
                guard rest.hasPrefix("=\"") else { throw Malformed(line: line) }
                rest = rest.dropFirst(2)
                var value = ""
                while let c = rest.first, c != "\"" {
                    rest = rest.dropFirst()
                    if c == "\\", let escaped = rest.popFirst() {
                        value.append(escaped == "n" ? "\n" : escaped)
                    } else {
                        value.append(c)
                    }
                }
                guard rest.popFirst() == "\"" else { throw Malformed(line: line) }
                labels[String(key)] = value
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard rest.popFirst() == " ", let value = Double(rest == "+Inf" ? "inf" : String(rest)) else {
            throw Malformed(line: line)
        }
        return Sample(name: String(name), labels: labels, value: value)
    }
}

import MicroHTTP
import Prometheus
import Synchronization

/// Each request's count and latency, by route template, method and status class: one
/// `Counter` and one `ValueHistogram` per combination, in a table fixed at start and indexed
/// by route × method × class, so that recording a request hashes no string and allocates
/// nothing.
///
/// A combination's series are made the first time a request needs them (so a scrape shows
/// the combinations that happened, not 595 series of zeros) and kept in its slot; from then
/// on a request pays the slot's uncontended lock, the counter's atomic add and the histogram's
/// record (swift-prometheus's own lock): two polling threads wait on each other only when they
/// finish a request of the same route, method and class at the same instant.
///
/// Labels are the template (`/v1/items/{persistentRef}`, never the path as sent), the method
/// when it is one the API knows (else `other`), and the class (`2xx`): nothing a client
/// chooses beyond those few values.
final class RequestMetrics: Sendable {
    /// The methods with a label of their own (`LIST`: Vault's listing); any other is `other`.
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "LIST", "other"]
    static let statusClasses = ["1xx", "2xx", "3xx", "4xx", "5xx"]
    /// Histogram buckets, in seconds: a search from the index in tens of microseconds, a
    /// commit in milliseconds, an unlock's Argon2id in about half a second.
    static let durationBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
    ]

    /// One combination's series.
    final class Series: Sendable {
        let requests: Counter
        let duration: ValueHistogram

        init(requests: Counter, duration: ValueHistogram) {
            self.requests = requests
            self.duration = duration
        }
    }

    /// A slot of the table: empty until its first request, then its series for good.
    final class Slot: Sendable {
        private let series = Mutex<Series?>(nil)

        /// The series, made with `make` by the first caller.
        func get(_ make: () -> Series) -> Series {
            series.withLock { series in
                if let series { return series }
                let made = make()
                series = made
                return made
            }
        }
    }

    private let registry: PrometheusCollectorRegistry
    private let slots: [Slot]

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        slots = (0..<Route.metricsSlots * Self.methods.count * Self.statusClasses.count).map { _ in Slot() }
    }

    /// Counts one answered request and its time since its head arrived.
    func record(route: Route?, method: String, status: Int, nanoseconds: UInt64) {
        let routeIndex = route?.metricsIndex ?? Route.unmatchedMetricsIndex
        let methodIndex = Self.methodIndex(method)
        let classIndex = min(max(status / 100, 1), 5) - 1
        let index = (routeIndex * Self.methods.count + methodIndex) * Self.statusClasses.count + classIndex
        let series = slots[index].get { makeSeries(routeIndex, methodIndex, classIndex) }
        series.requests.increment()
        series.duration.record(Double(nanoseconds) / 1e9)
    }

    static func methodIndex(_ method: String) -> Int {
        switch method {
        case "GET": 0
        case "HEAD": 1
        case "POST": 2
        case "PUT": 3
        case "PATCH": 4
        case "DELETE": 5
        case "LIST": 6
        default: 7
        }
    }

    private func makeSeries(_ routeIndex: Int, _ methodIndex: Int, _ classIndex: Int) -> Series {
        let labels = [
            ("route", Route.metricsTemplates[routeIndex]), ("method", Self.methods[methodIndex]),
            ("status_class", Self.statusClasses[classIndex]),
        ]
        let requests = KeychainMetrics.descriptor(
            "http", "requests", "total", "Requests answered, by route template, method and status class.")
        let duration = KeychainMetrics.descriptor(
            "http", "request_duration", "seconds",
            "Time from the request head's arrival to the answer, by route template, method and status class.")
        return Series(
            requests: registry.makeCounter(descriptor: requests, labels: labels),
            duration: registry.makeValueHistogram(descriptor: duration, labels: labels, buckets: Self.durationBuckets))
    }
}

extension Route {
    /// The route's row in `RequestMetrics`' table.
    var metricsIndex: Int {
        switch self {
        case .items: 0
        case .itemsSearch: 1
        case .item: 2
        case .keychain: 3
        case .lock: 4
        case .unlock: 5
        case .passphrase: 6
        case .settings: 7
        case .tokens: 8
        case .tokenSelf: 9
        case .token: 10
        case .health: 11
        case .metrics: 12
        case .exportBundle: 13
        case .importBundle: 14
        case .backup: 15
        case .itemsImport: 16
        case .kvData: 17
        case .kvMetadata: 18
        case .vaultMounts: 19
        case .vaultMountOf: 20
        case .vaultTokenSelf: 21
        case .events: 22
        case .keychains: 23
        case .namedKeychain: 24
        case .namedLock: 25
        case .namedUnlock: 26
        case .namedPassphrase: 27
        case .namedSettings: 28
        case .lockAll: 29
        case .keys: 30
        case .keyAction(let action): 31 + KeyAction.allCases.firstIndex(of: action)!
        case .itemAccess: 31 + KeyAction.allCases.count
        case .accessCreate: 32 + KeyAction.allCases.count
        }
    }

    /// The row of a path no route has.
    static let unmatchedMetricsIndex = 33 + KeyAction.allCases.count
    static let metricsSlots = unmatchedMetricsIndex + 1

    /// Each row's `route` label: the template, and `unmatched` for paths no route has.
    static let metricsTemplates: [String] = {
        let routes: [Route] =
            [
                .items, .itemsSearch, .item(ref: ""), .keychain, .lock, .unlock, .passphrase, .settings, .tokens, .tokenSelf,
                .token(id: ""), .health, .metrics, .exportBundle, .importBundle, .backup, .itemsImport,
                .kvData(mount: "", path: ""), .kvMetadata(mount: "", path: ""), .vaultMounts, .vaultMountOf(path: ""),
                .vaultTokenSelf, .events, .keychains, .namedKeychain(name: ""), .namedLock(name: ""), .namedUnlock(name: ""),
                .namedPassphrase(name: ""), .namedSettings(name: ""), .lockAll, .keys,
            ] + KeyAction.allCases.map { .keyAction($0) } + [.itemAccess(ref: ""), .accessCreate]
        precondition(routes.enumerated().allSatisfy { $0.offset == $0.element.metricsIndex })
        return routes.map(\.template) + ["unmatched"]
    }()
}

import Dispatch
public import KeychainCore
public import KeychainStorage
import Prometheus
import Synchronization

/// keychaind's metrics in one Prometheus registry of its own (swift-prometheus, no global
/// `MetricsSystem`): a server's tests and a second server in the same process each count apart.
///
/// Three kinds of series:
/// - per request (`RequestMetrics`): recorded as each request is answered;
/// - per store commit (`CommitObserver`): batch sizes and BEGIN…COMMIT time, fsync included,
///   and on SQLite the COMMIT's own time, the fsync's share of it;
/// - read at scrape time (`exposition(keychains:)`): the default keychain's lock state, item
///   counts per class and unlock budget, each keychain's lock state, item counts and unlock budget, the open
///   connections, and the default keychain's counts of failed unlocks, throttled unlocks and
///   database errors.
///
/// Labels take a few fixed values each (route templates, methods, status classes, classes,
/// states), or a keychain's name, which a server admin chose: never a group name, a token id,
/// an attribute or any other value a client sent.
public final class KeychainMetrics: CommitObserver, Sendable {
    /// The exposition's media type (Prometheus text format 0.0.4).
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let registry = PrometheusCollectorRegistry()
    let requests: RequestMetrics
    private let unlockThrottledByAddress: Counter
    private let unlockThrottledByKeychain: Counter
    private let unlockFailures: Counter
    private let databaseErrors: Counter
    private let states: [(state: KeychainState, gauge: Gauge)]
    private let items: [(itemClass: ItemClass, gauge: Gauge)]
    private let openConnections: Gauge
    private let unlockBudgetFailures: Gauge
    private let unlockRetryAfter: Gauge
    private let eventSubscribers: Gauge
    private let eventsPublished: Counter
    /// The events' count as the counter last showed it.
    private let shownEvents = Mutex<UInt64>(0)
    private let batchSizes: [ValueHistogram]
    private let commitDurations: [ValueHistogram]
    private let syncDurations: ValueHistogram
    /// The keychain's counts as the counters last showed them (they only move forward).
    private let shownStatistics = Mutex(KeychainStatistics())
    private let itemCountNanoseconds: UInt64
    private let connectionCount = CallbackSlot<Void, Int>()
    /// Each keychain's series, by name: made when a scrape first sees the keychain, removed
    /// when one no longer does.
    private let perKeychain = Mutex<[String: KeychainSeries]>([:])

    /// The series of one keychain, and its item counts as last counted.
    private struct KeychainSeries {
        let unlocked: Gauge
        let failures: Gauge
        let items: [(itemClass: ItemClass, gauge: Gauge)]
        let counts: ItemCountCache
    }

    static let batchSizeBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64]
    static let commitBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
    /// An fsync: from a tenth of a millisecond (a disk with a write cache) to seconds (a stalled one).
    static let syncBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

    /// - Parameter itemCountSeconds: how long a scrape's item counts are reused (a count scans
    ///   the class index: about 0.1 s a million items on SQLite); 0 counts at every scrape.
    public init(itemCountSeconds: Double = 10) {
        requests = RequestMetrics(registry: registry)
        itemCountNanoseconds = UInt64(max(itemCountSeconds, 0) * 1e9)
        let registry = registry
        let name = Self.descriptor
        let throttled = name(
            "unlock", "throttled", "total",
            "Unlocks refused by a throttle: scope address (per client address) or keychain (the shared failure budget).")
        unlockThrottledByAddress = registry.makeCounter(descriptor: throttled, labels: [("scope", "address")])
        unlockThrottledByKeychain = registry.makeCounter(descriptor: throttled, labels: [("scope", "keychain")])
        unlockFailures = registry.makeCounter(
            descriptor: name("unlock", "failures", "total", "Wrong passphrases (network or host) since the process started."))
        databaseErrors = registry.makeCounter(
            descriptor: name(
                "database", "errors", "total", "Store calls that failed (out of reach, full disk, corrupt), duplicates aside."))
        let state = name(
            "keychain", "state", "", "1 for the keychain's state (uninitialized, locked or unlocked), 0 for the others.")
        states = [KeychainState.uninitialized, .locked, .unlocked].map {
            ($0, registry.makeGauge(descriptor: state, labels: [("state", $0.rawValue)]))
        }
        let count = name("keychain", "items", "", "Items per class, in every access group (counted at most every few seconds).")
        items = ItemClass.stored.map { ($0, registry.makeGauge(descriptor: count, labels: [("class", $0.name)])) }
        openConnections = registry.makeGauge(
            descriptor: name("http", "open_connections", "", "Connections open to the API listener."))
        unlockBudgetFailures = registry.makeGauge(
            descriptor: name(
                "unlock", "budget_failures", "", "Failed unlocks counted against the keychain's budget since its last unlock."))
        unlockRetryAfter = registry.makeGauge(
            descriptor: name(
                "unlock", "retry_after", "seconds", "Seconds until the network may try to unlock again; 0 when it may now."))
        eventSubscribers = registry.makeGauge(
            descriptor: name("events", "subscribers", "", "Subscribers of GET /v1/events now."))
        eventsPublished = registry.makeCounter(
            descriptor: name(
                "events", "published", "total", "Keychain events sent to subscribers (made only while someone subscribes)."))
        let sizes = name(
            "store", "commit_batch_size", "",
            "Writes committed together in one transaction, by path (write: group commit; add: batched adds).")
        let durations = name(
            "store", "commit_duration", "seconds", "BEGIN to the end of COMMIT (fsync included) of a batch, by path.")
        // Indexed as `committed(_:batchSize:nanoseconds:)` reads them: write, then add.
        batchSizes = CommitPath.allCases.map {
            registry.makeValueHistogram(descriptor: sizes, labels: [("path", $0.label)], buckets: Self.batchSizeBuckets)
        }
        commitDurations = CommitPath.allCases.map {
            registry.makeValueHistogram(descriptor: durations, labels: [("path", $0.label)], buckets: Self.commitBuckets)
        }
        let syncs = name(
            "store", "sync_duration", "seconds",
            "SQLite: a batch's COMMIT alone, its WAL frames written and fsynced. PostgreSQL times its own WAL syncs (pg_stat_wal)."
        )
        syncDurations = registry.makeValueHistogram(descriptor: syncs, buckets: Self.syncBuckets)
    }

    /// Counts an unlock refused by the per-address throttle (the API's own, before Argon2id).
    func countAddressThrottled() {
        unlockThrottledByAddress.increment()
    }

    // MARK: CommitObserver

    public func committed(_ path: CommitPath, batchSize: Int, nanoseconds: UInt64) {
        let index =
            switch path {
            case .write: 0
            case .add: 1
            }
        batchSizes[index].record(Double(batchSize))
        commitDurations[index].record(Double(nanoseconds) / 1e9)
    }

    public func synced(nanoseconds: UInt64) {
        syncDurations.record(Double(nanoseconds) / 1e9)
    }

    // MARK: scrape

    /// Where `keychaind_http_open_connections` comes from: the API's `HTTPServer`.
    public func countConnections(with source: @escaping @Sendable () -> Int) {
        connectionCount.set { _ in source() }
    }

    /// Every series in Prometheus' text format, the scrape-time ones read from `keychain` now.
    /// What cannot be read (the store out of reach) keeps its last value, and counts as a
    /// database error.
    public func exposition(keychains: Keychains) -> [UInt8] {
        let counts = showEachKeychain(keychains.all)
        let keychain = keychains.default
        let state = keychain.state
        for (each, gauge) in states { gauge.set(to: each == state ? 1 : 0) }
        if let counts {
            for (itemClass, gauge) in items { gauge.set(to: Double(counts.first { $0.itemClass == itemClass }?.count ?? 0)) }
        }
        if let budget = try? keychain.unlockBudget() {
            unlockBudgetFailures.set(to: Double(budget.failures))
            unlockRetryAfter.set(to: Double(budget.retryAfterSeconds))
        }
        if let open = connectionCount(()) { openConnections.set(to: Double(open)) }
        eventSubscribers.set(to: Double(keychain.events.subscriberCount))
        let published = keychain.events.publishedCount
        shownEvents.withLock { shown in
            eventsPublished.increment(by: Int64(published &- shown))
            shown = published
        }
        showStatistics(keychain.statistics)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return buffer
    }

    /// A series of keychaind's: `keychaind_<subsystem>_<metric>_<unit>`, and its help.
    static func descriptor(_ subsystem: String, _ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "keychaind", subsystem: subsystem, metricName: metric, unitName: unit, helpText: help)
    }

    /// `keychaind_keychains_unlocked{keychain}`, `keychaind_keychains_unlock_budget_failures{keychain}`
    /// and `keychaind_keychains_items{keychain,class}` for every keychain of the server now.
    /// Answers the default keychain's item counts (`nil` when its store could not count them).
    private func showEachKeychain(_ keychains: [Keychain]) -> [(itemClass: ItemClass, count: Int)]? {
        let unlocked = Self.descriptor(
            "keychains", "unlocked", "", "1 for each keychain of the server that is unlocked, 0 for each that is not.")
        let failures = Self.descriptor(
            "keychains", "unlock_budget_failures", "",
            "Failed unlocks counted against each keychain's budget since its last unlock.")
        let items = Self.descriptor(
            "keychains", "items", "",
            "Items of each keychain per class, in every access group (counted at most every few seconds).")
        return perKeychain.withLock { series in
            for (name, gone) in series where !keychains.contains(where: { $0.name == name }) {
                registry.unregisterGauge(gone.unlocked)
                registry.unregisterGauge(gone.failures)
                for (_, gauge) in gone.items { registry.unregisterGauge(gauge) }
                series[name] = nil
            }
            var defaultCounts: [(itemClass: ItemClass, count: Int)]?
            for keychain in keychains {
                let labels = [("keychain", keychain.name)]
                let each =
                    series[keychain.name]
                    ?? KeychainSeries(
                        unlocked: registry.makeGauge(descriptor: unlocked, labels: labels),
                        failures: registry.makeGauge(descriptor: failures, labels: labels),
                        items: ItemClass.stored.map {
                            ($0, registry.makeGauge(descriptor: items, labels: labels + [("class", $0.name)]))
                        },
                        counts: ItemCountCache(maxAgeNanoseconds: itemCountNanoseconds))
                series[keychain.name] = each
                each.unlocked.set(to: keychain.state == .unlocked ? 1 : 0)
                if let budget = try? keychain.unlockBudget() { each.failures.set(to: Double(budget.failures)) }
                guard let counts = try? each.counts.counts(keychain) else { continue }
                for (itemClass, gauge) in each.items {
                    gauge.set(to: Double(counts.first { $0.itemClass == itemClass }?.count ?? 0))
                }
                if keychain.isDefault { defaultCounts = counts }
            }
            return defaultCounts
        }
    }

    /// Moves the counters kept by the keychain to its counts (counters only take increments).
    private func showStatistics(_ now: KeychainStatistics) {
        shownStatistics.withLock { shown in
            unlockFailures.increment(by: Int64(now.unlockFailures &- shown.unlockFailures))
            unlockThrottledByKeychain.increment(by: Int64(now.unlockThrottled &- shown.unlockThrottled))
            databaseErrors.increment(by: Int64(now.storageFailures &- shown.storageFailures))
            shown = now
        }
    }
}

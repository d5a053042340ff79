internal import CPostgres
import Dispatch
import Glibc
import KeychainStorage
import Synchronization

/// Makes a store's connections, always to the writable server among the hosts its URL lists
/// (`host=a,b,c`, or `postgresql://a:5432,b:5432/db`): a primary, never a standby or a primary
/// fenced read-only. Every connection of a store comes from here, so they all follow the primary
/// when it changes.
///
/// - **Known primary.** Once a host has answered as writable, connections go to it directly.
/// - **Finding it.** Otherwise every host is tried at once, and the first that accepts a
///   read-write session wins (libpq's `target_session_attrs=read-write`). Hosts that refuse
///   (down, a standby, read-only) are tried again, with backoff, while another still has not
///   answered: a standby promoted meanwhile is found at once, without waiting for a host that
///   vanished to time out. The search ends at the connect timeout.
/// - **One search at a time.** While one runs, and for a backoff after one failed (50 ms,
///   doubling to 200 ms), other callers fail at once with its error: requests answer 503 rather
///   than queue behind a database that is not there.
/// - **Leaving a server.** A connection that finds its server read-only or gone raises the
///   `generation` (`PGGeneration`): every connection made before is then unhealthy, dropped by
///   its pool or slot, and the next one is made here again.
final class PGConnector: Sendable {
    private let url: String
    private let password: String?
    private let schema: String?
    /// Per host, the settings that choose it: `host`, `hostaddr` and `port`, one value each.
    private let hosts: [[(String, String)]]
    private let timeoutMilliseconds: Int
    let generation = PGGeneration()
    private let state = Mutex<State>(State())

    private struct State {
        var primary: Int?
        var searching = false
        /// Until when callers fail at once with `failure`, after a search that found no primary.
        var quietUntil: UInt64 = 0
        var backoffMilliseconds = Backoff.first
        var failure: StorageError?
    }

    init(url: String, password: String?, schema: String?) throws(StorageError) {
        self.url = url
        self.password = password
        self.schema = schema
        let options = try PGConnection.options(of: url)
        hosts = Self.hosts(options)
        let timeout = options["connect_timeout"].flatMap { Int($0) } ?? PGConnection.connectTimeoutSeconds
        // libpq's rule (below 2 s is 2 s); 0, which libpq takes as none, still ends a search, at 30 s.
        timeoutMilliseconds = (timeout <= 0 ? 30 : max(timeout, 2)) * 1000
    }

    /// The hosts `options` list, each with the settings that choose it; one entry, with no
    /// settings, when they list one host or none.
    static func hosts(_ options: [String: String]) -> [[(String, String)]] {
        let split = { (key: String) in
            options[key].map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        }
        let names = split("host")
        let addresses = split("hostaddr")
        let ports = split("port")
        let count = max(names.count, addresses.count)
        guard count > 1 else { return [[]] }
        return (0..<count).map { n in
            var settings: [(String, String)] = []
            if n < names.count { settings.append(("host", names[n])) }
            if n < addresses.count { settings.append(("hostaddr", addresses[n])) }
            // One port for every host, or one per host.
            if ports.count == 1 {
                settings.append(("port", ports[0]))
            } else if n < ports.count {
                settings.append(("port", ports[n]))
            }
            return settings
        }
    }

    /// A connection to the writable server.
    func connect() throws(StorageError) -> PGConnection {
        if let known = state.withLock({ $0.primary }) {
            do {
                return try connection(to: known)
            } catch {
                state.withLock { if $0.primary == known { $0.primary = nil } }
                if hosts.count == 1 { throw error }
            }
        }
        let now = DispatchTime.now().uptimeNanoseconds
        let refusal = state.withLock { state -> StorageError? in
            if state.searching { return state.failure ?? .unavailable("postgres: looking for the writable server") }
            if now < state.quietUntil { return state.failure ?? .unavailable("postgres: no writable server") }
            state.searching = true
            return nil
        }
        if let refusal { throw refusal }
        do {
            let (connection, host) = try search()
            state.withLock { state in
                state = State()
                state.primary = host
            }
            return connection
        } catch {
            state.withLock { state in
                state.searching = false
                state.failure = error
                state.quietUntil = DispatchTime.now().uptimeNanoseconds + UInt64(state.backoffMilliseconds) * 1_000_000
                state.backoffMilliseconds = Backoff.next(state.backoffMilliseconds)
            }
            throw error
        }
    }

    private func connection(to host: Int) throws(StorageError) -> PGConnection {
        try PGConnection(url: url, password: password, schema: schema, host: hosts[host], generation: generation)
    }

    /// Every host at once (one alone: a plain connect); the first writable one, and which it is.
    private func search() throws(StorageError) -> (PGConnection, Int) {
        guard hosts.count > 1 else { return (try connection(to: 0), 0) }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMilliseconds) * 1_000_000
        var attempts = hosts.indices.map { Attempt(host: $0) }
        defer { for attempt in attempts { attempt.abandon() } }
        var firstFailure: String?
        for n in attempts.indices { attempts[n].start(url: url, password: password, schema: schema, host: hosts[n]) }
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            for n in attempts.indices where attempts[n].isDue(at: now) {
                attempts[n].start(url: url, password: password, schema: schema, host: hosts[n])
            }
            if let won = attempts.firstIndex(where: \.isConnected) {
                return (PGConnection(handle: attempts[won].take()!, generation: generation), won)
            }
            firstFailure = firstFailure ?? attempts.lazy.compactMap(\.failure).first
            // Refusals are tried again only while some host has not answered yet.
            guard attempts.contains(where: \.isPending), now < deadline else { break }
            var descriptors = attempts.map { $0.pollDescriptor }
            // An attempt between two sockets (libpq trying a host's next address) advances without waiting.
            let between = attempts.indices.filter { attempts[$0].isPending && descriptors[$0].fd < 0 }
            let wake = attempts.compactMap(\.retryAt).min().map { min($0, deadline) } ?? deadline
            let wait = between.isEmpty ? Int32(clamping: (wake > now ? wake - now : 0) / 1_000_000 + 1) : 0
            _ = poll(&descriptors, nfds_t(descriptors.count), wait)
            for n in attempts.indices where descriptors[n].revents != 0 || between.contains(n) { attempts[n].advance() }
        }
        throw .unavailable(
            "postgres: no writable server among the \(hosts.count) hosts: \(firstFailure ?? "none answered in time")")
    }
}

/// The pauses before a search, or a host's attempt in one, is made again: 50 ms, doubling to 200 ms.
private enum Backoff {
    static let first = 50
    static func next(_ milliseconds: Int) -> Int { min(milliseconds * 2, 200) }
}

/// One host's connection attempt in a search: polling, refused (to be tried again), or connected.
private struct Attempt {
    let host: Int
    private var handle: OpaquePointer?
    private var polling = PGRES_POLLING_WRITING
    private(set) var failure: String?
    private(set) var retryAt: UInt64?
    private var backoffMilliseconds = Backoff.first

    init(host: Int) { self.host = host }

    var isConnected: Bool { handle != nil && polling == PGRES_POLLING_OK }
    /// Not answered yet: connecting or waiting to be tried again after a refusal does not count.
    var isPending: Bool { handle != nil && polling != PGRES_POLLING_OK }
    func isDue(at now: UInt64) -> Bool { retryAt.map { now >= $0 } ?? false }

    mutating func start(url: String, password: String?, schema: String?, host settings: [(String, String)]) {
        retryAt = nil
        handle = PGConnection.start(url: url, password: password, schema: schema, host: settings)
        polling = PGRES_POLLING_WRITING
        if handle == nil || PQstatus(handle) == CONNECTION_BAD { refused() }
    }

    /// What `poll` waits for: the socket libpq asked for, or nothing (fd -1).
    var pollDescriptor: pollfd {
        guard let handle, isPending else { return pollfd(fd: -1, events: 0, revents: 0) }
        let events = polling == PGRES_POLLING_READING ? POLLIN : POLLOUT
        return pollfd(fd: PQsocket(handle), events: Int16(events), revents: 0)
    }

    mutating func advance() {
        guard let handle else { return }
        polling = PQconnectPoll(handle)
        if polling == PGRES_POLLING_FAILED { refused() }
    }

    private mutating func refused() {
        failure = PGConnection.firstLine(handle.map { PQerrorMessage($0) } ?? nil)
        handle.map { PQfinish($0) }
        handle = nil
        retryAt = DispatchTime.now().uptimeNanoseconds + UInt64(backoffMilliseconds) * 1_000_000
        backoffMilliseconds = Backoff.next(backoffMilliseconds)
    }

    /// The connected handle, which the caller now owns.
    mutating func take() -> OpaquePointer? {
        defer { handle = nil }
        return handle
    }

    func abandon() { handle.map { PQfinish($0) } }
}

/// Raised when a connection finds its server gone or read-only: every connection made at an
/// earlier generation is then unhealthy, since its server may no longer be the primary.
final class PGGeneration: Sendable {
    private let value = Atomic<Int>(0)

    var current: Int { value.load(ordering: .acquiring) }

    /// Raises the generation unless a connection of a later one already did.
    func leave(_ generation: Int) {
        _ = value.compareExchange(expected: generation, desired: generation + 1, ordering: .acquiringAndReleasing)
    }
}

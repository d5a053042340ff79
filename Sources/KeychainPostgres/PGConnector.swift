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
///   vanished to time out. The search ends at the connect timeout. Host names are looked up by a
///   `PGResolver`, off the searching thread.
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
    private let resolver: PGResolver
    private let state = Mutex<State>(State())

    private struct State {
        var primary: Int?
        var searching = false
        /// Until when callers fail at once with `failure`, after a search that found no primary.
        var quietUntil: UInt64 = 0
        var backoffMilliseconds = Backoff.first
        var failure: StorageError?
    }

    init(url: String, password: String?, schema: String?, resolver: PGResolver = PGResolver()) throws(StorageError) {
        self.url = url
        self.resolver = resolver
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
        guard hosts.count > 1 else {
            return try PGConnection(
                url: url, password: password, schema: schema,
                host: [], generation: generation)
        }
        if let known = state.withLock({ $0.primary }) {
            do {
                return try search(among: [known]).0
            } catch {
                state.withLock { if $0.primary == known { $0.primary = nil } }
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
            let (connection, host) = try search(among: Array(hosts.indices))
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

    /// The given hosts at once; the first writable one, and which it is. Host names are looked up
    /// by `resolver`, never on this thread: a lookup that hangs holds back only its own host.
    private func search(among candidates: [Int]) throws(StorageError) -> (PGConnection, Int) {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMilliseconds) * 1_000_000
        var attempts = candidates.map { Attempt(host: $0) }
        defer { for attempt in attempts { attempt.abandon() } }
        var firstFailure: String?
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            for n in attempts.indices where attempts[n].isDue(at: now) {
                switch settings(of: attempts[n].host, lookedUpSince: attempts[n].waitingSince) {
                case .ready(let settings): attempts[n].start(url: url, password: password, schema: schema, host: settings)
                case .failed(let message): attempts[n].refused(message)
                case .waiting: attempts[n].waitForAddresses()
                }
            }
            if let won = attempts.firstIndex(where: \.isConnected) {
                return (PGConnection(handle: attempts[won].take()!, generation: generation), attempts[won].host)
            }
            firstFailure = firstFailure ?? attempts.lazy.compactMap(\.failure).first
            // Refusals are tried again only while some host has not answered yet.
            guard attempts.contains(where: \.isPending), now < deadline else { break }
            var descriptors = attempts.map { $0.pollDescriptor }
            // An attempt between two sockets (libpq trying a host's next address) advances without
            // waiting; one waiting for its host's addresses looks again within 5 ms.
            let between = attempts.indices.filter { attempts[$0].isConnecting && descriptors[$0].fd < 0 }
            var wake = attempts.filter { !$0.isLookingUp }.compactMap(\.retryAt).min().map { min($0, deadline) } ?? deadline
            if attempts.contains(where: \.isLookingUp) { wake = min(wake, now + 5_000_000) }
            let wait = between.isEmpty ? Int32(clamping: (wake > now ? wake - now : 0) / 1_000_000 + 1) : 0
            _ = poll(&descriptors, nfds_t(descriptors.count), wait)
            for n in attempts.indices where descriptors[n].revents != 0 || between.contains(n) { attempts[n].advance() }
        }
        throw .unavailable(
            "postgres: no writable server among the \(candidates.count) hosts: \(firstFailure ?? "none answered in time")")
    }

    private enum HostSettings {
        case ready([(String, String)])
        case waiting
        case failed(String)
    }

    /// A host's settings for libpq, its name's addresses given as `hostaddr` once a lookup that
    /// finished at `since` or later has them.
    private func settings(of host: Int, lookedUpSince since: UInt64) -> HostSettings {
        let given = hosts[host]
        guard let name = Self.nameToLookUp(given) else { return .ready(given) }
        switch resolver.addresses(of: name, since: since) {
        case nil: return .waiting
        case .failure(let failure): return .failed(failure.message)
        case .success(let addresses):
            // libpq tries each address in turn; `host` stays the name (for TLS and the password file).
            let repeated = { (value: String) in Array(repeating: value, count: addresses.count).joined(separator: ",") }
            var settings = [("host", repeated(name)), ("hostaddr", addresses.joined(separator: ","))]
            if let port = given.first(where: { $0.0 == "port" })?.1 { settings.append(("port", repeated(port))) }
            return .ready(settings)
        }
    }

    /// The name a host's settings leave libpq to look up: none for an address, a socket directory
    /// or a host given with its `hostaddr`.
    static func nameToLookUp(_ settings: [(String, String)]) -> String? {
        guard !settings.contains(where: { $0.0 == "hostaddr" && !$0.1.isEmpty }),
            let name = settings.first(where: { $0.0 == "host" })?.1, !name.isEmpty, !name.hasPrefix("/"),
            !name.hasPrefix("@")
        else { return nil }
        var address = in6_addr()
        if inet_pton(AF_INET, name, &address) == 1 || inet_pton(AF_INET6, name, &address) == 1 { return nil }
        return name
    }
}

/// Host names looked up on threads of their own, at most one lookup a name at a time: a name
/// whose lookup hangs (a DNS server asked for a stopped container's name may answer only after
/// its own timeout) holds back no search, and costs one thread however often it is asked for.
final class PGResolver: Sendable {
    struct Failure: Error { let message: String }

    private struct Lookup {
        var running = false
        var finishedAt: UInt64 = 0
        var result: Result<[String], Failure>?
    }

    private let lookups = Mutex<[String: Lookup]>([:])
    private let lookUp: @Sendable (String) -> Result<[String], Failure>

    init(lookUp: @escaping @Sendable (String) -> Result<[String], Failure> = PGResolver.lookUp) {
        self.lookUp = lookUp
    }

    /// The addresses of `name` from a lookup that finished at `since` or later; nil while none
    /// has, after starting one unless one is running.
    func addresses(of name: String, since: UInt64) -> Result<[String], Failure>? {
        let start = lookups.withLock { lookups -> Bool? in
            let lookup = lookups[name, default: Lookup()]
            if lookup.result != nil, lookup.finishedAt >= since { return nil }
            if lookup.running { return false }
            lookups[name, default: Lookup()].running = true
            return true
        }
        switch start {
        case nil: return lookups.withLock { $0[name]?.result }
        case true?:
            DispatchQueue.global().async { [self] in
                let result = lookUp(name)
                lookups.withLock {
                    $0[name] = Lookup(
                        running: false, finishedAt: DispatchTime.now().uptimeNanoseconds,
                        result: result)
                }
            }
            return nil
        case false?: return nil
        }
    }

    /// getaddrinfo's addresses for `name`, as text.
    static func lookUp(_ name: String) -> Result<[String], Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0, let list else {
            return .failure(
                Failure(
                    message: "could not translate host name \"\(name)\" to address: "
                        + String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(
                current.pointee.ai_addr, current.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                NI_NUMERICHOST) == 0
            {
                let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(address) { addresses.append(address) }
            }
            entry = current.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(Failure(message: "no address for host name \"\(name)\"")) : .success(addresses)
    }
}

/// The pauses before a search, or a host's attempt in one, is made again: 50 ms, doubling to 200 ms.
private enum Backoff {
    static let first = 50
    static func next(_ milliseconds: Int) -> Int { min(milliseconds * 2, 200) }
}

/// One host's connection attempt in a search: due (waiting for its host's addresses, or to be
/// tried again after a refusal), connecting, or connected.
private struct Attempt {
    let host: Int
    private var handle: OpaquePointer?
    private var polling = PGRES_POLLING_WRITING
    private(set) var failure: String?
    /// When it is to be started: at once, or after a refusal's backoff; nil while connecting.
    private(set) var retryAt: UInt64?
    /// A lookup of its host's name must have finished since then.
    private(set) var waitingSince: UInt64
    /// Due, and waiting for its host's addresses.
    private(set) var isLookingUp = false
    private var backoffMilliseconds = Backoff.first

    init(host: Int) {
        self.host = host
        retryAt = DispatchTime.now().uptimeNanoseconds
        waitingSince = retryAt!
    }

    var isConnected: Bool { handle != nil && polling == PGRES_POLLING_OK }
    var isConnecting: Bool { handle != nil && polling != PGRES_POLLING_OK }
    /// Not answered yet: waiting to be tried again after a refusal does not count.
    var isPending: Bool { isConnecting || isLookingUp }
    func isDue(at now: UInt64) -> Bool { retryAt.map { now >= $0 } ?? false }

    mutating func waitForAddresses() { isLookingUp = true }

    mutating func start(url: String, password: String?, schema: String?, host settings: [(String, String)]) {
        retryAt = nil
        isLookingUp = false
        handle = PGConnection.start(url: url, password: password, schema: schema, host: settings)
        polling = PGRES_POLLING_WRITING
        if handle == nil || PQstatus(handle) == CONNECTION_BAD { refused() }
    }

    /// What `poll` waits for: the socket libpq asked for, or nothing (fd -1).
    var pollDescriptor: pollfd {
        guard let handle, isConnecting else { return pollfd(fd: -1, events: 0, revents: 0) }
        let events = polling == PGRES_POLLING_READING ? POLLIN : POLLOUT
        return pollfd(fd: PQsocket(handle), events: Int16(events), revents: 0)
    }

    mutating func advance() {
        guard let handle else { return }
        polling = PQconnectPoll(handle)
        if polling == PGRES_POLLING_FAILED { refused() }
    }

    /// Refused, by the server or by the lookup of its name (`message`): tried again after a backoff.
    mutating func refused(_ message: String? = nil) {
        failure = message ?? PGConnection.firstLine(handle.map { PQerrorMessage($0) } ?? nil)
        handle.map { PQfinish($0) }
        handle = nil
        isLookingUp = false
        retryAt = DispatchTime.now().uptimeNanoseconds + UInt64(backoffMilliseconds) * 1_000_000
        waitingSince = retryAt!
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

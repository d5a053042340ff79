import CLinux
import Foundation

/// How an `HTTPServer` binds and what it tolerates from clients.
///
/// Every limit is passed to libmicrohttpd explicitly, so the defaults below are the
/// server's behaviour and not whatever the library version happens to default to.
public struct HTTPServerConfiguration: Sendable {
    /// The IPv4 or IPv6 literal to bind (`127.0.0.1`, `::1`, `0.0.0.0`, `::`); never a host name.
    ///
    /// An IPv6 literal binds dual-stack, so `::` also accepts IPv4 clients.
    public var host: String = "127.0.0.1"
    /// The TCP port; `0` picks an ephemeral one, read back with `HTTPServer.port`.
    public var port: Int = 8700
    /// The number of polling threads (`MHD_OPTION_THREAD_POOL_SIZE`), at least 1.
    public var threads: Int = HTTPServerConfiguration.usableCores
    /// Seconds a connection may stay idle (`MHD_OPTION_CONNECTION_TIMEOUT`); suspended ones never
    /// time out. Between the requests of a keep-alive connection, the next request's head must
    /// also be complete within this time of the previous answer, however slowly it trickles in.
    public var connectionTimeoutSeconds: Int = 10
    /// Seconds from a connection's opening by which its first request head must be complete,
    /// whether or not bytes keep arriving (nginx's `client_header_timeout`); also the grace a
    /// body has before `minBodyBytesPerSecond` applies.
    public var headTimeoutSeconds: Double = 5
    /// The slowest average rate a body may arrive at, after `headTimeoutSeconds`; slower, the
    /// connection is cut.
    public var minBodyBytesPerSecond: Int = 1024
    /// Connections one client address may hold. At the limit, the address's keep-alive connection
    /// idle longest between requests is closed to make room for its new one; with none idle, the
    /// new connection's first request is answered 503 with `Retry-After`
    /// (`HTTPTransportError.tooManyConnections`) and the connection closed, and past 16 such
    /// connections at once (all addresses together) it is closed unanswered at accept. Not
    /// applied to `unlimitedAddresses`.
    public var perAddressConnectionLimit: Int = 64
    /// Addresses without a per-address limit: the reverse proxies in front of the server.
    public var unlimitedAddresses: [String] = []
    /// The most simultaneous connections. At the limit, a new connection is accepted by cutting
    /// the connection that has waited longest for its request head, so that a client sending
    /// whole requests promptly is served; when no connection waits for a head, it is refused.
    public var connectionLimit: Int = 1024
    /// Bytes of header and read buffer per connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`).
    ///
    /// A request head larger than about this is answered 431 by libmicrohttpd itself.
    /// libmicrohttpd 0.9.75 zeroes the whole pool between the requests of a keep-alive
    /// connection, so its size is a cost of every request: 14 KiB, not the library's 32, which
    /// is the core's whole first-level data cache (docs/performance.md#connection-pool-at-14-kib).
    /// It holds the limits below and a head of about 13 KB.
    public var perConnectionMemoryLimit: Int = 14 * 1024
    /// The longest request target (path and query, as sent) accepted; longer is refused with 414.
    ///
    /// A query longer than this goes in a JSON body instead (`POST /v1/items/search`, or a
    /// `DELETE`'s body; an update's query is always in its body). A request line longer than
    /// the read buffer libmicrohttpd can grow in `perConnectionMemoryLimit` is answered 414 by
    /// the library itself, in its own HTML body, before the server sees it.
    public var maxRequestTargetBytes: Int = 4096
    /// The most query parameters (`&`-separated) a request target may have; more is refused with
    /// 414. libmicrohttpd 0.9.75 keeps each one in the connection's memory pool, and drops the
    /// connection unanswered when the pool runs out: the server refuses before the library
    /// parses them. Together with `maxRequestTargetBytes`, at most half of
    /// `perConnectionMemoryLimit` (checked at start): the library's read buffer starts at half
    /// the pool and the parameters' records take the other half.
    public var maxQueryItems: Int = 48
    /// The largest request body accepted, declared or counted; more is refused with 413.
    public var maxBodyBytes: Int = 1 << 20
    /// Where a body that may exceed `maxBodyBytes` (`HTTPResponder.largeBodyLimit(for:)`) is
    /// written as it arrives, in a file without a name (`HTTPSpooledBody`); `nil`: held in memory.
    public var spoolDirectory: String?
    /// Threads for requests the responder sends to the worker pool (durable writes): how many
    /// such requests can wait for their commit at once, and so how many can share one fsync.
    public var workerPoolThreads: Int = 16
    /// Requests that may wait for the serial worker (Argon2id derivations, one at a time) besides
    /// the one it runs; one more is refused with `HTTPTransportError.serialWorkerBusy` at once.
    public var serialWorkerQueueLimit: Int = 4

    /// A configuration with every default; set the fields to change it.
    public init() {}

    /// A configuration for `host`:`port`, with every other field at its default.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The cores this process may run on: its CPU affinity (`taskset`, cpusets), not every core
    /// of the machine, so that a pinned server does not run more polling threads than cores.
    public static var usableCores: Int {
        let count = Int(kcd_usable_cpus())
        return count > 0 ? count : ProcessInfo.processInfo.activeProcessorCount
    }
}

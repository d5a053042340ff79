import CMicroHTTPD
import Dispatch
public import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server on libmicrohttpd: a pool of epoll polling threads, keep-alive, body limits,
/// framing checks, a serial worker for slow requests and a pool for blocking ones.
///
/// The server runs from `init` until `shutdown()` (or deinit). Requests reach the responder on
/// libmicrohttpd's threads, except those its preflight sends to a worker, which answers them
/// while their connection is suspended.
public final class HTTPServer: Sendable {
    /// The bound TCP port (the ephemeral one when the configuration asked for 0).
    public let port: Int
    private let context: ServerContext
    private let drainSeconds: Int
    /// libmicrohttpd's polling threads: more than one make a thread pool.
    private let threads: Int
    /// The daemon until `shutdown()` stops it; the lock is held for the whole shutdown.
    private let daemon: Mutex<OpaquePointer?>

    /// Binds and starts serving.
    ///
    /// - Throws: `HTTPServerError.invalidConfiguration` for a host that is not an IP literal or a
    ///   limit out of range; `HTTPServerError.startFailed` when `MHD_start_daemon` fails (port
    ///   taken, address not local…).
    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) throws {
        try Self.validate(configuration)
        guard let address = SocketAddress(host: configuration.host, port: configuration.port) else {
            throw HTTPServerError.invalidConfiguration("host is not an IPv4 or IPv6 literal")
        }
        let context = ServerContext(
            responder: responder, logger: logger, maxBodyBytes: configuration.maxBodyBytes,
            spoolDirectory: configuration.spoolDirectory,
            poolThreads: configuration.workerPoolThreads, serialWorkerQueueLimit: configuration.serialWorkerQueueLimit,
            connectionLimits: ConnectionGuard.Limits(
                headTimeoutNanoseconds: UInt64(configuration.headTimeoutSeconds * 1e9),
                idleTimeoutNanoseconds: UInt64(max(configuration.connectionTimeoutSeconds, 1)) * 1_000_000_000,
                minBodyBytesPerSecond: configuration.minBodyBytesPerSecond,
                perAddressConnectionLimit: configuration.perAddressConnectionLimit,
                connectionLimit: configuration.connectionLimit,
                unlimitedAddresses: Set(configuration.unlimitedAddresses.map(IPAddressText.canonical))),
            maxRequestTargetBytes: configuration.maxRequestTargetBytes, maxQueryItems: configuration.maxQueryItems,
            maxHeadBytes: configuration.perConnectionMemoryLimit)
        let contextPointer = Unmanaged.passRetained(context).toOpaque()
        let started = address.withSockAddrPointer { sockAddr in
            var options: [MHD_OptionItem] = [
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: sockAddr),
                MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threads, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeoutSeconds, ptr_value: nil),
                // Above the guard's limit, so that libmicrohttpd still accepts (and asks the guard)
                // while connections the guard cut are closing.
                MHD_OptionItem(
                    option: .CONNECTION_LIMIT, value: configuration.connectionLimit + Self.evictionHeadroom, ptr_value: nil),
                MHD_OptionItem(
                    option: .CONNECTION_MEMORY_LIMIT, value: configuration.perConnectionMemoryLimit, ptr_value: nil),
                MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
            ]
            return kcd_mhd_start_daemon(
                Self.flags(ipv6: address.isIPv6), mhdAccessHandler, contextPointer,
                mhdRequestCompleted, contextPointer, mhdAcceptPolicy, mhdNotifyConnection, contextPointer, mhdRequestLine,
                &options)
        }
        guard let started else {
            let reason = String(cString: strerror(errno))
            context.serialWorker.stop()
            context.transferWorker.stop()
            context.pool.stop()
            context.connectionGuard.stop()
            Unmanaged<ServerContext>.fromOpaque(contextPointer).release()
            throw HTTPServerError.startFailed(
                "libmicrohttpd could not start on \(configuration.host) port \(configuration.port) (last error: \(reason))")
        }
        self.port = Int(kcd_mhd_daemon_port(started))
        self.context = context
        self.drainSeconds = max(configuration.connectionTimeoutSeconds, 1)
        self.threads = configuration.threads
        self.daemon = Mutex(started)
        logger.info("http server started", metadata: ["http.host": "\(configuration.host)", "http.port": "\(port)"])
    }

    deinit {
        shutdown()
    }

    /// The connections open now (the connection guard's count), for metrics: takes the guard's
    /// lock once, so it is for a scrape, not for every request.
    public var openConnections: Int { context.connectionGuard.count }

    /// Stops gracefully; returns when the daemon is gone. Idempotent, safe from any thread.
    ///
    /// New connections are refused at once: the listening socket is shut down (after
    /// `MHD_quiesce_daemon` with one polling thread). Requests already in flight, including
    /// offloaded ones, may finish — up to the connection timeout (at least a second) — and every
    /// response from then on closes its connection; live bodies (server-sent events) end. Then
    /// the worker is drained and `MHD_stop_daemon` closes what remains.
    public func shutdown() {
        daemon.withLock { daemon in
            guard let running = daemon else { return }
            daemon = nil
            context.isShuttingDown.store(true, ordering: .relaxed)
            // Live bodies end now rather than hold their requests (and connections) open.
            context.endLiveBodies()
            // libmicrohttpd 0.9.75 quiescing a thread pool races each polling thread taking the
            // socket out of its epoll set, and aborts when the thread wins: a pool's socket is
            // only shut down (its threads then wake to a failing accept until the drain ends).
            let pooled = threads > 1
            let listening = pooled ? -1 : MHD_quiesce_daemon(running)
            if pooled {
                let socket = kcd_mhd_listen_fd(running)
                if socket >= 0 { refuseConnections(on: socket) }
            } else if listening >= 0 {
                // The listening socket stays open until MHD_stop_daemon (its threads may still
                // hold it), but shut down it refuses new connections now instead of queueing them.
                refuseConnections(on: listening)
            }
            _ = context.inFlight.wait(timeout: .now() + .seconds(drainSeconds))
            context.serialWorker.stop()
            context.transferWorker.stop()
            context.pool.stop()
            context.deferred.wait()
            MHD_stop_daemon(running)
            context.connectionGuard.stop()
            if listening >= 0 {
                _ = close(listening)
            }
            Unmanaged.passUnretained(context).release()
            context.logger.info("http server stopped", metadata: ["http.port": "\(port)"])
        }
    }

    /// What one query parameter takes from a connection's pool in libmicrohttpd 0.9.75: a
    /// `struct MHD_HTTP_Header` (7 words), rounded up.
    static let poolBytesPerQueryItem = 64

    /// Connections libmicrohttpd may hold beyond the guard's limit: those being cut.
    static let evictionHeadroom = 64

    private func refuseConnections(on socket: MHD_socket) {
        #if canImport(Glibc)
            _ = Glibc.shutdown(socket, Int32(SHUT_RDWR))
        #elseif canImport(Musl)
            _ = Musl.shutdown(socket, Int32(SHUT_RDWR))
        #elseif canImport(Darwin)
            _ = Darwin.shutdown(socket, SHUT_RDWR)
        #endif
    }

    private static func flags(ipv6: Bool) -> UInt32 {
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if ipv6 {
            flags |= MHD_USE_DUAL_STACK.rawValue
        }
        return flags
    }

    private static func validate(_ configuration: HTTPServerConfiguration) throws {
        let checks: [(Bool, String)] = [
            (configuration.threads >= 1, "threads must be at least 1"),
            (configuration.connectionTimeoutSeconds >= 0, "connectionTimeoutSeconds must not be negative"),
            (configuration.connectionLimit >= 1, "connectionLimit must be at least 1"),
            (configuration.perConnectionMemoryLimit >= 4096, "perConnectionMemoryLimit must be at least 4096"),
            (configuration.maxBodyBytes >= 0, "maxBodyBytes must not be negative"),
            (configuration.serialWorkerQueueLimit >= 1, "serialWorkerQueueLimit must be at least 1"),
            (configuration.headTimeoutSeconds > 0, "headTimeoutSeconds must be positive"),
            (configuration.minBodyBytesPerSecond >= 0, "minBodyBytesPerSecond must not be negative"),
            (configuration.perAddressConnectionLimit >= 1, "perAddressConnectionLimit must be at least 1"),
            (configuration.maxRequestTargetBytes >= 1, "maxRequestTargetBytes must be at least 1"),
            (configuration.maxQueryItems >= 0, "maxQueryItems must not be negative"),
            // What the query's records and the request line take from the pool must leave room
            // for the headers and the response, or libmicrohttpd drops the connection unanswered.
            (
                (configuration.maxRequestTargetBytes + configuration.maxQueryItems * Self.poolBytesPerQueryItem) * 2
                    <= configuration.perConnectionMemoryLimit,
                "maxRequestTargetBytes and maxQueryItems must fit in half of perConnectionMemoryLimit"
            ),
        ]
        if let failed = checks.first(where: { !$0.0 }) {
            throw HTTPServerError.invalidConfiguration(failed.1)
        }
    }
}

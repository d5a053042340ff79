import CMicroHTTPD
import Dispatch
import Foundation
import SleepingLock

/// Deadlines and limits that libmicrohttpd's idle timeout does not give: a client that trickles
/// its request a byte at a time is never idle, so it is never cut off, and at the connection
/// limit new clients would queue behind such clients.
///
/// - A request head must be complete within `headTimeoutSeconds` of the connection's opening;
///   between the requests of a keep-alive connection, within the idle timeout of the previous
///   answer, however many bytes trickle in meanwhile.
/// - A body must arrive at `minBodyBytesPerSecond` on average once `headTimeoutSeconds` have
///   passed since its head.
/// - An address other than `unlimitedAddresses` (the trusted proxies) holds at most
///   `perAddressConnectionLimit` connections. At that limit, a new connection of the address
///   makes room by cutting the address's own keep-alive connection idle longest between
///   requests (never one mid-request); with none idle, it is accepted only to have its first
///   request answered 503 at once (`isOverLimit`), at most `overLimitConnectionLimit` such
///   connections at a time across all addresses; past those, it is refused at accept unanswered.
/// - At `connectionLimit`, a new connection makes room by cutting a connection: the keep-alive
///   connection idle longest between requests (no byte of a next request line complete), else
///   the one whose request head has waited longest, so that a client that sends a whole request
///   promptly is served; a connection whose request is with the application or whose body is
///   arriving at the required rate is never cut.
///
/// A connection is cut with `shutdown(2)` on its socket: libmicrohttpd then sees the end of
/// the stream and closes it itself. Its socket cannot have been closed and reused meanwhile:
/// libmicrohttpd reports a connection closed (`closed`, which takes the same lock) before it
/// closes the socket.
final class ConnectionGuard: Sendable {
    struct Limits: Sendable {
        var headTimeoutNanoseconds: UInt64
        var idleTimeoutNanoseconds: UInt64
        var minBodyBytesPerSecond: Int
        var perAddressConnectionLimit: Int
        var connectionLimit: Int
        var unlimitedAddresses: Set<String>
        /// Connections over their address's limit, accepted only to be answered 503, at a time.
        var overLimitConnectionLimit: Int = 16
        /// How often deadlines are checked.
        var sweepNanoseconds: UInt64 = 250_000_000
    }

    private enum Phase {
        /// Between the requests of a keep-alive connection, answered at `since`, with no request
        /// line of the next one yet: the first to be cut at the connection limit. Its deadline is
        /// `since` plus the idle timeout.
        case idle(since: UInt64)
        /// Waiting for a request head: the deadline is `since` plus the allowance for it.
        case head(since: UInt64, allowance: UInt64)
        /// Receiving a body since `since`.
        case body(since: UInt64, received: Int)
        /// The request is with the application, or its answer is being sent: no deadline.
        case answering
    }

    /// A tracked connection. Also held in libmicrohttpd's socket context for the connection
    /// (retained from `opened` to `closed`), so that the three changes of phase a request makes
    /// find it without a hash lookup; `phase` is read and written only under `state`'s lock.
    private final class Slot: @unchecked Sendable {
        let fd: Int32
        let address: String
        /// Accepted over its address's limit: its first request is answered 503, and it is not
        /// counted in `perAddress`. Never changes, so it is read without the lock.
        let isOverLimit: Bool
        var phase: Phase

        init(fd: Int32, address: String, isOverLimit: Bool, phase: Phase) {
            self.fd = fd
            self.address = address
            self.isOverLimit = isOverLimit
            self.phase = phase
        }
    }

    private struct State {
        var connections: [UInt: Slot] = [:]
        /// Connections per address, those over the limit left out.
        var perAddress: [String: Int] = [:]
        /// Connections over their address's limit (`Slot.isOverLimit`).
        var overLimit = 0
        var stopped = false
    }

    private let limits: Limits
    private let state = SleepingLock(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(limits: Limits) {
        self.limits = limits
        let thread = Thread { [self] in sweep() }
        thread.name = "http-deadlines"
        thread.start()
    }

    /// Stops the sweeping thread and waits for it.
    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
        finished.wait()
    }

    /// Whether to accept a connection from `address`. At that address's limit, its keep-alive
    /// connection idle longest is cut to make room; with none idle, it is accepted (to be
    /// answered 503) while fewer than `overLimitConnectionLimit` are, else refused. At the
    /// server's limit, the connection idle longest between requests is cut, else the one that
    /// has waited longest for a request head.
    func accepts(_ address: String) -> Bool {
        state.withLock { state in
            if isAtItsLimit(address, state) {
                if let idle = Self.longestIdle(state.connections, of: address) {
                    Self.cut(idle, from: &state)
                } else if state.overLimit >= limits.overLimitConnectionLimit {
                    return false
                }
            }
            if state.connections.count >= limits.connectionLimit {
                guard let oldest = Self.firstToCut(state.connections) else { return false }
                Self.cut(oldest, from: &state)
            }
            return true
        }
    }

    /// A connection is open: tracked, and its slot left in `socketContext` (libmicrohttpd's
    /// per-connection pointer) until `closed`. One that finds its address at the limit is marked
    /// over it (`isOverLimit`), or, past `overLimitConnectionLimit`, shut down at once untracked.
    func opened(_ connection: OpaquePointer, address: String, socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        let now = HTTPRequestHead.monotonicNanoseconds()
        let fd = kcd_mhd_connection_fd(connection)
        let slot = state.withLock { state -> Slot? in
            let isOverLimit = isAtItsLimit(address, state)
            if isOverLimit, state.overLimit >= limits.overLimitConnectionLimit {
                _ = shutdown(fd, Int32(SHUT_RDWR))
                return nil
            }
            let slot = Slot(
                fd: fd, address: address, isOverLimit: isOverLimit,
                phase: .head(since: now, allowance: limits.headTimeoutNanoseconds))
            state.connections[UInt(bitPattern: connection)] = slot
            if isOverLimit { state.overLimit += 1 } else { state.perAddress[address, default: 0] += 1 }
            return slot
        }
        guard let slot else { return }
        socketContext?.pointee = Unmanaged.passRetained(slot).toOpaque()
    }

    /// Whether the connection was accepted over its address's limit, so that its first request
    /// is to be answered 503 at once. Lock-free: the flag never changes.
    func isOverLimit(_ connection: OpaquePointer) -> Bool {
        guard let opaque = kcd_mhd_socket_context(connection) else { return false }
        return Unmanaged<Slot>.fromOpaque(opaque).takeUnretainedValue().isOverLimit
    }

    /// The limit of connections per address, for the 503's message.
    var perAddressConnectionLimit: Int { limits.perAddressConnectionLimit }

    /// A connection is closed: no longer tracked, and its slot's reference in `socketContext`
    /// released (the context is cleared first: a change of phase after this finds no slot).
    func closed(_ connection: OpaquePointer, socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        state.withLock { state in Self.remove(UInt(bitPattern: connection), from: &state) }
        if let opaque = socketContext?.pointee {
            socketContext?.pointee = nil
            Unmanaged<Slot>.fromOpaque(opaque).release()
        }
    }

    /// The head is in: a body may follow (`expectsBody`), or the request goes to the application.
    func headReceived(_ connection: OpaquePointer, expectsBody: Bool) {
        // The clock is read only for a body's deadline: not for a GET.
        let phase: Phase = expectsBody ? .body(since: HTTPRequestHead.monotonicNanoseconds(), received: 0) : .answering
        update(connection) { $0 = phase }
    }

    func bodyReceived(_ connection: OpaquePointer, bytes: Int) {
        update(connection) { phase in
            if case .body(let since, let received) = phase { phase = .body(since: since, received: received + bytes) }
        }
    }

    /// The body is complete: the request is with the application.
    func bodyComplete(_ connection: OpaquePointer) {
        update(connection) { $0 = .answering }
    }

    /// The answer is sent: the connection is idle, and the next request's head must come within
    /// the idle timeout.
    func requestCompleted(_ connection: OpaquePointer) {
        let now = HTTPRequestHead.monotonicNanoseconds()
        update(connection) { $0 = .idle(since: now) }
    }

    /// A request line is complete: an idle connection is mid-request again, with the deadline it had.
    func requestLineReceived(_ connection: OpaquePointer) {
        update(connection) { phase in
            if case .idle(let since) = phase { phase = .head(since: since, allowance: limits.idleTimeoutNanoseconds) }
        }
    }

    /// How many connections are tracked (for metrics and tests).
    var count: Int { state.withLock { $0.connections.count } }

    /// How many connections over their address's limit are tracked (for tests).
    var overLimitCount: Int { state.withLock { $0.overLimit } }

    /// Changes a connection's phase in place, through the slot in its socket context: no hash
    /// lookup (three times a request). A connection cut meanwhile is no longer tracked, and its
    /// phase no longer matters.
    private func update(_ connection: OpaquePointer, _ change: (inout Phase) -> Void) {
        guard let opaque = kcd_mhd_socket_context(connection) else { return }
        let slot = Unmanaged<Slot>.fromOpaque(opaque).takeUnretainedValue()
        state.withLock { _ in change(&slot.phase) }
    }

    private func isAtItsLimit(_ address: String, _ state: State) -> Bool {
        !limits.unlimitedAddresses.contains(address) && state.perAddress[address, default: 0] >= limits.perAddressConnectionLimit
    }

    /// Shuts a connection down and counts it out now: its close follows, and the room is the new
    /// connection's.
    private static func cut(_ key: UInt, from state: inout State) {
        guard let entry = state.connections[key] else { return }
        _ = shutdown(entry.fd, Int32(SHUT_RDWR))
        remove(key, from: &state)
    }

    private static func remove(_ key: UInt, from state: inout State) {
        guard let entry = state.connections.removeValue(forKey: key) else { return }
        if entry.isOverLimit {
            state.overLimit -= 1
            return
        }
        let left = state.perAddress[entry.address, default: 1] - 1
        state.perAddress[entry.address] = left > 0 ? left : nil
    }

    /// `address`'s keep-alive connection idle longest between requests, if it has one idle.
    private static func longestIdle(_ connections: [UInt: Slot], of address: String) -> UInt? {
        var idle: (key: UInt, since: UInt64)?
        for (key, entry) in connections where entry.address == address {
            if case .idle(let since) = entry.phase, since < idle?.since ?? .max { idle = (key, since) }
        }
        return idle?.key
    }

    /// The connection to cut at the limit: the longest idle, else the longest waiting for a head.
    private static func firstToCut(_ connections: [UInt: Slot]) -> UInt? {
        var idle: (key: UInt, since: UInt64)?
        var waiting: (key: UInt, since: UInt64)?
        for (key, entry) in connections {
            switch entry.phase {
            case .idle(let since) where since < idle?.since ?? .max: idle = (key, since)
            case .head(let since, _) where since < waiting?.since ?? .max: waiting = (key, since)
            default: break
            }
        }
        return idle?.key ?? waiting?.key
    }

    private func sweep() {
        while true {
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(limits.sweepNanoseconds)))
            let stopped = state.withLock { state -> Bool in
                guard !state.stopped else { return true }
                let now = HTTPRequestHead.monotonicNanoseconds()
                for (key, entry) in state.connections where isOverdue(entry.phase, now: now) {
                    _ = shutdown(entry.fd, Int32(SHUT_RDWR))
                    Self.remove(key, from: &state)
                }
                return false
            }
            if stopped {
                finished.signal()
                return
            }
        }
    }

    private func isOverdue(_ phase: Phase, now: UInt64) -> Bool {
        switch phase {
        case .idle(let since):
            return now &- since > limits.idleTimeoutNanoseconds
        case .head(let since, let allowance):
            return now &- since > allowance
        case .body(let since, let received):
            let elapsed = now &- since
            guard elapsed > limits.headTimeoutNanoseconds else { return false }
            let owed = Double(limits.minBodyBytesPerSecond) * Double(elapsed - limits.headTimeoutNanoseconds) / 1e9
            return Double(received) < owed
        case .answering:
            return false
        }
    }
}

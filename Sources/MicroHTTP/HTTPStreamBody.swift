import CMicroHTTPD
import Synchronization

/// A response body made piece by piece while it is sent, its length unknown beforehand: a
/// large answer (a migration bundle) that is never whole in memory.
///
/// libmicrohttpd sends it (`MHD_create_response_from_callback` with `MHD_SIZE_UNKNOWN`) with
/// chunked transfer encoding to an HTTP/1.1 client, without `Content-Length`; to an HTTP/1.0
/// client, or with `Connection: close`, it sends the bytes as they are and closes the
/// connection after them. When the producer throws, the response ends with an error:
/// libmicrohttpd closes the connection at once, without the last chunk, so an HTTP/1.1 client
/// sees a body cut short, never one that looks complete (an HTTP/1.0 client cannot tell: what
/// is streamed must show its own end, as a migration bundle's FINAL message does).
///
/// The producer runs on the libmicrohttpd polling thread that serves the connection, each time
/// the previous piece is all handed over, and that thread serves no other connection
/// meanwhile: a piece should take milliseconds to make, not seconds (slow setup, say a key
/// derivation, belongs before the response is returned, on a worker). Pieces are sent as they
/// are: they should not hold anything the client may not see.
///
/// A live body (`init(blockSize:live:)`: server-sent events) may have nothing to send yet: its
/// producer says `wait`, the connection is suspended (no polling thread spins on it), and
/// `wake()` has the producer asked again. While suspended, libmicrohttpd notices neither a
/// client gone nor an idle timeout: a live producer sends something now and then (a comment
/// line) so that a dead connection shows itself. When the server stops, every live body ends
/// at its next read.
public final class HTTPStreamBody: Sendable {
    /// Gives the next piece (an empty one is skipped), `nil` at the end, or throws to cut the
    /// response short.
    public typealias Producer = @Sendable () throws -> [UInt8]?

    /// What a live body's producer gives next.
    public enum Next: Sendable {
        /// These bytes (empty: skipped).
        case piece([UInt8])
        /// Nothing yet: ask again after `wake()`.
        case wait
        /// The body is done.
        case end
    }

    /// A live body's producer: the next piece, `wait`, or `end`; or throws to cut the response.
    public typealias LiveProducer = @Sendable () throws -> Next

    /// Whether the producer may say `wait` (a live body).
    public let isLive: Bool

    /// The bytes libmicrohttpd is asked to take at a time (`block_size`; advisory, with chunked
    /// encoding it takes what its connection buffer has room for).
    public let blockSize: Int
    private let producer: LiveProducer
    private let state = Mutex(State())

    private struct State {
        /// The piece being handed over, from `offset`.
        var pending: [UInt8] = []
        var offset = 0
        var finished = false
        /// What the producer threw: thrown again by every later read.
        var failure: (any Error)?
        /// A live body's connection, from its queueing until libmicrohttpd frees the response.
        var connection: SuspendedConnection?
        /// Whether that connection is suspended, waiting for `wake()`.
        var suspended = false
        /// Set by `end()`: the next read ends the body.
        var ending = false
        /// Called once when the response is freed (the server's registry of live bodies).
        var onDetach: (@Sendable () -> Void)?
    }

    /// What `read(into:)` gave.
    enum Read: Equatable {
        /// This many bytes, at least one.
        case bytes(Int)
        /// The producer said the body is done.
        case end
        /// A live producer has nothing yet; its connection, if any, is suspended until `wake()`.
        case waiting
    }

    /// A body whose pieces `producer` gives, in order, once each.
    public init(blockSize: Int = 64 * 1024, producer: @escaping Producer) {
        precondition(blockSize > 0, "blockSize must be positive")
        self.blockSize = blockSize
        self.producer = { try producer().map(Next.piece) ?? .end }
        isLive = false
    }

    /// A live body: `producer` gives pieces, or `wait` until the application calls `wake()`.
    public init(blockSize: Int = 16 * 1024, live producer: @escaping LiveProducer) {
        precondition(blockSize > 0, "blockSize must be positive")
        self.blockSize = blockSize
        self.producer = producer
        isLive = true
    }

    /// Has a waiting live body's producer asked again, its connection resumed; a no-op when it
    /// is not waiting (the producer is asked anyway once the last piece is handed over). From
    /// any thread.
    public func wake() {
        state.withLock { state in
            guard state.suspended, let connection = state.connection else { return }
            state.suspended = false
            MHD_resume_connection(connection.pointer)
        }
    }

    /// Ends the body at its next read, and wakes it: the server is stopping.
    func end() {
        state.withLock { $0.ending = true }
        wake()
    }

    /// A live body queued on `connection`: `onDetach` runs when libmicrohttpd frees the response.
    func attach(_ connection: OpaquePointer, onDetach: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.connection = SuspendedConnection(pointer: connection)
            state.onDetach = onDetach
        }
    }

    /// libmicrohttpd freed the response: the connection is no longer this body's to resume.
    func detach() {
        let onDetach = state.withLock { state -> (@Sendable () -> Void)? in
            state.connection = nil
            state.suspended = false
            defer { state.onDetach = nil }
            return state.onDetach
        }
        onDetach?()
    }

    /// Copies the next bytes into `buffer` (not empty), asking the producer for a piece when the
    /// last one is all handed over; rethrows what the producer throws, then throws it again on
    /// every call. The transport's reader callback (`mhdStreamRead`) calls it.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Read {
        try state.withLock { state throws -> Read in
            while state.offset == state.pending.count {
                if let failure = state.failure { throw failure }
                if state.finished { return .end }
                do {
                    let next = state.ending ? .end : try producer()
                    switch next {
                    case .piece(let piece):
                        state.pending = piece
                        state.offset = 0
                    case .end:
                        state.finished = true
                        state.pending = []
                        state.offset = 0
                        return .end
                    case .wait:
                        // Suspended under the lock, so that a `wake()` racing this sees it.
                        if let connection = state.connection {
                            state.suspended = true
                            MHD_suspend_connection(connection.pointer)
                        }
                        return .waiting
                    }
                } catch {
                    state.failure = error
                    state.pending = []
                    state.offset = 0
                    throw error
                }
            }
            let count = min(buffer.count, state.pending.count - state.offset)
            let offset = state.offset
            state.pending.withUnsafeBytes { piece in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: piece[offset..<offset + count]))
            }
            state.offset += count
            return .bytes(count)
        }
    }

    /// The whole body, read as the transport reads it, for callers that answer without a socket
    /// (tests): the bytes until the end (or until a live producer waits), or until the producer
    /// threw, with what it threw (the bytes are then what a client got before its connection
    /// was cut).
    public func readAll() -> (bytes: [UInt8], failure: (any Error)?) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: blockSize)
        while true {
            do {
                guard case .bytes(let count) = try buffer.withUnsafeMutableBytes({ try read(into: $0) }) else {
                    return (bytes, nil)
                }
                bytes += buffer[..<count]
            } catch {
                return (bytes, error)
            }
        }
    }
}

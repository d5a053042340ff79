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
public final class HTTPStreamBody: Sendable {
    /// Gives the next piece (an empty one is skipped), `nil` at the end, or throws to cut the
    /// response short.
    public typealias Producer = @Sendable () throws -> [UInt8]?

    /// The bytes libmicrohttpd is asked to take at a time (`block_size`; advisory, with chunked
    /// encoding it takes what its connection buffer has room for).
    public let blockSize: Int
    private let producer: Producer
    private let state = Mutex(State())

    private struct State {
        /// The piece being handed over, from `offset`.
        var pending: [UInt8] = []
        var offset = 0
        var finished = false
        /// What the producer threw: thrown again by every later read.
        var failure: (any Error)?
    }

    /// What `read(into:)` gave.
    enum Read: Equatable {
        /// This many bytes, at least one.
        case bytes(Int)
        /// The producer said the body is done.
        case end
    }

    /// A body whose pieces `producer` gives, in order, once each.
    public init(blockSize: Int = 64 * 1024, producer: @escaping Producer) {
        precondition(blockSize > 0, "blockSize must be positive")
        self.blockSize = blockSize
        self.producer = producer
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
                    guard let piece = try producer() else {
                        state.finished = true
                        state.pending = []
                        state.offset = 0
                        return .end
                    }
                    state.pending = piece
                    state.offset = 0
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
    /// (tests): the bytes until the end, or until the producer threw, with what it threw (the
    /// bytes are then what a client got before its connection was cut).
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

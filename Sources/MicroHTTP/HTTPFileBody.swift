import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A response body in an open file, sent by libmicrohttpd from the file itself (`sendfile(2)`
/// on Linux), never held in memory: a backup of the whole database, say.
///
/// Owns its descriptor until the transport takes it (libmicrohttpd then closes it when the
/// response is done), and closes it in `deinit` if no one did (a response never sent).
public final class HTTPFileBody: Sendable {
    /// The bytes to send, from the file's start: the `Content-Length`.
    public let size: UInt64
    private let descriptor: Atomic<Int32>

    /// Takes ownership of `descriptor`, a regular file open for reading, of `size` bytes.
    public init(descriptor: Int32, size: UInt64) {
        self.descriptor = Atomic(descriptor)
        self.size = size
    }

    deinit {
        let fd = descriptor.exchange(-1, ordering: .relaxed)
        if fd >= 0 { close(fd) }
    }

    /// Hands the descriptor over to the caller, who closes it from now on; -1 when it was
    /// taken already (a response is sent once).
    func take() -> Int32 {
        descriptor.exchange(-1, ordering: .acquiringAndReleasing)
    }

    /// The whole content, read with `pread(2)` (the descriptor's offset is left alone): for
    /// callers that answer without a socket (tests). Empty once the transport took it.
    public func readAll() -> [UInt8] {
        let fd = descriptor.load(ordering: .acquiring)
        guard fd >= 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            offset += count
        }
        return Array(bytes[..<offset])
    }
}

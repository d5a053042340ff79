import CLinux
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A request body written to a file as it arrives rather than held in memory: a large upload
/// (a migration bundle) on a route whose body may exceed the server's limit
/// (`HTTPResponder.largeBodyLimit(for:)`), when `HTTPServerConfiguration.spoolDirectory` is set.
///
/// The file is made with `O_TMPFILE`: it has no name, so nothing is left behind by a crash, and
/// the descriptor, closed in `deinit`, is its only reference. The responder reads it mapped
/// (`withBytes`), as page cache the kernel may reclaim, not as heap.
public final class HTTPSpooledBody: Sendable {
    private let descriptor: Int32
    private let written = Atomic<Int>(0)

    /// An empty spool in `directory`; `nil` when the file system cannot make one (no `O_TMPFILE`,
    /// no room, no permission): the body is then held in memory.
    init?(directory: String) {
        let fd = kcd_open_unnamed_file(directory)
        guard fd >= 0 else { return nil }
        descriptor = fd
    }

    /// A spool of `bytes`, for callers that answer without a socket (tests).
    public convenience init?(directory: String, bytes: [UInt8]) {
        self.init(directory: directory)
        guard bytes.withUnsafeBytes({ append($0) }) else { return nil }
    }

    deinit { close(descriptor) }

    /// The bytes written so far.
    public var count: Int { written.load(ordering: .acquiring) }

    /// Writes `chunk` after what is there; `false` when the file cannot take it (a full disk).
    /// Called by one thread at a time: a connection's body arrives in order.
    func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        let end = count
        while offset < chunk.count {
            let n = pwrite(descriptor, chunk.baseAddress! + offset, chunk.count - offset, off_t(end + offset))
            if n > 0 {
                offset += n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        written.store(end + chunk.count, ordering: .releasing)
        return true
    }

    /// Runs `body` with the whole body mapped read-only; `nil` (without running it) when it
    /// cannot be mapped.
    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R? {
        let length = count
        guard length > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        guard let address = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else { return nil }
        defer { munmap(address, length) }
        return try body(UnsafeRawBufferPointer(start: address, count: length))
    }
}

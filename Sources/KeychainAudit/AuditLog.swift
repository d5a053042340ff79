import Foundation
import KeychainJSON
import KeychainLog
import SleepingLock
import Synchronization

/// The audit log: one sealed line per record (`AuditChain`), appended to a file or written to
/// standard output through the same batching writer as the access log (`LogWriter`).
///
/// - Order: a record is sealed and appended under one lock, so lines reach the log in chain order.
/// - Fail closed: a request that returns a secret has its line written first, and learns
///   whether the write succeeded; it then answers 503 rather than a secret whose audit line is
///   lost. `record(_:mustBeWritten:)` writes at once; `append(_:)` and `written(_:)` let the
///   lines of several requests share one `write` (the polling thread answers each on its next
///   pass, `HTTPResponse.held`). Other lines are written in batches, a second at most after they
///   were appended.
/// - Durability: lines are written (`write(2)`), not synced: a crash of the process loses none
///   that an answer waited for, a power loss may lose the last second's.
/// - A file is opened `O_APPEND|O_CREAT|O_NOFOLLOW`, mode 0600, and its chain continues from its
///   last line; `reopen()` (on SIGHUP, after logrotate moved the file) opens the path again and
///   the new file's first line continues the old file's chain.
public final class AuditLog: Sendable {
    public enum Destination: Sendable, Equatable {
        case file(String)
        case standardOutput
    }

    private let destination: Destination
    private let chain: Mutex<AuditChain>
    private let sink: Sink
    private let writer: LogWriter
    /// Lines appended so far; the n-th line appended is the n-th `Ticket`.
    private let appended = Atomic<UInt64>(0)
    /// Every line up to this one has been handed to a `write` by `written(_:)`.
    private let covered = SleepingLock<UInt64>(0)

    /// A line appended but perhaps not yet written (`append(_:)`), for `written(_:)`.
    public struct Ticket: Sendable {
        let line: UInt64
        /// The sink's failed writes when the line was appended: one more since means it may be lost.
        let failuresBefore: UInt64
    }

    public init(destination: Destination, keys: AuditKeys) throws(AuditLogError) {
        self.destination = destination
        let (fd, last) = try Self.open(destination)
        sink = Sink(fd: fd)
        chain = Mutex(AuditChain(keys: keys, continuing: last))
        let sink = sink
        writer = LogWriter { chunk in sink.write(chunk) }
    }

    /// Seals `record` and appends its line. With `mustBeWritten`, writes it (and every line
    /// before it) before returning: `false` when that write failed.
    @discardableResult
    public func record(_ record: AuditRecord, mustBeWritten: Bool = false) -> Bool {
        let ticket = append(record)
        return !mustBeWritten || written(ticket)
    }

    /// Seals `record` and appends its line, written with the next batch or `written(_:)`.
    public func append(_ record: AuditRecord) -> Ticket {
        // Read before the line can reach a write: a failure writing it is then one more.
        let failuresBefore = sink.failures
        return chain.withLock { chain in
            writer.append { _, buffer in chain.append(record, to: &buffer) }
            return Ticket(line: appended.add(1, ordering: .releasing).newValue, failuresBefore: failuresBefore)
        }
    }

    /// Whether `ticket`'s line is written: writes what is buffered first unless a call before
    /// did past the line (so the lines of requests waiting together take one `write`), and says
    /// `false` when any write failed since the line was appended, which may have been its own
    /// (fail closed: a doubt refuses the secret).
    public func written(_ ticket: Ticket) -> Bool {
        covered.withLock { covered in
            guard covered < ticket.line else { return }
            let through = appended.load(ordering: .acquiring)
            // Every line appended before this call is written when `flush` returns.
            writer.flush()
            covered = through
        }
        return sink.failures == ticket.failuresBefore
    }

    /// Whether the last write failed (a full disk, a file size limit, a closed pipe).
    public var isFailing: Bool { sink.isFailing }

    /// Opens the file again (logrotate moved it away); standard output stays as it is.
    public func reopen() throws(AuditLogError) {
        guard case .file = destination else { return }
        writer.flush()
        let (fd, _) = try Self.open(destination)
        sink.replace(fd)
    }

    /// Writes what is buffered and closes the file.
    public func close() {
        writer.stop()
        sink.replace(-1)
    }

    /// The descriptor, and the `mac` of the file's last complete line when there is one.
    private static func open(_ destination: Destination) throws(AuditLogError) -> (Int32, String?) {
        guard case .file(let path) = destination else { return (dup(1), nil) }
        let fd = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AuditLogError("audit log \(path) cannot be opened: \(String(cString: strerror(errno)))") }
        let (mac, cut) = tail(path)
        // A line cut by a crash is ended, so the next line starts on a line of its own (and the
        // verifier names the cut one).
        if cut { _ = Foundation.write(fd, [0x0A], 1) }
        return (fd, mac)
    }

    /// The `mac` of the last complete line of the file at `path`, and whether its last line
    /// lacks its newline. Read from the file's end, in a window that doubles from 64 KiB until
    /// it holds that line whole (a line of many refs can be longer): linear in the line's size.
    static func tail(_ path: String) -> (mac: String?, cut: Bool) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return (nil, false) }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0 else { return (nil, false) }
        var window: UInt64 = 65_536
        while true {
            let start = size > window ? size - window : 0
            try? handle.seek(toOffset: start)
            guard let bytes = try? handle.readToEnd(), !bytes.isEmpty else { return (nil, false) }
            let cut = bytes.last != 0x0A
            var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
            // Past a cut line, the chain goes on from the complete one before it; a window that
            // starts inside the file may start inside a line.
            if cut { lines.removeLast() }
            if start > 0, !lines.isEmpty { lines.removeFirst() }
            guard let complete = lines.last else {
                if start == 0 { return (nil, cut) }
                window *= 2
                continue
            }
            // Its `mac` is its last key; a key before may repeat (a request's repeated parameter).
            guard let last = (try? JSON.parse(Array(complete), allowingDuplicateKeys: true))?.objectValue?.entries.last,
                last.key == "mac", case .string(let mac) = last.value
            else { return (nil, cut) }
            return (mac, cut)
        }
    }

    /// The file descriptor lines go to, and whether the last write reached it.
    private final class Sink: Sendable {
        private let fd: Mutex<Int32>
        private let failing = Atomic<Bool>(false)
        private let failureCount = Atomic<UInt64>(0)

        init(fd: Int32) {
            self.fd = Mutex(fd)
        }

        var isFailing: Bool { failing.load(ordering: .acquiring) }
        /// Writes that failed so far.
        var failures: UInt64 { failureCount.load(ordering: .acquiring) }

        func write(_ chunk: [UInt8]) {
            let written = fd.withLock { fd in
                chunk.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let n = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                        if n > 0 {
                            offset += n
                        } else if n < 0, errno == EINTR {
                            continue
                        } else {
                            return false
                        }
                    }
                    return true
                }
            }
            if !written { failureCount.add(1, ordering: .releasing) }
            failing.store(!written, ordering: .releasing)
        }

        func replace(_ new: Int32) {
            fd.withLock { fd in
                if fd >= 0 { Foundation.close(fd) }
                fd = new
            }
        }
    }
}

/// Why the audit log cannot be opened.
public struct AuditLogError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

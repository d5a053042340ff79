import Foundation
import KeychainJSON
import KeychainLog
import SleepingLock
import Synchronization

/// The audit log: one sealed line per record (`AuditChain`), appended to a file or written to
/// standard output through the same batching writer as the access log (`LogWriter`).
///
/// - Order: a record is sealed and appended under one lock, so lines reach the log in chain order.
/// - Fail closed: a request that returns a secret or makes a change has its line written first,
///   and learns whether the write succeeded; it then answers 503 rather than a secret, or a
///   change's success, whose audit line is lost. `record(_:mustBeWritten:)` writes at once;
///   `append(_:)` and `written(_:)` let the lines of several requests share one `write` (the
///   polling thread answers each on its next pass, `HTTPResponse.held`). Other lines are written
///   in batches, a second at most after they were appended (while writes fail, with the next
///   write tried). `canWrite()` tells a change, before it is made, whether the log is failing.
/// - A write that fails part-way (a full disk) leaves no torn line: the bytes it got out are cut
///   off the file, or, where they cannot be (standard output), the next write ends their line
///   first. The lines it held are lost, and the next line's `prev` shows the gap.
/// - Durability: lines are written (`write(2)`), not synced: a crash of the process loses none
///   that an answer waited for, a power loss may lose the last second's.
/// - A file is opened `O_APPEND|O_CREAT|O_NOFOLLOW`, mode 0600, and its chain continues from its
///   last audit line (`openWarning` names lines after it that are not); `reopen()` (on SIGHUP,
///   after logrotate moved the file) opens the path again and the new file's first line
///   continues the old file's chain.
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

    /// What the server should log about the file it opened: its last lines were cut short or
    /// are not audit lines, and the chain continues from the audit line before them.
    public let openWarning: String?

    /// `write(2)`, or a test's stand-in for it (one that fails part-way, as a full disk does).
    typealias WriteFunction = @Sendable (_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int

    public convenience init(destination: Destination, keys: AuditKeys) throws(AuditLogError) {
        try self.init(destination: destination, keys: keys) { fd, bytes, count in Foundation.write(fd, bytes, count) }
    }

    init(destination: Destination, keys: AuditKeys, write: @escaping WriteFunction) throws(AuditLogError) {
        self.destination = destination
        let opened = try Self.open(destination)
        // Only a file opened `O_APPEND` by this process is known to end with this write's bytes.
        sink = Sink(fd: opened.fd, write: write, canCut: destination != .standardOutput)
        chain = Mutex(AuditChain(keys: keys, continuing: opened.last))
        openWarning = opened.warning
        let sink = sink
        // While writes fail, lines wait for the next that is tried (`canWrite()`, `written(_:)`)
        // rather than being lost to a background one.
        writer = LogWriter(holdWhile: { sink.isFailing }, output: { chunk in sink.write(chunk) })
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

    /// Whether a line can be written, asked before a change is made: `true` unless the last
    /// write failed and writing the lines buffered since fails too, or there are none to try
    /// with (the next line, the refused change's own, is then tried by the next call).
    public func canWrite() -> Bool {
        guard sink.isFailing else { return true }
        writer.flush()
        return !sink.isFailing
    }

    /// Opens the file again (logrotate moved it away); standard output stays as it is.
    public func reopen() throws(AuditLogError) {
        guard case .file = destination else { return }
        writer.flush()
        sink.replace(try Self.open(destination).fd)
    }

    /// Writes what is buffered and closes the file.
    public func close() {
        writer.stop()
        sink.replace(-1)
    }

    /// The descriptor, the `mac` of the file's last audit line when there is one, and what the
    /// server should be told about the lines after it.
    private static func open(_ destination: Destination) throws(AuditLogError) -> (fd: Int32, last: String?, warning: String?) {
        guard case .file(let path) = destination else { return (dup(1), nil, nil) }
        let fd = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AuditLogError("audit log \(path) cannot be opened: \(String(cString: strerror(errno)))") }
        let end = tail(path)
        // A line cut by a crash is ended, so the next line starts on a line of its own (and the
        // verifier names the cut one).
        if end.cut { _ = Foundation.write(fd, [0x0A], 1) }
        guard end.cut || end.notAuditLines > 0 else { return (fd, end.mac, nil) }
        let after = end.mac == nil ? "a new chain starts" : "the chain continues from the last audit line before"
        let lines = end.notAuditLines + (end.cut ? 1 : 0)
        let warning =
            "audit log \(path): its last \(lines == 1 ? "line is" : "\(lines) lines are") not an audit line "
            + "(cut short by a crash or a failed write, or edited); \(after), and `keychaind audit verify` names the first"
        return (fd, end.mac, warning)
    }

    /// The end of an audit log's file: the `mac` of its last audit line, whether its last line
    /// lacks its newline, and how many whole lines after that audit line are not audit lines.
    struct Tail: Equatable {
        var mac: String?
        var cut: Bool
        var notAuditLines: Int
    }

    /// The end of the file at `path`. Read from the file's end, in a window that doubles from
    /// 64 KiB until it holds its last audit line whole (a line of many refs can be longer):
    /// linear in the size of what follows that line's start.
    static func tail(_ path: String) -> Tail {
        guard let handle = FileHandle(forReadingAtPath: path) else { return Tail(mac: nil, cut: false, notAuditLines: 0) }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0 else { return Tail(mac: nil, cut: false, notAuditLines: 0) }
        var window: UInt64 = 65_536
        while true {
            let start = size > window ? size - window : 0
            try? handle.seek(toOffset: start)
            guard let bytes = try? handle.readToEnd(), !bytes.isEmpty else { return Tail(mac: nil, cut: false, notAuditLines: 0) }
            let cut = bytes.last != 0x0A
            var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
            // Past a cut line, the chain goes on from a complete one before it; a window that
            // starts inside the file may start inside a line.
            if cut { lines.removeLast() }
            if start > 0, !lines.isEmpty { lines.removeFirst() }
            for (skipped, line) in lines.reversed().enumerated() {
                if let mac = auditMAC(line) { return Tail(mac: mac, cut: cut, notAuditLines: skipped) }
            }
            if start == 0 { return Tail(mac: nil, cut: cut, notAuditLines: lines.count) }
            window *= 2
        }
    }

    /// The `mac` of `line` when it is an audit line: JSON whose last key is `mac` (a key before
    /// may repeat: a request's repeated parameter).
    private static func auditMAC(_ line: Data.SubSequence) -> String? {
        guard let last = (try? JSON.parse(Array(line), allowingDuplicateKeys: true))?.objectValue?.entries.last,
            last.key == "mac", case .string(let mac) = last.value
        else { return nil }
        return mac
    }

    /// The file descriptor lines go to, and whether the last write reached it.
    private final class Sink: Sendable {
        private struct Output {
            var fd: Int32
            /// A write failed part-way and its bytes could not be cut off: the next one ends their line.
            var torn = false
        }

        private let output: Mutex<Output>
        private let writeBytes: WriteFunction
        private let canCut: Bool
        private let failing = Atomic<Bool>(false)
        private let failureCount = Atomic<UInt64>(0)

        init(fd: Int32, write: @escaping WriteFunction, canCut: Bool) {
            output = Mutex(Output(fd: fd))
            writeBytes = write
            self.canCut = canCut
        }

        var isFailing: Bool { failing.load(ordering: .acquiring) }
        /// Writes that failed so far.
        var failures: UInt64 { failureCount.load(ordering: .acquiring) }

        func write(_ chunk: [UInt8]) {
            let written = output.withLock { output in
                if output.torn {
                    guard writeAll([0x0A], to: output.fd) == 1 else { return false }
                    output.torn = false
                }
                let sent = writeAll(chunk, to: output.fd)
                guard sent < chunk.count else { return true }
                if sent > 0, !cutOff(sent, from: output.fd) { output.torn = true }
                return false
            }
            if !written { failureCount.add(1, ordering: .releasing) }
            failing.store(!written, ordering: .releasing)
        }

        /// The bytes of `bytes` written before a write failed; all of them when none did.
        private func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int {
            LogWriter.writeFully(bytes) { writeBytes(fd, $0, $1) }
        }

        /// Cuts the last `count` bytes off the file: with `O_APPEND` they are its end, so the file
        /// ends with its last whole line again. `false` for what cannot be cut (a pipe, a terminal,
        /// an append-only file).
        private func cutOff(_ count: Int, from fd: Int32) -> Bool {
            var status = stat()
            guard canCut, fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size >= off_t(count) else {
                return false
            }
            return ftruncate(fd, status.st_size - off_t(count)) == 0
        }

        func replace(_ new: Int32) {
            output.withLock { output in
                if output.fd >= 0 { Foundation.close(output.fd) }
                output = Output(fd: new)
            }
        }
    }
}

/// Why the audit log cannot be opened.
public struct AuditLogError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

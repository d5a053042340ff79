import Dispatch
import Foundation
import SleepingLock

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Log lines written in batches by a thread of their own, as nginx's `access_log … buffer=`:
/// callers append whole lines to a buffer, and the writer hands it to the file descriptor in one
/// `write` when it holds `flushThreshold` bytes, a second after its first unwritten line, at
/// once for an urgent line (a warning), and on `flush()` (SIGHUP, exit).
///
/// - Lines are never interleaved: each is appended whole, under one lock, and chunks are
///   written in the order they were taken.
/// - Memory is bounded: a caller whose line fills the buffer to `capacity` bytes writes them
///   itself (the back-pressure of a slow disk or a full pipe reaches the callers, and no line is
///   dropped).
/// - A timestamp is formatted once a second (UTC, so no time-zone file is read per line).
public final class LogWriter: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        /// An empty buffer with the capacity of the last chunk written, which the next flush
        /// takes in place of `buffer`: a flush per line (the audit log's lines that carry a
        /// secret) allocates nothing.
        var spare: [UInt8] = []
        /// When the oldest unwritten line was appended (monotonic nanoseconds); 0 when none.
        var oldest: UInt64 = 0
        var stopped = false
        var second = -1
        var timestamp: [UInt8] = []
    }

    /// Where chunks go: a file descriptor, or a test's recorder.
    public typealias Output = @Sendable ([UInt8]) -> Void

    private let state = SleepingLock(State())
    /// Held while a chunk is taken and written: chunks reach the output in the order taken.
    private let writing = SleepingLock(())
    private let wake = DispatchSemaphore(value: 0)
    private let stoppedSignal = DispatchSemaphore(value: 0)
    private let output: Output
    private let flushThreshold: Int
    private let capacity: Int
    private let interval: Duration
    private let hold: (@Sendable () -> Bool)?

    /// The process's standard error, where keychaind logs; flushed when the process exits.
    public static let standardError: LogWriter = {
        let writer = LogWriter(fileDescriptor: 2)
        atexit { LogWriter.standardError.flush() }
        return writer
    }()

    public convenience init(fileDescriptor: Int32) {
        self.init { chunk in Self.writeAll(chunk, to: fileDescriptor) }
    }

    /// - Parameters:
    ///   - flushThreshold: buffered bytes that wake the writer.
    ///   - capacity: buffered bytes past which a caller writes them itself.
    ///   - interval: the longest a line waits to be written.
    ///   - hold: while it says so (an output whose last write failed), the writer thread leaves
    ///     lines buffered for the next `flush()`, or a caller's write at `capacity`.
    public init(
        flushThreshold: Int = 64 << 10, capacity: Int = 256 << 10, interval: Duration = .seconds(1),
        holdWhile hold: (@Sendable () -> Bool)? = nil, output: @escaping Output
    ) {
        self.output = output
        self.hold = hold
        self.flushThreshold = flushThreshold
        self.capacity = max(capacity, flushThreshold)
        self.interval = interval
        let thread = Thread { [self] in run() }
        thread.name = "log-writer"
        thread.start()
    }

    /// Appends one line: `line` writes its bytes after the timestamp it is handed (`2026-11-24T06:50:37+0000`),
    /// and a newline follows. `urgent` lines are written at once (by the writer thread).
    public func append(urgent: Bool = false, _ line: (_ timestamp: [UInt8], _ into: inout [UInt8]) -> Void) {
        enum Next { case none, wakeWriter, writeNow }
        let next = state.withLock { state -> Next in
            let now = Self.realtimeSecond()
            if now != state.second {
                state.second = now
                state.timestamp = Self.format(now)
            }
            let before = state.buffer.count
            line(state.timestamp, &state.buffer)
            state.buffer.append(0x0A)
            if state.oldest == 0 { state.oldest = Self.monotonicNanoseconds() }
            if state.buffer.count >= capacity { return .writeNow }
            return urgent || (before < flushThreshold && state.buffer.count >= flushThreshold) ? .wakeWriter : .none
        }
        switch next {
        case .none: break
        case .wakeWriter: wake.signal()
        case .writeNow: flushNow()
        }
    }

    /// Writes everything appended so far before returning.
    public func flush() { flushNow() }

    /// Writes what is buffered and stops the writer thread; later lines are written by their callers.
    public func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        wake.signal()
        stoppedSignal.wait()
        flushNow()
    }

    private func flushNow() {
        writing.withLock { _ in
            var chunk = state.withLock { state -> [UInt8] in
                state.oldest = 0
                guard !state.buffer.isEmpty else { return [] }
                var taken: [UInt8] = []
                swap(&taken, &state.spare)
                swap(&taken, &state.buffer)
                return taken
            }
            guard !chunk.isEmpty else { return }
            output(chunk)
            // Emptied and kept for the next flush (`writing` is held: no other flush took the
            // spare meanwhile), unless it grew past what the buffer holds before it is written.
            guard chunk.capacity <= capacity + flushThreshold else { return }
            chunk.removeAll(keepingCapacity: true)
            state.withLock { $0.spare = chunk }
        }
    }

    private func run() {
        let intervalNanoseconds =
            UInt64(interval.components.seconds) * 1_000_000_000
            + UInt64(interval.components.attoseconds / 1_000_000_000)
        while true {
            let (stopped, oldest) = state.withLock { ($0.stopped, $0.oldest) }
            if stopped {
                stoppedSignal.signal()
                return
            }
            let now = Self.monotonicNanoseconds()
            let held = hold?() == true
            if oldest != 0, !held, now &- oldest >= intervalNanoseconds || state.withLock({ $0.buffer.count >= flushThreshold }) {
                flushNow()
                continue
            }
            // Until the oldest line is due, or a second when there is none or they are held; an
            // urgent line or a full threshold wakes it earlier.
            let wait = oldest == 0 || held ? intervalNanoseconds : intervalNanoseconds - (now &- oldest)
            if wake.wait(timeout: .now() + .nanoseconds(Int(min(wait, intervalNanoseconds)))) == .success, hold?() != true {
                flushNow()
            }
        }
    }

    private static func writeAll(_ chunk: [UInt8], to fileDescriptor: Int32) {
        // A closed or failing log: the lines are lost, never the request.
        _ = writeFully(chunk) { write(fileDescriptor, $0, $1) }
    }

    /// Writes all of `bytes` with `write` (a `write(2)` of a pointer and a count), again after a
    /// short write or `EINTR`: the bytes written before a write failed, all of them when none did.
    public static func writeFully(_ bytes: [UInt8], with write: (UnsafeRawPointer, Int) -> Int) -> Int {
        bytes.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            return offset
        }
    }

    /// `CLOCK_MONOTONIC`, as `DispatchTime.now().uptimeNanoseconds` reads it on Linux, without
    /// libdispatch's code on the path of the first line of every batch.
    private static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    private static func realtimeSecond() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        return now.tv_sec
    }

    /// `YYYY-MM-DDTHH:MM:SS+0000`.
    static func format(_ second: Int) -> [UInt8] {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        var text: [UInt8] = []
        text.reserveCapacity(24)
        func put(_ value: Int32, _ digits: Int) {
            var divisor: Int32 = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                text.append(UInt8(48 + (rest / divisor) % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        put(parts.tm_year + 1900, 4)
        text.append(UInt8(ascii: "-"))
        put(parts.tm_mon + 1, 2)
        text.append(UInt8(ascii: "-"))
        put(parts.tm_mday, 2)
        text.append(UInt8(ascii: "T"))
        put(parts.tm_hour, 2)
        text.append(UInt8(ascii: ":"))
        put(parts.tm_min, 2)
        text.append(UInt8(ascii: ":"))
        put(parts.tm_sec, 2)
        text.append(contentsOf: "+0000".utf8)
        return text
    }
}

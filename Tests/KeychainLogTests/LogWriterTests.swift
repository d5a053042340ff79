import Dispatch
import Logging
import Synchronization
import Testing

@testable import KeychainLog

/// What the writer hands its output, chunk by chunk.
final class Recorder: Sendable {
    private let chunks = Mutex<[[UInt8]]>([])
    let wrote = DispatchSemaphore(value: 0)

    var all: [[UInt8]] { chunks.withLock { $0 } }
    var lines: [String] { String(decoding: all.joined(), as: UTF8.self).split(separator: "\n").map(String.init) }

    func output(_ chunk: [UInt8]) {
        chunks.withLock { $0.append(chunk) }
        wrote.signal()
    }
}

@Suite struct LogWriterTests {
    /// Lines from many threads at once arrive whole, each thread's in its own order.
    @Test func linesFromManyThreadsAreWholeAndInOrder() {
        let recorder = Recorder()
        let writer = LogWriter(flushThreshold: 2048, capacity: 8192, output: recorder.output)
        defer { writer.stop() }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for n in 0..<500 {
                writer.append { _, line in
                    line.append(contentsOf: "t\(thread) n\(n) \(String(repeating: "x", count: 40 + n % 7))".utf8)
                }
            }
        }
        writer.flush()
        var next = [Int](repeating: 0, count: 8)
        for line in recorder.lines {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let t = Int(fields[0].dropFirst()), let n = Int(fields[1].dropFirst()),
                fields[2] == String(repeating: "x", count: 40 + n % 7)
            else {
                Issue.record("a broken line: \(line)")
                return
            }
            #expect(n == next[t], "thread \(t)")
            next[t] = n + 1
        }
        #expect(next == [Int](repeating: 500, count: 8))
    }

    /// A thousand lines below the threshold are one write, not a thousand.
    @Test func linesAreWrittenInOneBatch() {
        let recorder = Recorder()
        let writer = LogWriter(interval: .seconds(600), output: recorder.output)
        defer { writer.stop() }
        for n in 0..<1000 { writer.append { _, line in line.append(contentsOf: "line \(n)".utf8) } }
        #expect(recorder.all.isEmpty)
        writer.flush()
        #expect(recorder.all.count == 1)
        #expect(recorder.lines.count == 1000)
    }

    /// A caller that finds the buffer at its capacity writes it itself: no chunk is larger than
    /// the capacity and one line, and nothing is lost.
    @Test func theBufferIsBounded() {
        let recorder = Recorder()
        let writer = LogWriter(flushThreshold: 1024, capacity: 4096, interval: .seconds(600), output: recorder.output)
        defer { writer.stop() }
        let line = String(repeating: "y", count: 99)
        for _ in 0..<300 { writer.append { _, into in into.append(contentsOf: line.utf8) } }
        writer.flush()
        #expect(recorder.all.allSatisfy { $0.count <= 4096 + 100 })
        #expect(recorder.all.count >= 300 * 100 / (4096 + 100))
        #expect(recorder.lines.count == 300)
    }

    /// An urgent line is written without a flush, and so is an ordinary one once the interval passes.
    @Test(arguments: [true, false])
    func aLineIsWrittenWithoutAFlush(urgent: Bool) {
        let recorder = Recorder()
        let writer = LogWriter(interval: urgent ? .seconds(600) : .milliseconds(50), output: recorder.output)
        defer { writer.stop() }
        writer.append(urgent: urgent) { _, line in line.append(contentsOf: "hello".utf8) }
        #expect(recorder.wrote.wait(timeout: .now() + 10) == .success)
        #expect(recorder.lines.count == 1 && recorder.lines[0] == "hello")
    }

    /// stop() writes what is buffered; a line after it is written by its caller.
    @Test func stopWritesEverything() {
        let recorder = Recorder()
        let writer = LogWriter(interval: .seconds(600), output: recorder.output)
        writer.append { _, line in line.append(contentsOf: "before".utf8) }
        writer.stop()
        #expect(recorder.lines == ["before"])
        writer.append { _, line in line.append(contentsOf: "after".utf8) }
        writer.flush()
        #expect(recorder.lines == ["before", "after"])
    }

    @Test func timestampsAreUTC() {
        #expect(String(decoding: LogWriter.format(0), as: UTF8.self) == "1970-01-01T00:00:00+0000")
        #expect(String(decoding: LogWriter.format(1_795_999_999), as: UTF8.self) == "2026-11-30T00:53:19+0000")
    }

    /// The handler writes swift-log's stream format, metadata sorted, and never a line per call.
    @Test func theHandlerWritesTheStreamFormat() throws {
        let recorder = Recorder()
        let writer = LogWriter(interval: .seconds(600), output: recorder.output)
        defer { writer.stop() }
        var logger = Logger(label: "keychaind") { BufferedLogHandler(label: $0, writer: writer) }
        logger[metadataKey: "replica"] = "r1"
        logger.info("request http.status=200", metadata: ["b": "2", "a": "1"])
        logger.debug("not at info")
        writer.flush()
        let line = try #require(recorder.lines.first)
        #expect(recorder.lines.count == 1)
        #expect(
            line.wholeMatch(
                of:
                    /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000 info keychaind : a=1 b=2 replica=r1 \[KeychainLogTests\] request http.status=200/
            ) != nil, "\(line)")
    }

    /// A line appended as bytes reads as the handler's line of the same message, with no metadata.
    @Test func aLineAppendedAsBytesIsTheHandlersLine() throws {
        let recorder = Recorder()
        let writer = LogWriter(interval: .seconds(600), output: recorder.output)
        defer { writer.stop() }
        let logger = Logger(label: "keychaind") { BufferedLogHandler(label: $0, writer: writer) }
        logger.info("request http.status=200")
        writer.append(level: .info, label: "keychaind", source: "KeychainLogTests") { line in
            line.append(contentsOf: "request http.status=".utf8)
            line.appendDecimal(200)
        }
        writer.flush()
        #expect(recorder.lines.count == 2)
        let (viaHandler, asBytes) = (recorder.lines[0], recorder.lines[1])
        #expect(viaHandler.dropFirst(24) == asBytes.dropFirst(24), "the same after the timestamp")
        #expect(
            asBytes.wholeMatch(
                of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000 info keychaind : \[KeychainLogTests\] request http.status=200/) != nil)
    }

    @Test(arguments: [
        (0, "0"), (7, "7"), (10, "10"), (99, "99"), (1_234_567_890, "1234567890"), (-5, "-5"), (Int.max, "9223372036854775807"),
        (Int.min, "-9223372036854775808"),
    ])
    func decimalsAreWrittenWithoutAString(value: Int, text: String) {
        var bytes: [UInt8] = []
        bytes.appendDecimal(value)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
        var big: [UInt8] = []
        big.appendDecimal(UInt64.max)
        #expect(String(decoding: big, as: UTF8.self) == "18446744073709551615")
    }
}

import Foundation
import KeychainCrypto
import KeychainJSON
import TestSupport
import Testing

@testable import KeychainAudit

/// The audit log's file: lines in chain order, the chain continued across restarts and
/// rotations, and a failed write reported to the request that waits for it.
@Suite struct AuditLogTests {
    let keys: AuditKeys
    let directory: String

    init() throws {
        keys = try AuditKeys(instanceKey: SecureBytes.random(count: 32))
        directory = NSTemporaryDirectory() + "kcd-audit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func record(_ n: Int) -> AuditRecord {
        AuditRecord(
            time: Int64(n), requestID: AuditRequestID(prefix: 0xa, count: UInt64(n)), client: "127.0.0.1", route: "/v1/items",
            operation: "search",
            query: [.init("service", "s\(n)")], status: 0, httpStatus: 200)
    }

    func read(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path) ?? Data()) }

    /// A restart on the log at `path`: opened again, one more line recorded, closed; then the
    /// verifier's report of the whole file.
    func restartAndVerify(_ path: String, recording next: Int) throws -> AuditVerifier.Report {
        let restarted = try AuditLog(destination: .file(path), keys: keys)
        restarted.record(record(next))
        restarted.close()
        return AuditVerifier.verify(read(path), keys: keys)
    }

    @Test func linesAreWrittenInChainOrderAndTheChainGoesOnAfterARestart() throws {
        let path = directory + "/audit.log"
        let first = try AuditLog(destination: .file(path), keys: keys)
        DispatchQueue.concurrentPerform(iterations: 40) { n in first.record(record(n)) }
        #expect(first.record(record(40), mustBeWritten: true))
        first.close()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let report = try restartAndVerify(path, recording: 41)
        #expect(report.problem == nil)
        #expect(report.lines == 42)
        #expect(report.restarts.isEmpty, "a reopened file continues its chain")
    }

    /// A restart after a line that repeats a parameter continues the chain from that line.
    @Test func theChainGoesOnAfterALineWithARepeatedParameter() throws {
        let path = directory + "/audit.log"
        let first = try AuditLog(destination: .file(path), keys: keys)
        var repeated = record(1)
        repeated.query = [.init("service", "a"), .init("service", "b")]
        #expect(first.record(repeated, mustBeWritten: true))
        first.close()
        let report = try restartAndVerify(path, recording: 2)
        #expect(report.problem == nil)
        #expect(report.lines == 2)
        #expect(report.restarts.isEmpty, "the reopened file continues its chain")
    }

    /// A last line longer than the 64 KiB first read (an answer that touched thousands of items),
    /// whole or followed by a line cut by a crash: a restart still continues the chain from it.
    @Test(arguments: [false, true])
    func theChainGoesOnAfterALineLongerThanTheFirstRead(thenCut: Bool) throws {
        let path = directory + "/audit.log"
        let first = try AuditLog(destination: .file(path), keys: keys)
        first.record(record(0))
        var long = record(1)
        long.refs = (0..<6_000).map { [UInt8](repeating: UInt8(truncatingIfNeeded: $0), count: 16) }
        #expect(first.record(long, mustBeWritten: true))
        first.close()
        #expect(read(path).count > 2 * 65_536, "longer than two doublings of the first read")
        if thenCut {
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(#"{"time":1,"req"#.utf8))
            try handle.close()
        }
        let report = try restartAndVerify(path, recording: 2)
        #expect(report.restarts.isEmpty, "the reopened file continues its chain")
        if thenCut {
            #expect(report.problem?.line == 3)
            #expect(report.problem?.reason.hasPrefix("not an audit line") == true)
        } else {
            #expect(report.problem == nil)
            #expect(report.lines == 3)
        }
    }

    /// After logrotate moves the file, SIGHUP's reopen starts a new file that continues the chain.
    @Test func aRotatedLogContinuesTheChainInItsNewFile() throws {
        let path = directory + "/audit.log"
        let log = try AuditLog(destination: .file(path), keys: keys)
        for n in 0..<3 { log.record(record(n)) }
        log.record(record(3), mustBeWritten: true)
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try log.reopen()
        for n in 4..<6 { log.record(record(n)) }
        log.close()
        #expect(AuditVerifier.verify(read(path), keys: keys).continuesEarlierLog)
        let both = AuditVerifier.verify(read(path + ".1") + read(path), keys: keys)
        #expect(both.problem == nil)
        #expect(both.lines == 6)
    }

    /// A line cut by a crash is ended, named by the verifier, and the chain goes on past it.
    @Test func aLineCutByACrashIsNamedAndTheChainGoesOn() throws {
        let path = directory + "/audit.log"
        let log = try AuditLog(destination: .file(path), keys: keys)
        log.record(record(0), mustBeWritten: true)
        log.close()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"time":1,"req"#.utf8))
        try handle.close()
        let again = try AuditLog(destination: .file(path), keys: keys)
        again.record(record(1), mustBeWritten: true)
        again.close()
        let report = AuditVerifier.verify(read(path), keys: keys)
        #expect(report.problem?.line == 2)
        #expect(report.problem?.reason.hasPrefix("not an audit line") == true)
    }

    /// A write that fails (here /dev/full: no space left) is reported to the record that waits.
    @Test func aFailedWriteIsReportedToTheRecordThatWaitsForIt() throws {
        let log = try AuditLog(destination: .file("/dev/full"), keys: keys)
        defer { log.close() }
        #expect(log.record(record(0), mustBeWritten: false), "a line that need not wait is only appended")
        #expect(!log.record(record(1), mustBeWritten: true))
        #expect(log.isFailing)
    }

    /// Lines appended for answers that wait are written by the first of them to ask, together,
    /// and each is then known written.
    @Test func oneWriteCoversTheLinesAppendedBeforeIt() throws {
        let path = directory + "/audit.log"
        let log = try AuditLog(destination: .file(path), keys: keys)
        defer { log.close() }
        let first = log.append(record(0))
        let second = log.append(record(1))
        #expect(log.written(second))
        #expect(read(path).split(separator: 0x0A).count == 2, "the line before it is written too")
        #expect(log.written(first))
        #expect(AuditVerifier.verify(read(path), keys: keys).problem == nil)
    }

    /// A line is not known written when a write failed after it was appended: here every
    /// write fails (/dev/full), so both the line that asks first and the one whose line went
    /// with it are refused.
    @Test func aLineAppendedBeforeAFailedWriteIsNotWritten() throws {
        let log = try AuditLog(destination: .file("/dev/full"), keys: keys)
        defer { log.close() }
        let first = log.append(record(0))
        let second = log.append(record(1))
        #expect(!log.written(second))
        #expect(!log.written(first))
    }

    /// The `mac`, or `prev`, of a line of the log.
    func chainValue(_ key: String, of line: ArraySlice<UInt8>) -> String? {
        (try? JSON.parse(Array(line)))?.objectValue?[key]?.stringValue
    }

    /// A disk that fills mid-line: the bytes the failed write got out are cut off, so the file
    /// ends with its last whole line; once there is room, the next line is whole and readable,
    /// and verify reports the lost line as a gap (the line after it follows a removed line),
    /// the lines from there on verifying.
    @Test func aWriteThatFailsPartWayLeavesTheFileAtItsLastWholeLine() throws {
        let path = directory + "/audit.log"
        let disk = LimitedDisk()
        let log = try AuditLog(destination: .file(path), keys: keys, write: disk.write)
        #expect(log.record(record(0), mustBeWritten: true))
        let before = read(path)
        disk.fill(leaving: 40)
        #expect(!log.record(record(1), mustBeWritten: true))
        #expect(log.isFailing)
        #expect(read(path) == before, "the 40 bytes of the lost line are cut off")
        disk.free()
        #expect(log.record(record(2), mustBeWritten: true))
        #expect(!log.isFailing)
        #expect(log.record(record(3), mustBeWritten: true))
        log.close()
        let bytes = read(path)
        #expect(bytes.last == 0x0A)
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { chainValue("mac", of: $0) != nil }, "every line whole")
        let report = AuditVerifier.verify(bytes, keys: keys)
        #expect(report.problem?.line == 2)
        #expect(report.problem?.reason.contains("a line before it was removed") == true, "\(String(describing: report.problem))")
        let after = AuditVerifier.verify(Array(bytes[before.count...]), keys: keys)
        #expect(after.problem == nil)
        #expect(after.lines == 2)
        #expect(after.continuesEarlierLog)
    }

    /// On a pipe nothing can be cut off: the next write ends the torn line first, so the line
    /// after it is whole and readable, and verify names the torn one.
    @Test func aWriteThatFailsPartWayOnAPipeIsEndedByTheNextWrite() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let disk = LimitedDisk()
        let writeEnd = ends[1]
        let log = try AuditLog(destination: .standardOutput, keys: keys) { _, bytes, count in disk.write(writeEnd, bytes, count) }
        #expect(log.record(record(0), mustBeWritten: true))
        disk.fill(leaving: 40)
        #expect(!log.record(record(1), mustBeWritten: true))
        disk.free()
        #expect(log.record(record(2), mustBeWritten: true))
        log.close()
        close(writeEnd)
        let bytes = Array(FileHandle(fileDescriptor: ends[0], closeOnDealloc: false).readDataToEndOfFile())
        #expect(bytes.last == 0x0A)
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        #expect(lines.map(\.count).dropFirst().first == 40, "the torn line is on a line of its own")
        #expect(lines.count == 3)
        #expect(chainValue("mac", of: lines[lines.startIndex + 2]) != nil, "the line after it is whole")
        let report = AuditVerifier.verify(bytes, keys: keys)
        #expect(report.problem?.line == 2)
        #expect(report.problem?.reason.hasPrefix("not an audit line (cut short") == true)
        #expect(AuditVerifier.verify(Array(lines[lines.startIndex + 2]) + [0x0A], keys: keys).problem == nil)
    }

    /// A last line that is whole but not an audit line (a torn line a later one was appended to,
    /// or an edit): a restart continues the chain from the audit line before it and says so, and
    /// verify names the line.
    @Test func aRestartAfterALastLineThatIsNotAnAuditLineContinuesTheChainAndSaysSo() throws {
        let path = directory + "/audit.log"
        let first = try AuditLog(destination: .file(path), keys: keys)
        #expect(first.openWarning == nil)
        #expect(first.record(record(0), mustBeWritten: true))
        first.close()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"time":1,"req{"time":2,"request":"a-2"}"#.utf8 + [0x0A]))
        try handle.close()
        let again = try AuditLog(destination: .file(path), keys: keys)
        #expect(again.openWarning?.contains(path) == true)
        #expect(again.openWarning?.contains("not an audit line") == true)
        #expect(again.record(record(2), mustBeWritten: true))
        again.close()
        let lines = read(path).split(separator: 0x0A)
        #expect(lines.count == 3)
        #expect(chainValue("prev", of: lines[2]) == chainValue("mac", of: lines[0]), "not a new chain")
        let report = AuditVerifier.verify(read(path), keys: keys)
        #expect(report.problem?.line == 2)
        #expect(report.problem?.reason.hasPrefix("not an audit line") == true)
        #expect(AuditVerifier.verify(Array(lines[0]) + [0x0A] + Array(lines[2]) + [0x0A], keys: keys).problem == nil)
    }

    @Test func aLinkAtThePathIsNotFollowed() throws {
        let target = directory + "/elsewhere"
        FileManager.default.createFile(atPath: target, contents: Data("theirs\n".utf8))
        try FileManager.default.createSymbolicLink(atPath: directory + "/audit.log", withDestinationPath: target)
        #expect(throws: AuditLogError.self) { try AuditLog(destination: .file(directory + "/audit.log"), keys: keys) }
        #expect(read(target) == Array("theirs\n".utf8))
    }
}

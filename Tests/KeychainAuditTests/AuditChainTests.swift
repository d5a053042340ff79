import Foundation
import KeychainAudit
import KeychainCrypto
import KeychainJSON
import Testing

/// The audit log's chain: every edit, removal and reordering of lines is found, at the first
/// line it affects; values appear only as keyed hashes.
@Suite struct AuditChainTests {
    let keys: AuditKeys

    init() throws {
        keys = try AuditKeys(instanceKey: SecureBytes.random(count: 32))
    }

    func record(_ n: Int, reason: String? = nil) -> AuditRecord {
        AuditRecord(
            time: 1_795_000_000_000 + Int64(n), requestID: AuditRequestID(prefix: 0xa, count: UInt64(n)),
            tokenID: "tok_00000000000000\(n)0", tokenName: "ci",
            client: "10.0.0.\(n)", route: "/v1/items", operation: "search",
            query: [.init("service", "payroll-db"), .init("account", "alice-\(n)")],
            refs: [[UInt8](repeating: UInt8(n), count: 16)], status: 0, httpStatus: 200, reason: reason)
    }

    /// Five lines, each with its newline.
    func log(_ count: Int = 5, chain: inout AuditChain) -> [[UInt8]] {
        (1...count).map { chain.line(for: record($0)) + [0x0A] }
    }

    /// The line's bytes under a fixed instance key, pinned: logs written by one build must
    /// verify, and `keychaind audit hash` must find their values, under the next.
    @Test func aLineIsTheSameBytesFromBuildToBuild() throws {
        var raw: [UInt8] = Array(1...32)
        let keys = try AuditKeys(instanceKey: SecureBytes(consuming: &raw))
        #expect(keys.hash("payroll-db") == "hmac:fXxmNFQuG7wC1r-0OsEJVQ")
        var chain = AuditChain(keys: keys)
        let line = chain.line(
            for: AuditRecord(
                time: 1_790_000_000_000, requestID: AuditRequestID(prefix: 0xa1, count: 1), tokenID: "tok_1", tokenName: #"n"q"#,
                client: "127.0.0.1",
                route: "/v1/items", operation: "search", query: [.init("service", "payroll-db")],
                refs: [[UInt8](repeating: 0, count: 16)], status: -25300, httpStatus: 404, reason: "ticket 7"))
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"time":1790000000000,"request":"a1-1","token":{"id":"tok_1","name":"n\"q"},"client":"127.0.0.1","route":"/v1/items","operation":"search","query":{"service":"hmac:fXxmNFQuG7wC1r-0OsEJVQ"},"refs":["AAAAAAAAAAAAAAAAAAAAAA"],"status":-25300,"httpStatus":404,"reason":"ticket 7","prev":null,"mac":"8AJOfinRfDa1AaeBESsNOg"}"#
        )
        #expect(chain.last == "8AJOfinRfDa1AaeBESsNOg")
    }

    /// A request id is written as its description says: the prefix in hex without leading
    /// zeros, `-`, the count in decimal, past the counts a string holds inline.
    @Test func requestIDsAreWrittenAsTheirDescription() throws {
        var chain = AuditChain(keys: keys)
        for prefix: UInt32 in [0, 0xa, 0x10, 0xabcdef, 0x0fff_ffff, .max] {
            for count: UInt64 in [0, 9, 999_999, 1_000_000, 10_000_000_000, .max] {
                var record = record(1)
                record.requestID = AuditRequestID(prefix: prefix, count: count)
                let object = try #require(JSON.parse(chain.line(for: record)).objectValue)
                #expect(object["request"] == .string(String(prefix, radix: 16) + "-" + String(count)))
                #expect(record.requestID.description == String(prefix, radix: 16) + "-" + String(count))
            }
        }
    }

    @Test func anUntouchedLogVerifies() {
        var chain = AuditChain(keys: keys)
        let lines = log(chain: &chain)
        let report = AuditVerifier.verify(lines.flatMap { $0 }, keys: keys)
        #expect(report.problem == nil)
        #expect(report.lines == 5)
        #expect(report.last == chain.last)
        #expect(!report.continuesEarlierLog)
    }

    @Test func anEditedLineIsFoundAtItself() {
        var chain = AuditChain(keys: keys)
        var lines = log(chain: &chain)
        let text = String(decoding: lines[2], as: UTF8.self).replacingOccurrences(
            of: "\"httpStatus\":200", with: "\"httpStatus\":403")
        lines[2] = Array(text.utf8)
        let report = AuditVerifier.verify(lines.flatMap { $0 }, keys: keys)
        #expect(report.problem?.line == 3)
        #expect(report.problem?.reason.hasPrefix("edited") == true)
    }

    @Test func aRemovedLineIsFoundAtTheLineAfterIt() {
        var chain = AuditChain(keys: keys)
        var lines = log(chain: &chain)
        lines.remove(at: 2)
        let report = AuditVerifier.verify(lines.flatMap { $0 }, keys: keys)
        #expect(report.problem?.line == 3)
        #expect(report.problem?.reason.contains("removed") == true)
    }

    @Test func reorderedLinesAreFound() {
        var chain = AuditChain(keys: keys)
        var lines = log(chain: &chain)
        lines.swapAt(1, 2)
        #expect(AuditVerifier.verify(lines.flatMap { $0 }, keys: keys).problem?.line == 2)
    }

    @Test func aLineCutShortOrForgedWithoutTheKeyIsFound() throws {
        var chain = AuditChain(keys: keys)
        var lines = log(chain: &chain)
        lines[3] = Array(lines[3].prefix(40)) + [0x0A]
        #expect(AuditVerifier.verify(lines.flatMap { $0 }, keys: keys).problem?.line == 4)
        var other = AuditChain(keys: try AuditKeys(instanceKey: SecureBytes.random(count: 32)))
        let forged = log(chain: &other)
        #expect(AuditVerifier.verify(forged.flatMap { $0 }, keys: keys).problem?.line == 1)
    }

    /// A reopened file continues the chain: the two files verify as one, and the second alone
    /// says it continues an earlier log.
    @Test func aContinuedChainVerifiesAcrossFiles() {
        var chain = AuditChain(keys: keys)
        let first = log(3, chain: &chain).flatMap { $0 }
        var reopened = AuditChain(keys: keys, continuing: chain.last)
        let second = log(2, chain: &reopened).flatMap { $0 }
        #expect(AuditVerifier.verify(first + second, keys: keys).problem == nil)
        #expect(AuditVerifier.verify(second, keys: keys).continuesEarlierLog)
        // An older log after a newer one starts a new chain, refused unless restarts are allowed.
        #expect(AuditVerifier.verify(second + first, keys: keys).problem?.line == 3)
        let restarted = AuditVerifier.verify(second + first, keys: keys, allowRestarts: true)
        #expect(restarted.problem == nil)
        #expect(restarted.restarts == [3])
    }

    /// A log whose last `mac` is not one a chain writes (22 base64url characters: the file was
    /// edited) is not continued: the next line starts a new chain, which the verifier reports.
    @Test func aMalformedLastMACStartsANewChain() throws {
        var chain = AuditChain(keys: keys)
        let first = chain.line(for: record(1))
        for edited in [#"x","y":"z"#, "short", String(repeating: "A", count: 21) + "="] {
            var next = AuditChain(keys: keys, continuing: edited)
            #expect(next.last == nil)
            let line = String(decoding: next.line(for: record(2)), as: UTF8.self)
            #expect(line.contains(#""prev":null,"mac":""#))
            #expect(AuditVerifier.verify(first + [0x0A] + Array(line.utf8) + [0x0A], keys: keys).problem?.line == 2)
        }
        var continued = AuditChain(keys: keys, continuing: chain.last)
        #expect(continued.last == chain.last)
        #expect(String(decoding: continued.line(for: record(2)), as: UTF8.self).contains(#""prev":"\#(chain.last!)""#))
    }

    /// Query values appear only as keyed hashes, the same as `keychaind audit hash` prints.
    @Test func valuesAppearOnlyAsKeyedHashes() {
        var chain = AuditChain(keys: keys)
        let line = String(decoding: chain.line(for: record(1)), as: UTF8.self)
        #expect(!line.contains("payroll-db"))
        #expect(!line.contains("alice-1"))
        #expect(line.contains(#""service":"\#(keys.hash("payroll-db"))""#))
        #expect(keys.hash("payroll-db").hasPrefix("hmac:"))
        #expect(keys.hash("payroll-db") != keys.hash("payroll-dc"))
    }

    @Test func aReasonIsKeptAsGivenAndBounded() {
        #expect(record(1, reason: "rotating the db password").reason == "rotating the db password")
        let long = String(repeating: "é", count: 200)
        let kept = record(1, reason: long).reason ?? ""
        #expect(kept.utf8.count <= AuditRecord.maxReasonBytes)
        #expect(kept == String(repeating: "é", count: 128))
    }
}

extension AuditChainTests {
    /// A line written as bytes is the record's JSON object, key for key, with its mac after it.
    @Test func aLineIsTheRecordsJSONObjectAndItsMac() throws {
        var chain = AuditChain(keys: keys)
        _ = chain.line(for: record(1))
        let line = chain.line(for: record(2, reason: "a \"quoted\" reason\n"))
        let object = try #require(JSON.parse(line).objectValue)
        #expect(
            object.entries.map(\.key) == [
                "time", "request", "token", "client", "route", "operation", "query", "refs", "status", "httpStatus", "reason",
                "prev", "mac",
            ])
        #expect(object["token"]?.objectValue?["name"] == "ci")
        #expect(object["reason"] == .string("a \"quoted\" reason\n"))
        // A ref's 16 bytes, written as the API writes refs: base64url, unpadded.
        #expect(object["refs"] == .array(["AgICAgICAgICAgICAgICAg"]))
        #expect(object["prev"] != .null)
    }
}

extension AuditChainTests {
    /// The longest line a record can make: every string a client chose made of bytes that escape
    /// to six (`\u0001`), options in clear, the largest numbers. It is written whole (the line's
    /// bound holds), parses back to the same values, and verifies.
    @Test func aLineOfEveryStringEscapedIsWrittenWhole() throws {
        let control = String(repeating: "\u{1}", count: 64)
        let record = AuditRecord(
            time: Int64.min, requestID: AuditRequestID(prefix: .max, count: .max), tokenID: control, tokenName: control,
            client: control, route: "/v1/items",
            operation: "search",
            query: [.init(control, control, inClear: true), .init(control, control), .init("", "", inClear: true)],
            refs: [[UInt8](repeating: 0, count: 16), []], status: Int64.min, httpStatus: Int.max,
            reason: String(repeating: "\u{1f}", count: AuditRecord.maxReasonBytes))
        var chain = AuditChain(keys: keys)
        let first = chain.line(for: record)
        let second = chain.line(for: record)
        let object = try #require(JSON.parse(second, allowingDuplicateKeys: true).objectValue)
        #expect(object["token"]?.objectValue?["name"] == .string(control))
        #expect(object["client"] == .string(control))
        #expect(object["request"] == .string("ffffffff-18446744073709551615"))
        #expect(object["query"]?.objectValue?.entries.map(\.key) == [control, control, ""])
        #expect(object["query"]?.objectValue?.entries.first?.value == .string(control))
        #expect(object["reason"] == .string(record.reason!))
        #expect(object["refs"] == .array(["AAAAAAAAAAAAAAAAAAAAAA", ""]))
        #expect(object["status"] == .int(Int64.min))
        #expect(AuditVerifier.verify(first + [0x0A] + second + [0x0A], keys: keys).problem == nil)
    }
}

extension AuditChainTests {
    /// A request that repeats a parameter (which the API refuses) is recorded with both, and
    /// its line still verifies: a client cannot make the chain look broken by repeating a key.
    @Test func aRepeatedParameterKeepsTheChainVerifiable() throws {
        let repeated = AuditRecord(
            time: 1_795_000_000_000, requestID: AuditRequestID(prefix: 0, count: 1), client: "10.0.0.1", route: "/v1/items",
            operation: "search",
            query: [.init("service", "a"), .init("service", "b")], status: -25293, httpStatus: 401)
        var chain = AuditChain(keys: keys)
        let lines = [chain.line(for: repeated), chain.line(for: record(2)), chain.line(for: repeated)]
        let log: [UInt8] = lines.flatMap { $0 + [0x0A] }
        let report = AuditVerifier.verify(log, keys: keys)
        #expect(report.problem == nil)
        #expect(report.lines == 3)
        let query = try #require(JSON.parse(lines[0], allowingDuplicateKeys: true).objectValue?["query"]?.objectValue)
        #expect(query.entries.map(\.key) == ["service", "service"])
        #expect(query.entries.map(\.value) == [.string(keys.hash("a")), .string(keys.hash("b"))])
        // An edit after it is still found, at its own line.
        var edited = lines
        edited[2] = Array(String(decoding: edited[2], as: UTF8.self).replacingOccurrences(of: "401", with: "200").utf8)
        let editedLog: [UInt8] = edited.flatMap { $0 + [0x0A] }
        #expect(AuditVerifier.verify(editedLog, keys: keys).problem?.line == 3)
    }
}

extension AuditChainTests {
    /// A query of more entries than a line holds keeps its first `maxQueryEntries`, each name
    /// and clear value cut at `maxNameBytes`, and the count of the others: a body of many keys
    /// makes a line of bounded size, and as many keyed hashes.
    @Test func aLineHoldsABoundedQuery() throws {
        let longName = String(repeating: "n", count: 300)
        var query: [AuditRecord.QueryEntry] = [
            .init(longName, "v"), .init("class", String(repeating: "w", count: 300), inClear: true),
        ]
        query += (0..<998).map { .init("k\($0)", "v\($0)") }
        let record = AuditRecord(
            time: 1, requestID: AuditRequestID(prefix: 0, count: 1), client: "10.0.0.1", route: "/v1/items", operation: "add",
            query: query, status: -50,
            httpStatus: 400)
        var chain = AuditChain(keys: keys)
        let line = chain.line(for: record)
        #expect(line.count < 8_192)
        let object = try #require(JSON.parse(line).objectValue)
        let written = try #require(object["query"]?.objectValue)
        #expect(written.entries.count == AuditRecord.maxQueryEntries)
        #expect(written.entries.first?.key == String(repeating: "n", count: AuditRecord.maxNameBytes))
        #expect(written["class"] == .string(String(repeating: "w", count: AuditRecord.maxNameBytes)))
        #expect(written.entries.last?.key == "k61")
        #expect(written["k61"] == .string(keys.hash("v61")))
        #expect(object["queryLeftOut"] == .int(1_000 - Int64(AuditRecord.maxQueryEntries)))
        #expect(
            object.entries.map(\.key) == [
                "time", "request", "token", "client", "route", "operation", "query", "queryLeftOut", "refs", "status",
                "httpStatus",
                "prev", "mac",
            ])
        #expect(AuditVerifier.verify(line + [0x0A], keys: keys).problem == nil)
        // A query that fits says nothing of entries left out.
        #expect(try JSON.parse(chain.line(for: self.record(1))).objectValue?["queryLeftOut"] == nil)
    }
}

extension AuditChainTests {
    /// Lines checked one at a time give the report of the whole log, and nothing past its first
    /// problem is read.
    @Test func aCheckerFedLineByLineReportsAsTheWholeLog() {
        var chain = AuditChain(keys: keys)
        var lines = log(chain: &chain).map { Array($0.dropLast()) }
        var checker = AuditVerifier.Checker(keys: keys)
        for line in lines { checker.check(line[...]) }
        #expect(checker.report == AuditVerifier.verify(lines.flatMap { $0 + [0x0A] }, keys: keys))
        #expect(checker.report.problem == nil && checker.report.lines == 5 && checker.report.last == chain.last)
        lines.remove(at: 1)
        var broken = AuditVerifier.Checker(keys: keys)
        for line in lines + [Array("not a line".utf8)] { broken.check(line[...]) }
        #expect(broken.report.problem?.line == 2)
        #expect(broken.report.lines == 2, "no line after the problem is read")
    }
}

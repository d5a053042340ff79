import KeychainJSON

/// Checks a log's chain: every line's `mac` against its bytes, every `prev` against the line
/// before. Reports the first line that was edited, or that follows a removed or moved line.
public enum AuditVerifier {
    public struct Report: Sendable, Equatable {
        /// Lines read (the empty last line after the final newline is not one).
        public var lines: Int
        /// The `mac` of the last line: kept elsewhere, it also shows a log cut short at its end.
        public var last: String?
        /// The lines where a new chain starts (`"prev": null`) after the first line.
        public var restarts: [Int]
        /// Whether the first line continues a chain begun in an earlier log (a rotated file).
        public var continuesEarlierLog: Bool
        /// The first problem, `nil` when the chain holds.
        public var problem: Problem?
    }

    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// From 1.
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// Verifies `log`'s lines (several files in order, joined, verify as one chain): `Checker`
    /// over each line.
    public static func verify(_ log: [UInt8], keys: AuditKeys, allowRestarts: Bool = false) -> Report {
        var checker = Checker(keys: keys, allowRestarts: allowRestarts)
        var lines = log.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }  // after the final newline
        for line in lines where checker.report.problem == nil {
            checker.check(line)
        }
        return checker.report
    }

    /// Checks a log's lines one at a time, in order: a log of any size is verified in the
    /// memory of its longest line (`keychaind audit verify` reads its files a megabyte at a time).
    ///
    /// A file keychaind writes continues its chain across restarts, so a new chain after the
    /// first line (`"prev": null`) is a problem: lines before it may be gone. On standard output
    /// every start of the process begins a chain: `allowRestarts` accepts them (each is listed in
    /// `restarts`), at the price of not seeing lines removed just before one.
    public struct Checker {
        private let keys: AuditKeys
        private let allowRestarts: Bool
        /// What the lines checked so far show; once it has a `problem`, later lines are not read.
        public private(set) var report = Report(lines: 0, last: nil, restarts: [], continuesEarlierLog: false, problem: nil)
        private static let marker = Array(#","mac":""#.utf8)

        public init(keys: AuditKeys, allowRestarts: Bool = false) {
            self.keys = keys
            self.allowRestarts = allowRestarts
        }

        /// Checks the next line, without its newline.
        public mutating func check(_ line: ArraySlice<UInt8>) {
            guard report.problem == nil else { return }
            report.lines += 1
            if let reason = problem(line) { report.problem = Problem(line: report.lines, reason: reason) }
        }

        /// What is wrong with `line`, the `report.lines`th, or `nil` (and the report updated).
        private mutating func problem(_ line: ArraySlice<UInt8>) -> String? {
            let number = report.lines
            // A request may repeat a query parameter, and its line records both: keys may repeat.
            // The chain's two are the line's last: `prev`, then `mac`.
            guard let entries = try? JSON.parse(Array(line), allowingDuplicateKeys: true).objectValue?.entries,
                entries.count >= 2, entries[entries.count - 2].key == "prev", entries[entries.count - 1].key == "mac",
                case .string(let mac) = entries[entries.count - 1].value
            else { return "not an audit line (cut short, or not JSON with prev and mac)" }
            let prev = entries[entries.count - 2].value
            guard let at = AuditVerifier.lastRange(of: Self.marker, in: line),
                line[at.upperBound...].elementsEqual(Array((mac + "\"}").utf8)), keys.mac(line[..<at.lowerBound]) == mac
            else { return "edited: its mac does not match its content" }
            switch prev {
            case .null:
                if number > 1 {
                    report.restarts.append(number)
                    if !allowRestarts { return "starts a new chain: the lines before it may have been cut" }
                }
            case .string(let previous):
                if number == 1 { report.continuesEarlierLog = true }
                if let last = report.last, previous != last {
                    return "does not follow line \(number - 1): a line before it was removed, or the lines were reordered"
                }
            default:
                return "not an audit line (prev is neither null nor a string)"
            }
            report.last = mac
            return nil
        }
    }

    fileprivate static func lastRange(of marker: [UInt8], in line: ArraySlice<UInt8>) -> Range<Int>? {
        var end = line.endIndex - marker.count
        while end >= line.startIndex {
            if line[end..<(end + marker.count)].elementsEqual(marker) { return end..<(end + marker.count) }
            end -= 1
        }
        return nil
    }
}

public import Logging

extension LogWriter {
    /// Appends one line in swift-log's stream format (`timestamp level label : metadata [source]
    /// message`; `metadata` already printed, or empty), the message written by `message` straight
    /// into the writer's buffer: no `String`, no `Logger.Message` and no handler call per line.
    /// `BufferedLogHandler` writes its lines through it too.
    ///
    /// For a line written on every request (the access line, and the audit line to come), where
    /// swift-log's path, which builds the message as a `String` and then copies it, cost about a
    /// third of the line. Lines at notice and above are written at once, as the handler's.
    public func append(
        level: Logger.Level, label: String, metadata: String = "", source: String, message: (_ into: inout [UInt8]) -> Void
    ) {
        append(
            level: level, prefix: Self.linePrefix(level: level, label: label, metadata: metadata, source: source),
            message: message)
    }

    /// What follows the timestamp in a line of `append(level:label:metadata:source:message:)`,
    /// up to its message (` info keychaind : [KeychainAPI] `): for a caller that writes many lines
    /// with the same, to render once.
    public static func linePrefix(level: Logger.Level, label: String, metadata: String = "", source: String) -> [UInt8] {
        var prefix: [UInt8] = [0x20]
        prefix.append(contentsOf: level.rawValue.utf8)
        prefix.append(0x20)
        prefix.append(contentsOf: label.utf8)
        prefix.append(contentsOf: " :".utf8)
        if !metadata.isEmpty {
            prefix.append(0x20)
            prefix.append(contentsOf: metadata.utf8)
        }
        prefix.append(contentsOf: " [".utf8)
        prefix.append(contentsOf: source.utf8)
        prefix.append(contentsOf: "] ".utf8)
        return prefix
    }

    /// Appends one line: the timestamp, `prefix` (from `linePrefix`), and what `message` writes.
    public func append(level: Logger.Level, prefix: [UInt8], message: (_ into: inout [UInt8]) -> Void) {
        append(urgent: level >= .notice) { timestamp, line in
            line.append(contentsOf: timestamp)
            line.append(contentsOf: prefix)
            message(&line)
        }
    }
}

extension [UInt8] {
    /// Appends `value` in decimal, without a `String`. (Not generic: across modules, a generic
    /// one runs through protocol witnesses and cost more than the rest of an access line.)
    public mutating func appendDecimal(_ value: Int) {
        appendDecimal(Int64(value))
    }

    public mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDecimal(value.magnitude)
    }

    public mutating func appendDecimal(_ value: UInt64) {
        var digits = InlineArray<20, UInt8>(repeating: 0)
        var first = 20
        var rest = value
        repeat {
            first -= 1
            digits[first] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while rest > 0
        append(addingCapacity: 20 - first) { out in
            for n in first..<20 { out.append(digits[n]) }
        }
    }
}

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
        append(urgent: level >= .notice) { timestamp, line in
            line.append(contentsOf: timestamp)
            line.append(0x20)
            line.append(contentsOf: level.rawValue.utf8)
            line.append(0x20)
            line.append(contentsOf: label.utf8)
            line.append(contentsOf: " :".utf8)
            if !metadata.isEmpty {
                line.append(0x20)
                line.append(contentsOf: metadata.utf8)
            }
            line.append(contentsOf: " [".utf8)
            line.append(contentsOf: source.utf8)
            line.append(contentsOf: "] ".utf8)
            message(&line)
        }
    }
}

extension [UInt8] {
    /// Appends `value` in decimal, without a `String`.
    public mutating func appendDecimal(_ value: some BinaryInteger) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var rest = UInt64(value.magnitude)
        var divisor: UInt64 = 1
        while divisor <= rest / 10 { divisor *= 10 }
        repeat {
            append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        } while divisor > 0
    }
}

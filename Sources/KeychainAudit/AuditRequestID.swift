import KeychainJSON

/// A request's id in the audit log, `prefix-count`: this process's random prefix in hex and the
/// request's count in decimal.
///
/// Numbers, written into the line as it is built: a string of the id lived on the heap once the
/// count passed 999,999 (past the 15 bytes of UTF-8 a string holds inline), an allocation, a
/// retain and a release every request of a server that has answered a million.
public struct AuditRequestID: Sendable, Equatable, CustomStringConvertible {
    public var prefix: UInt32
    public var count: UInt64

    public init(prefix: UInt32, count: UInt64) {
        self.prefix = prefix
        self.count = count
    }

    public var description: String { String(prefix, radix: 16) + "-" + String(count) }

    /// The most bytes `write(to:)` writes: 8 hex digits, `-` and 20 decimal ones.
    static let maxBytes = 29

    /// `prefix` in lowercase hex without leading zeros (`0` for zero), `-`, `count` in decimal.
    func write(to out: inout ByteCursor) {
        let digits: StaticString = "0123456789abcdef"
        var shift = max(0, (31 - prefix.leadingZeroBitCount) / 4 * 4)
        while shift >= 0 {
            out.byte(digits.utf8Start[Int((prefix >> UInt32(shift)) & 0xF)])
            shift -= 4
        }
        out.byte(UInt8(ascii: "-"))
        out.decimal(count)
    }
}

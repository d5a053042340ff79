/// Writes a line's bytes into room reserved once in an array (`[UInt8].append(atMost:_:)`): for a
/// line built on every request (the audit line), where each `append` on the array checks its
/// capacity and uniqueness again (docs/performance.md#audit-line-written-in-place).
///
/// Every write checks that it fits in the room and traps if it does not: the caller's bound is a
/// promise the cursor holds it to, never a chance to write past the array's storage.
public struct ByteCursor: ~Copyable {
    @usableFromInline let start: UnsafeMutablePointer<UInt8>
    @usableFromInline var next: UnsafeMutablePointer<UInt8>
    @usableFromInline let end: UnsafeMutablePointer<UInt8>

    @usableFromInline
    init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        start = room.baseAddress!
        next = start
        end = start + room.count
    }

    /// Bytes written so far.
    @inlinable
    public var count: Int { next - start }

    /// The bytes written so far, readable until the cursor's closure returns.
    @inlinable
    public var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: next - start) }

    @inlinable
    mutating func room(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(bytes <= end - next, "ByteCursor: a write past the bound the line reserved")
        defer { next += bytes }
        return next
    }

    @inlinable
    public mutating func byte(_ byte: UInt8) {
        room(1).initialize(to: byte)
    }

    @inlinable
    public mutating func bytes(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(room(bytes.count)).copyMemory(from: source, byteCount: bytes.count)
    }

    /// A literal's UTF-8 bytes.
    @inlinable
    public mutating func literal(_ literal: StaticString) {
        guard literal.hasPointerRepresentation else { return literal.withUTF8Buffer { bytes(UnsafeRawBufferPointer($0)) } }
        bytes(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// `text`'s UTF-8 bytes, as they are.
    public mutating func utf8(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes(UnsafeRawBufferPointer($0)) }
        if copied == nil { for byte in text.utf8 { self.byte(byte) } }
    }

    /// `text` in quotes, unescaped: only for what the server wrote itself (base64url, hex, route
    /// templates), which holds no quote, backslash or control byte.
    public mutating func quoted(_ text: String) {
        byte(UInt8(ascii: "\""))
        utf8(text)
        byte(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string, quoted and escaped as `JSON.appendString` writes it: at most
    /// `ByteCursor.jsonStringBound(text)` bytes.
    public mutating func jsonString(_ text: String) {
        byte(UInt8(ascii: "\""))
        let plain: Bool? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: JSON.needsEscape) else { return false }
            bytes(UnsafeRawBufferPointer(utf8))
            return true
        }
        if plain != true {
            for byte in text.utf8 { JSON.escape(byte) { self.byte($0) } }
        }
        byte(UInt8(ascii: "\""))
    }

    /// The most bytes `jsonString(text)` writes: six for every byte (`\u00XX`), and the quotes.
    public static func jsonStringBound(_ text: String) -> Int {
        6 * text.utf8.count + 2
    }

    /// The digits of `value` in decimal: 1 to 20.
    public static func decimalDigits(_ value: UInt64) -> Int {
        var digits = 1
        var limit: UInt64 = 10
        while digits < 20, value >= limit {
            digits += 1
            limit = limit &* 10
        }
        return digits
    }

    /// `value` in decimal: at most 20 bytes (`decimalDigits(value)`).
    public mutating func decimal(_ value: UInt64) {
        let digits = Self.decimalDigits(value)
        let first = room(digits)
        var rest = value
        for n in stride(from: digits - 1, through: 0, by: -1) {
            first[n] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
    }

    /// `value` in decimal, `-` first when negative: at most 20 bytes.
    public mutating func decimal(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        decimal(value.magnitude)
    }

    /// `bytes` in base64url without padding: `base64urlCount(bytes.count)` bytes. For the audit
    /// line's digests and refs, 16 bytes each, four a line, without a general encoder's setup
    /// (docs/performance.md#audit-base64url-in-a-loop).
    public mutating func base64url(_ bytes: UnsafeRawBufferPointer) {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        let symbols = alphabet.utf8Start
        let out = room(Self.base64urlCount(bytes.count))
        var input = 0
        var output = 0
        while bytes.count - input >= 3 {
            let group = UInt32(bytes[input]) << 16 | UInt32(bytes[input + 1]) << 8 | UInt32(bytes[input + 2])
            out[output] = symbols[Int(group >> 18)]
            out[output + 1] = symbols[Int(group >> 12 & 63)]
            out[output + 2] = symbols[Int(group >> 6 & 63)]
            out[output + 3] = symbols[Int(group & 63)]
            input += 3
            output += 4
        }
        switch bytes.count - input {
        case 1:
            let group = UInt32(bytes[input]) << 16
            out[output] = symbols[Int(group >> 18)]
            out[output + 1] = symbols[Int(group >> 12 & 63)]
        case 2:
            let group = UInt32(bytes[input]) << 16 | UInt32(bytes[input + 1]) << 8
            out[output] = symbols[Int(group >> 18)]
            out[output + 1] = symbols[Int(group >> 12 & 63)]
            out[output + 2] = symbols[Int(group >> 6 & 63)]
        default:
            break
        }
    }

    /// The characters of `count` bytes in unpadded base64.
    public static func base64urlCount(_ count: Int) -> Int { (count * 4 + 2) / 3 }

    /// Lets `body` write at most `bytes` bytes at the cursor (an encoder of its own), and moves
    /// past the count it returns.
    public mutating func write(atMost bytes: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        precondition(bytes <= end - next, "ByteCursor: a write past the bound the line reserved")
        let wrote = body(UnsafeMutableBufferPointer(start: next, count: bytes))
        precondition(wrote >= 0 && wrote <= bytes, "ByteCursor: an encoder wrote past its room")
        next += wrote
    }
}

extension [UInt8] {
    /// Appends what `body` writes through a cursor, in room for `bound` bytes made once. A write
    /// past `bound` traps.
    public mutating func append(atMost bound: Int, _ body: (inout ByteCursor) -> Void) {
        append(addingCapacity: bound) { span in
            span.withUnsafeMutableBufferPointer { room, initialized in
                var cursor = ByteCursor(UnsafeMutableBufferPointer(rebasing: room[initialized...]))
                body(&cursor)
                initialized += cursor.count
            }
        }
    }
}

extension JSON {
    /// Whether a JSON string writes `byte` escaped: a quote, a backslash, a control byte.
    @inlinable
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}

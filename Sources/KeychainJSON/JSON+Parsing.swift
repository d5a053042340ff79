#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A JSON syntax error, with where it happened (byte offset, line and column).
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public let offset: Int
    public let line: Int
    public let column: Int

    public var description: String { "\(reason) at line \(line), column \(column)" }
}

extension JSON {
    /// Parses one JSON value (RFC 8259) from UTF-8 bytes; nesting is limited to 64 levels.
    ///
    /// An object that names a key twice is refused (a query must not say two things), unless
    /// `allowingDuplicateKeys`: then it keeps both entries, in order, and a lookup by the key
    /// finds the first. RFC 8259 allows such objects; an audit line records a request's
    /// parameters as the client sent them, repeated ones included.
    public static func parse(_ bytes: [UInt8], allowingDuplicateKeys: Bool = false) throws(JSONParseError) -> JSON {
        var parser = JSONParser(bytes: bytes, allowsDuplicateKeys: allowingDuplicateKeys)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    /// Reads a JSON object, handing each member's key and, when its value is a string, that
    /// string's UTF-8 bytes (escapes decoded) to `member`, valid only during the call; `nil` for
    /// a value of another type. No string value ever becomes a `String`, which cannot be wiped: a
    /// passphrase's body is read this way, and a value decoded from escapes is zeroed once
    /// `member` returns. Refuses what `parse` refuses, a key given twice, and a body that is not
    /// an object.
    public static func forEachMember(
        ofObject bytes: [UInt8], _ member: (_ key: String, _ string: UnsafeBufferPointer<UInt8>?) -> Void
    ) throws(JSONParseError) {
        var parser = JSONParser(bytes: bytes, allowsDuplicateKeys: false)
        parser.skipWhitespace()
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "{") else {
            throw parser.error("expected a JSON object")
        }
        try parser.forEachMember(member)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected data after the JSON value") }
    }

    /// Zeroes `bytes` with a write the compiler keeps (`explicit_bzero`).
    static func wipe(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        #if canImport(Darwin)
            _ = memset_s(base, bytes.count, 0, bytes.count)
        #else
            explicit_bzero(base, bytes.count)
        #endif
    }

    /// Parses a JSON value from a string.
    public static func parse(_ text: String) throws(JSONParseError) -> JSON {
        try parse(Array(text.utf8))
    }
}

private struct JSONParser {
    /// Up to this many keys an object checks for a duplicate by scanning its keys (cheaper
    /// than hashing for the few keys of a query); past it, through a set.
    static let linearScanLimit = 16

    let bytes: [UInt8]
    let allowsDuplicateKeys: Bool
    var index = 0

    init(bytes: [UInt8], allowsDuplicateKeys: Bool) {
        self.bytes = bytes
        self.allowsDuplicateKeys = allowsDuplicateKeys
    }

    func error(_ reason: String) -> JSONParseError {
        var line = 1
        var column = 1
        for b in bytes[..<min(index, bytes.count)] {
            if b == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONParseError(reason: reason, offset: index, line: line, column: column)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSON {
        guard depth < 64 else { throw error("nesting deeper than 64 levels") }
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    mutating func expect(_ word: String) throws(JSONParseError) {
        for b in word.utf8 {
            guard index < bytes.count, bytes[index] == b else { throw error("invalid literal") }
            index += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSON {
        var entries: [(key: String, value: JSON)] = []
        // Keys seen so far, once an object outgrows a linear scan: parsing stays linear in the
        // input however many keys a body has (trap 9: an unauthenticated body of 80,000 keys
        // took 26 s with a scan per key). `Set` hashes with a per-process random seed.
        var seen: Set<String>?
        let allowsDuplicateKeys = allowsDuplicateKeys
        try parseMembers { key in
            if allowsDuplicateKeys { return true }
            if seen == nil, entries.count >= Self.linearScanLimit {
                seen = Set(entries.lazy.map(\.key))
            }
            return seen != nil ? seen!.insert(key).inserted : !entries.contains { $0.key == key }
        } value: { parser, key throws(JSONParseError) in
            entries.append((key, try parser.parseValue(depth: depth + 1)))
        }
        return .object(JSONObject(entries))
    }

    /// `JSON.forEachMember(ofObject:_:)` from the object's opening brace.
    mutating func forEachMember(_ member: (String, UnsafeBufferPointer<UInt8>?) -> Void) throws(JSONParseError) {
        var seen = Set<String>()
        try parseMembers {
            seen.insert($0).inserted
        } value: { parser, key throws(JSONParseError) in
            if parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\"") {
                try parser.withStringBytes { member(key, $0) }
            } else {
                _ = try parser.parseValue(depth: 1)
                member(key, nil)
            }
        }
    }

    /// An object's members from its opening brace through its closing one: each key read and
    /// refused as a duplicate unless `isNew`, then `value` called at its value (after the colon
    /// and any whitespace) to read it.
    mutating func parseMembers(
        isNew: (String) -> Bool, value: (inout JSONParser, String) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            guard isNew(key) else { throw error("duplicate key \"\(key)\"") }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            try value(&self, key)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return
            }
            throw error("expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSON {
        index += 1
        var array: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(array)
            }
            throw error("expected ',' or ']'")
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        // The common case, a string without escapes, is one run copied once.
        let (start, closed) = scanRun()
        if closed {
            let end = index - 1
            let s = bytes.withUnsafeBufferPointer { String(utf8Checking: UnsafeBufferPointer(rebasing: $0[start..<end])) }
            guard let s else { throw error("invalid UTF-8 in a string") }
            return s
        }
        var out = Array(bytes[start..<index])
        try decodeEscapes(into: &out)
        guard let s = out.withUnsafeBufferPointer({ String(utf8Checking: $0) }) else { throw error("invalid UTF-8 in a string") }
        return s
    }

    /// Steps over a string's opening quote and its run without escapes. Returns where the run
    /// starts, and whether the closing quote ended it (then `index` is past the quote; otherwise
    /// at the escape or the byte a string cannot hold).
    mutating func scanRun() -> (start: Int, closed: Bool) {
        index += 1
        let start = index
        while index < bytes.count, bytes[index] >= 0x20, bytes[index] != UInt8(ascii: "\""),
            bytes[index] != UInt8(ascii: "\\")
        {
            index += 1
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return (start, false) }
        index += 1
        return (start, true)
    }

    /// The rest of a string whose run without escapes is already in `out`, from `index` (at
    /// its first escape or at a byte a string cannot hold) through the closing quote: escapes
    /// decoded, appended to `out`, never held in a `String` (a passphrase's too).
    mutating func decodeEscapes(into out: inout [UInt8]) throws(JSONParseError) {
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                break
            }
            if b < 0x20 { throw error("control character in a string") }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw error("unterminated escape") }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate") }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw error("unpaired surrogate")
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid unicode escape") }
                UTF8.encode(u) { out.append($0) }
            default: throw error("invalid escape")
            }
        }
    }

    /// The next string's UTF-8 bytes, escapes decoded, handed to `body` without ever becoming a
    /// `String` (which cannot be wiped): the input's own bytes when the string has no escape,
    /// otherwise a decoded copy, in room reserved once and zeroed after `body`.
    mutating func withStringBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws(JSONParseError) -> R {
        let (start, closed) = scanRun()
        if closed {
            return try bytes.withUnsafeBufferPointer { all throws(JSONParseError) in
                let run = UnsafeBufferPointer(rebasing: all[start..<index - 1])
                guard Self.isUTF8(run) else { throw error("invalid UTF-8 in a string") }
                return body(run)
            }
        }
        // Decoded, a string is never longer than its literal: no growth leaves a copy behind.
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count - start)
        defer { out.withUnsafeMutableBytes { JSON.wipe($0) } }
        out.append(contentsOf: bytes[start..<index])
        try decodeEscapes(into: &out)
        return try out.withUnsafeBufferPointer { decoded throws(JSONParseError) in
            guard Self.isUTF8(decoded) else { throw error("invalid UTF-8 in a string") }
            return body(decoded)
        }
    }

    /// Whether `bytes` are UTF-8, checked without making a `String` of them.
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.allSatisfy({ $0 < 0x80 }) { return true }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated unicode escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw error("invalid unicode escape")
            }
            v = v << 4 | UInt32(d)
            index += 1
        }
        return v
    }

    mutating func parseNumber() throws(JSONParseError) -> JSON {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let i = Int64(text) { return .int(i) }
        guard let d = Double(text), d.isFinite else { throw error("number out of range") }
        return .double(d)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}

extension String {
    /// `bytes` as a string when they are UTF-8, `nil` when they are not.
    ///
    /// ASCII (names, most values) is decoded without validation, since `String(validating:as:)`
    /// is unspecialized outside the standard library; anything else is validated
    /// (docs/performance.md#ascii-strings-decoded-without-validation).
    public init?(utf8Checking bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            self.init(decoding: bytes, as: UTF8.self)
        } else if let valid = String(validating: bytes, as: UTF8.self) {
            self = valid
        } else {
            return nil
        }
    }
}

internal import Foundation
import KeychainCrypto

/// A checked attribute value.
enum AttributeValue: Sendable, Equatable {
    case string(String)
    case bytes([UInt8])
    case int(Int64)
    case bool(Bool)

    /// The empty default a primary-key attribute takes when absent on add ("" or 0).
    static func emptyDefault(for type: AttributeType) -> AttributeValue {
        switch type {
        case .string, .enumeration: .string("")
        case .bytes: .bytes([])
        case .fourCharCode, .integer, .date: .int(0)
        case .bool: .bool(false)
        }
    }

    /// Checks `json` against `spec`'s type. `lenient` accepts strings for numbers and booleans
    /// (URL query parameters carry only strings).
    static func parse(_ json: JSON, as spec: AttributeSpec, key: String, lenient: Bool) throws(KeychainError) -> AttributeValue {
        func wrongType(_ expected: String) -> KeychainError {
            .param("\(key): expected \(expected), got \(json.typeName)")
        }
        switch spec.type {
        case .string:
            guard case .string(let s) = json else { throw wrongType("a string") }
            return .string(s)
        case .bytes:
            guard case .string(let s) = json else { throw wrongType("base64 bytes in a string") }
            guard let bytes = Base64.decode(s) else { throw .param("\(key): not valid base64") }
            return .bytes(bytes)
        case .bool:
            if case .bool(let b) = json { return .bool(b) }
            if lenient, case .string(let s) = json, let b = Bool(s) { return .bool(b) }
            throw wrongType("a boolean")
        case .integer(let range):
            guard let i = json.intValue ?? (lenient ? json.stringValue.flatMap({ Int64($0) }) : nil) else {
                throw wrongType("an integer")
            }
            guard range.contains(i) else { throw .param("\(key): \(i) is outside \(range.lowerBound)…\(range.upperBound)") }
            return .int(i)
        case .fourCharCode:
            if let i = json.intValue ?? (lenient ? json.stringValue.flatMap({ Int64($0) }) : nil) {
                guard (0...Int64(UInt32.max)).contains(i) else { throw .param("\(key): not a 32-bit unsigned integer") }
                return .int(i)
            }
            if case .string(let s) = json, s.utf8.count == 4, s.utf8.allSatisfy({ $0 < 0x80 }) {
                return .int(s.utf8.reduce(Int64(0)) { $0 << 8 | Int64($1) })
            }
            throw wrongType("a four-char code (integer or 4 ASCII characters)")
        case .enumeration(let names, let prefix):
            guard case .string(let s) = json else { throw wrongType("a string") }
            // "" is the unspecified value a primary-key attribute takes when absent.
            if s.isEmpty { return .string("") }
            let bare = s.hasPrefix(prefix) ? String(s.dropFirst(prefix.count)) : s
            guard let name = names.first(where: { $0.lowercased() == bare.lowercased() }) else {
                throw .param("\(key): unknown value; expected one of \(names.joined(separator: ", "))")
            }
            return .string(name)
        case .date:
            throw .param("\(key): set by the server, read-only")
        }
    }

    /// The JSON output form for `type`.
    func json(as type: AttributeType) -> JSON {
        switch (self, type) {
        case (.int(let ms), .date): .string(RFC3339.format(milliseconds: ms))
        case (.string(let s), _): .string(s)
        case (.bytes(let b), _): .string(Base64.encode(b))
        case (.int(let i), _): .int(i)
        case (.bool(let b), _): .bool(b)
        }
    }

    /// Bytes for digests: a type tag, then the canonical encoding. Every stored lookup and
    /// primary-key digest was made from these; `appendDigestPart` streams the same bytes, and
    /// `DigestPartTests` holds the two equal.
    var digestBytes: [UInt8] {
        switch self {
        case .string(let s): [0x73] + Array(s.utf8)
        case .bytes(let b): [0x62] + b
        case .int(let i): [0x69] + withUnsafeBytes(of: i.bigEndian, Array.init)
        case .bool(let b): [0x74, b ? 1 : 0]
        }
    }

    /// Appends `digestBytes` to a digest as one part, without building it.
    func appendDigestPart(to input: KeyedDigest.Input) {
        switch self {
        case .string(let s):
            var s = s
            s.withUTF8 { input.append(tag: 0x73, UnsafeRawBufferPointer($0)) }
        case .bytes(let b): b.withUnsafeBytes { input.append(tag: 0x62, $0) }
        case .int(let i): withUnsafeBytes(of: i.bigEndian) { input.append(tag: 0x69, $0) }
        case .bool(let b): withUnsafeBytes(of: UInt8(b ? 1 : 0)) { input.append(tag: 0x74, $0) }
        }
    }

    /// The `foldedDigestBytes` of a string.
    static func foldedDigestPart(_ s: String) -> [UInt8] {
        [0x66] + Array(CaseFolding.fold(s).utf8)
    }

}

/// How `matchCaseInsensitive` compares: Unicode full case folding approximated as
/// upper-then-lower casing (so "ß" folds with "SS" and "Σ" with "σ"), then NFC normalisation
/// (so a precomposed "é" and "e" + U+0301 compare equal).
enum CaseFolding {
    static func fold(_ s: String) -> String {
        s.uppercased().lowercased().precomposedStringWithCanonicalMapping
    }
}

/// RFC 3339 UTC timestamps with milliseconds.
public enum RFC3339 {
    public static func format(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var tm = tm()
        gmtime_r(&seconds, &tm)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(tm.tm_year + 1900, 4))-\(pad(tm.tm_mon + 1, 2))-\(pad(tm.tm_mday, 2))T"
            + "\(pad(tm.tm_hour, 2)):\(pad(tm.tm_min, 2)):\(pad(tm.tm_sec, 2)).\(pad(Int32(milliseconds % 1000), 3))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)` to milliseconds since 1970.
    public static func parse(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970 * 1000) }
    }
}

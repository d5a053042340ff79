internal import Foundation
import KeychainCrypto

/// A checked attribute value.
public enum AttributeValue: Sendable, Equatable {
    case string(String)
    case bytes([UInt8])
    case int(Int64)
    case bool(Bool)

    /// The empty default a primary-key attribute takes when absent on add ("" or 0).
    static func emptyDefault(for type: ValueType) -> AttributeValue {
        switch type {
        case .string, .enumeration, .itemClass, .persistentRef, .keychainNames, .accessObject: .string("")
        case .bytes: .bytes([])
        case .fourCharCode, .integer, .date, .matchLimit: .int(0)
        case .bool, .synchronizable: .bool(false)
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

    /// The part a string's lookup digest is made of: a tag, then its case-folded UTF-8.
    static func foldedDigestPart(_ s: String) -> [UInt8] {
        [0x66] + Array(CaseFolding.fold(s).utf8)
    }

    /// Appends `foldedDigestPart(s)` to a digest as one part, without building it.
    static func appendFoldedDigestPart(_ s: String, to input: KeyedDigest.Input) {
        var folded = CaseFolding.fold(s)
        folded.withUTF8 { input.append(tag: 0x66, UnsafeRawBufferPointer($0)) }
    }

}

/// How `matchCaseInsensitive` compares: Unicode full case folding approximated as
/// upper-then-lower casing (so "ß" folds with "SS" and "Σ" with "σ"), then NFC normalisation
/// (so a precomposed "é" and "e" + U+0301 compare equal).
enum CaseFolding {
    static func fold(_ s: String) -> String {
        if let ascii = asciiFold(s) { return ascii }
        return s.uppercased().lowercased().precomposedStringWithCanonicalMapping
    }

    /// The fold of an ASCII string, which is its ASCII lower case (casing maps ASCII to ASCII
    /// and NFC leaves it as it is); `nil` for any other string. Most attribute values are ASCII
    /// and skip Foundation's normalisation (docs/performance.md#ascii-folding).
    static func asciiFold(_ s: String) -> String? {
        var isASCII = true
        var hasUpper = false
        for byte in s.utf8 {
            if byte >= 0x80 {
                isASCII = false
                break
            }
            if byte >= 0x41, byte <= 0x5A { hasUpper = true }
        }
        guard isASCII else { return nil }
        guard hasUpper else { return s }
        return String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

internal import CPostgres
import KeychainStorage

/// A parameter: its binary form (`nil` is SQL NULL).
struct PGValue {
    let bytes: [UInt8]?

    static let null = PGValue(bytes: nil)
    /// An `int8`, big-endian.
    static func int(_ value: Int64) -> PGValue { PGValue(bytes: withUnsafeBytes(of: value.bigEndian) { Array($0) }) }
    static func blob(_ bytes: [UInt8]) -> PGValue { PGValue(bytes: bytes) }
    /// `text`: its UTF-8 bytes.
    static func text(_ value: String) -> PGValue { PGValue(bytes: Array(value.utf8)) }

    /// A one-dimensional `bytea[]` (element type OID 17), for `unnest($n::bytea[])`.
    static func byteaArray(_ elements: [[UInt8]]) -> PGValue { array(elementType: 17, elements) }

    /// A one-dimensional `text[]` (element type OID 25).
    static func textArray(_ elements: [String]) -> PGValue { array(elementType: 25, elements.map { Array($0.utf8) }) }

    /// A one-dimensional `int8[]` (element type OID 20), for `= ANY($n::int8[])`.
    static func int8Array(_ elements: [Int64]) -> PGValue {
        array(elementType: 20, elements.map { withUnsafeBytes(of: $0.bigEndian) { Array($0) } })
    }

    /// PostgreSQL's binary array format: dimensions, no-nulls flag, element type, then each
    /// dimension's length and lower bound (1), then each element's length and bytes.
    private static func array(elementType: Int32, _ elements: [[UInt8]]) -> PGValue {
        var bytes: [UInt8] = []
        func put(_ value: Int32) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
        put(elements.isEmpty ? 0 : 1)
        put(0)
        put(elementType)
        if !elements.isEmpty {
            put(Int32(elements.count))
            put(1)
        }
        for element in elements {
            put(Int32(element.count))
            bytes.append(contentsOf: element)
        }
        return PGValue(bytes: bytes)
    }
}

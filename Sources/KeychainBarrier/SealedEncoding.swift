import KeychainCrypto
import KeychainJSON

/// The stored form of what the barrier seals besides secrets — an item's attributes, a token's
/// description — independent of the wire format.
///
/// Version 1 (the first byte): fields one after another, each string or byte string preceded by
/// its length as a 32-bit big-endian integer. Version 0, written by keychaind before this
/// encoding existed, was a JSON object (its first byte `{`); it is still read, and an item
/// written so moves to version 1 at its next update.
package enum SealedEncoding {
    package static let version: UInt8 = 1
    package static let legacyJSON = UInt8(ascii: "{")

    /// Appends fields in version 1.
    package struct Writer {
        package private(set) var bytes: [UInt8] = [SealedEncoding.version]

        package init() {}

        package mutating func append(_ string: String) { append(bytes: Array(string.utf8)) }

        package mutating func append(bytes field: [UInt8]) {
            append(UInt32(field.count))
            bytes.append(contentsOf: field)
        }

        package mutating func append(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }

        package mutating func append(byte: UInt8) { bytes.append(byte) }

        /// Zeroes what was written (it may hold secrets: a migration bundle's batch).
        package mutating func wipe() { Sodium.wipe(&bytes) }

        /// Makes room for `count` bytes at once: bytes that hold secrets are not copied by growth.
        package mutating func reserveCapacity(_ count: Int) { bytes.reserveCapacity(count) }

        /// Overwrites the 4 bytes at `offset`, written before, with `value` (a count known last).
        package mutating func set(_ value: UInt32, at offset: Int) {
            withUnsafeBytes(of: value.bigEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
        }

        /// Appends `value`'s 8 bytes, big-endian.
        package mutating func append(_ value: Int64) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
    }

    /// Reads version-1 fields; every read fails (`nil`) past the end.
    package struct Reader {
        private let bytes: [UInt8]
        private var index = 1

        /// `nil` unless `bytes` is in version 1.
        package init?(_ bytes: [UInt8]) {
            guard bytes.first == SealedEncoding.version else { return nil }
            self.bytes = bytes
        }

        package var isAtEnd: Bool { index == bytes.count }

        package mutating func byte() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        package mutating func uint32() -> UInt32? {
            guard let field = take(4) else { return nil }
            return field.reduce(0) { $0 << 8 | UInt32($1) }
        }

        /// A field of bytes after its 4-byte length, where it lies.
        private mutating func lengthPrefixed() -> ArraySlice<UInt8>? {
            guard let count = uint32() else { return nil }
            return take(Int(count))
        }

        package mutating func byteString() -> [UInt8]? { lengthPrefixed().map(Array.init) }

        package mutating func string() -> String? {
            // Checked on the field's bytes where they lie, without an array of them first.
            lengthPrefixed()?.withUnsafeBufferPointer { String(utf8Checking: $0) }
        }

        package mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count - index >= count else { return nil }
            defer { index += count }
            return bytes[index..<index + count]
        }
    }
}

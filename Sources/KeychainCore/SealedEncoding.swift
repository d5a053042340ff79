import ExtrasBase64
import KeychainCrypto
import KeychainJSON

/// The stored form of what the barrier seals besides secrets — an item's attributes, a token's
/// description — independent of the wire format.
///
/// Version 1 (the first byte): fields one after another, each string or byte string preceded by
/// its length as a 32-bit big-endian integer. Version 0, written by keychaind before this
/// encoding existed, was a JSON object (its first byte `{`); it is still read, and an item
/// written so moves to version 1 at its next update.
enum SealedEncoding {
    static let version: UInt8 = 1
    static let legacyJSON = UInt8(ascii: "{")

    /// Appends fields in version 1.
    struct Writer {
        private(set) var bytes: [UInt8] = [SealedEncoding.version]

        mutating func append(_ string: String) { append(bytes: Array(string.utf8)) }

        mutating func append(bytes field: [UInt8]) {
            append(UInt32(field.count))
            bytes.append(contentsOf: field)
        }

        mutating func append(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }

        mutating func append(byte: UInt8) { bytes.append(byte) }

        /// Zeroes what was written (it may hold secrets: a migration bundle's batch).
        mutating func wipe() { Sodium.wipe(&bytes) }

        /// Makes room for `count` bytes at once: bytes that hold secrets are not copied by growth.
        mutating func reserveCapacity(_ count: Int) { bytes.reserveCapacity(count) }

        /// Overwrites the 4 bytes at `offset`, written before, with `value` (a count known last).
        mutating func set(_ value: UInt32, at offset: Int) {
            withUnsafeBytes(of: value.bigEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
        }

        mutating func append(_ value: AttributeValue) {
            switch value {
            case .string(let s):
                bytes.append(0x73)
                append(s)
            case .bytes(let b):
                bytes.append(0x62)
                append(bytes: b)
            case .int(let i):
                bytes.append(0x69)
                withUnsafeBytes(of: i.bigEndian) { bytes.append(contentsOf: $0) }
            case .bool(let b):
                bytes.append(0x74)
                bytes.append(b ? 1 : 0)
            }
        }
    }

    /// Reads version-1 fields; every read fails (`nil`) past the end.
    struct Reader {
        private let bytes: [UInt8]
        private var index = 1

        /// `nil` unless `bytes` is in version 1.
        init?(_ bytes: [UInt8]) {
            guard bytes.first == SealedEncoding.version else { return nil }
            self.bytes = bytes
        }

        var isAtEnd: Bool { index == bytes.count }

        mutating func byte() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func uint32() -> UInt32? {
            guard let field = take(4) else { return nil }
            return field.reduce(0) { $0 << 8 | UInt32($1) }
        }

        /// A field of bytes after its 4-byte length, where it lies.
        private mutating func lengthPrefixed() -> ArraySlice<UInt8>? {
            guard let count = uint32() else { return nil }
            return take(Int(count))
        }

        mutating func byteString() -> [UInt8]? { lengthPrefixed().map(Array.init) }

        mutating func string() -> String? {
            // Checked on the field's bytes where they lie, without an array of them first.
            lengthPrefixed()?.withUnsafeBufferPointer { String(utf8Checking: $0) }
        }

        mutating func value() -> AttributeValue? {
            switch byte() {
            case 0x73: string().map(AttributeValue.string)
            case 0x62: byteString().map(AttributeValue.bytes)
            case 0x69: take(8).map { .int(Int64(bitPattern: $0.reduce(0) { $0 << 8 | UInt64($1) })) }
            case 0x74: byte().flatMap { $0 <= 1 ? .bool($0 == 1) : nil }
            default: nil
            }
        }

        private mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count - index >= count else { return nil }
            defer { index += count }
            return bytes[index..<index + count]
        }
    }
}

/// An item's sealed attributes: its access group and every attribute but those kept in its row.
public enum SealedAttributes {
    public static func encode(group: String, attributes: [(key: SchemaKey, value: AttributeValue)]) -> [UInt8] {
        var writer = SealedEncoding.Writer()
        writer.append(group)
        writer.append(UInt32(attributes.count))
        for (key, value) in attributes {
            writer.append(key.name)
            writer.append(value)
        }
        return writer.bytes
    }

    /// `nil` when the bytes are in neither version, or name an attribute this build lacks.
    public static func decode(_ bytes: [UInt8]) -> (group: String, attributes: [(key: SchemaKey, value: AttributeValue)])? {
        if bytes.first == SealedEncoding.legacyJSON { return decodeVersion0(bytes) }
        guard var reader = SealedEncoding.Reader(bytes), let group = reader.string(), let count = reader.uint32() else {
            return nil
        }
        var attributes: [(key: SchemaKey, value: AttributeValue)] = []
        for _ in 0..<count {
            guard let name = reader.string(), let key = Schema.key(canonical: name), key.role == .attribute,
                let value = reader.value(), key.type.holds(value)
            else { return nil }
            attributes.append((key, value))
        }
        return reader.isAtEnd ? (group, attributes) : nil
    }

    /// Whether the attributes hold each of `exact`'s values, compared on the bytes where they
    /// lie (this runs for every item an exact search selects); `nil` when the bytes are not in
    /// version 1 or end early (`decode` then says why).
    public static func hold(_ bytes: [UInt8], _ exact: ExactValues) -> Bool? {
        bytes.withUnsafeBufferPointer { buffer -> Bool? in
            var index = 1
            func length() -> Int? {
                guard buffer.count - index >= 4 else { return nil }
                defer { index += 4 }
                return (0..<4).reduce(0) { $0 << 8 | Int(buffer[index + $1]) }
            }
            /// The next field's bytes after its length.
            func field() -> UnsafeBufferPointer<UInt8>? {
                guard let count = length(), buffer.count - index >= count else { return nil }
                defer { index += count }
                return UnsafeBufferPointer(rebasing: buffer[index..<index + count])
            }
            func equal(_ field: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
                var text = text
                return text.withUTF8 { $0.count == field.count && $0.elementsEqual(field) }
            }
            guard buffer.first == SealedEncoding.version, field() != nil, let count = length() else { return nil }
            var found = 0
            for _ in 0..<count {
                guard let name = field(), index < buffer.count else { return nil }
                let tag = buffer[index]
                index += 1
                switch tag {
                case 0x73:
                    guard let value = field() else { return nil }
                    for wanted in exact.values where equal(name, wanted.key.name) && equal(value, wanted.value) { found += 1 }
                case 0x62: guard field() != nil else { return nil }
                case 0x69, 0x74:
                    let size = tag == 0x69 ? 8 : 1
                    guard buffer.count - index >= size else { return nil }
                    index += size
                default: return nil
                }
            }
            return index == buffer.count ? found == exact.values.count : nil
        }
    }

    /// Version 0: a JSON object of the access group and each attribute as answers showed it.
    private static func decodeVersion0(_ bytes: [UInt8])
        -> (group: String, attributes: [(key: SchemaKey, value: AttributeValue)])?
    {
        guard case .object(let object)? = try? JSON.parse(bytes), case .string(let group)? = object["accessGroup"] else {
            return nil
        }
        var attributes: [(key: SchemaKey, value: AttributeValue)] = []
        for (name, json) in object where name != "accessGroup" {
            guard let key = Schema.key(canonical: name), key.role == .attribute else { return nil }
            let value: AttributeValue? =
                switch (key.type, json) {
                case (.bytes, .string(let text)): Base64.decodeCanonical(text).map(AttributeValue.bytes)
                case (.string, .string(let text)), (.enumeration, .string(let text)): .string(text)
                case (.bool, .bool(let b)): .bool(b)
                case (.fourCharCode, _), (.integer, _): json.intValue.map(AttributeValue.int)
                default: nil
                }
            guard let value else { return nil }
            attributes.append((key, value))
        }
        return (group, attributes)
    }
}

extension ValueType {
    /// Whether `value` has the form this type's values take.
    func holds(_ value: AttributeValue) -> Bool {
        switch (self, value) {
        case (.enumeration(let enumeration), .int): enumeration.fourCharCodes
        case (.string, .string), (.enumeration, .string), (.bytes, .bytes), (.bool, .bool),
            (.fourCharCode, .int), (.integer, .int), (.date, .int):
            true
        default:
            false
        }
    }
}

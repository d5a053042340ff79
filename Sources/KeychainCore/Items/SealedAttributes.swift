import ExtrasBase64
import KeychainBarrier
import KeychainCrypto
import KeychainJSON

/// An item's sealed attributes: its access group and every attribute but those kept in its row.
public enum SealedAttributes {
    /// The group, the attributes, then the access object when the item has one: its JSON form,
    /// after the field name `access`.
    public static func encode(
        group: String, attributes: [(key: SchemaKey, value: AttributeValue)], access: AccessObject? = nil
    ) -> [UInt8] {
        var writer = SealedEncoding.Writer()
        writer.append(group)
        writer.append(UInt32(attributes.count))
        for (key, value) in attributes {
            writer.append(key.name)
            writer.append(value)
        }
        if let access {
            writer.append(Self.accessField)
            writer.append(bytes: access.json.serialized())
        }
        return writer.bytes
    }

    private static let accessField = "access"

    /// `nil` when the bytes are in neither version, or name an attribute this build lacks.
    public static func decode(_ bytes: [UInt8]) -> (
        group: String, attributes: [(key: SchemaKey, value: AttributeValue)], access: AccessObject?
    )? {
        if bytes.first == SealedEncoding.legacyJSON { return decodeVersion0(bytes).map { ($0.group, $0.attributes, nil) } }
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
        if reader.isAtEnd { return (group, attributes, nil) }
        guard reader.string() == Self.accessField, let text = reader.string(), reader.isAtEnd,
            let json = try? JSON.parse(Array(text.utf8)), let access = try? AccessObject(json: json)
        else { return nil }
        return (group, attributes, access)
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

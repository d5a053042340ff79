import KeychainBarrier

/// Attribute values in the sealed encoding: a tag byte (`s`, `b`, `i`, `t`), then the value.
extension SealedEncoding.Writer {
    mutating func append(_ value: AttributeValue) {
        switch value {
        case .string(let s):
            append(byte: 0x73)
            append(s)
        case .bytes(let b):
            append(byte: 0x62)
            append(bytes: b)
        case .int(let i):
            append(byte: 0x69)
            append(i)
        case .bool(let b):
            append(byte: 0x74)
            append(byte: b ? 1 : 0)
        }
    }
}

extension SealedEncoding.Reader {
    mutating func value() -> AttributeValue? {
        switch byte() {
        case 0x73: string().map(AttributeValue.string)
        case 0x62: byteString().map(AttributeValue.bytes)
        case 0x69: take(8).map { .int(Int64(bitPattern: $0.reduce(0) { $0 << 8 | UInt64($1) })) }
        case 0x74: byte().flatMap { $0 <= 1 ? .bool($0 == 1) : nil }
        default: nil
        }
    }
}

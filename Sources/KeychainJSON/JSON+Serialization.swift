extension JSON {
    /// Compact UTF-8 serialization.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return out
    }

    public func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): out.append(contentsOf: (d.isFinite ? "\(d)" : "null").utf8)
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for n in a.indices {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                a[n].write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            // By index: binding each (key, value) entry would copy it, a retain and release each.
            for n in o.entries.indices {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(o.entries[n].key, into: &out)
                out.append(UInt8(ascii: ":"))
                o.entries[n].value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a JSON string (quoted, escaped): for lines written as bytes without
    /// building a `JSON` value first.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        writeString(s, into: &out)
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (names, base64, refs) need no escape: copied in one go.
        let copied = s.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: needsEscape) else {
                return false
            }
            out.appendBytes(bytes)
            return true
        }
        if copied == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for b in s.utf8 { escape(b) { out.append($0) } }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSON {
    /// Hands `emit` the bytes a JSON string writes for `byte`: itself, or its escape (`\"`,
    /// `\\`, `\n`, `\r`, `\t`, `\u00XX` for another control byte). At most six.
    @inline(__always)
    static func escape(_ byte: UInt8, _ emit: (UInt8) -> Void) {
        let pair: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): pair = byte
        case 0x0A: pair = UInt8(ascii: "n")
        case 0x0D: pair = UInt8(ascii: "r")
        case 0x09: pair = UInt8(ascii: "t")
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            emit(0x5C)
            emit(UInt8(ascii: "u"))
            emit(UInt8(ascii: "0"))
            emit(UInt8(ascii: "0"))
            emit(hex.utf8Start[Int(byte >> 4)])
            emit(hex.utf8Start[Int(byte & 0xF)])
            return
        default:
            emit(byte)
            return
        }
        emit(0x5C)
        emit(pair)
    }
}

extension [UInt8] {
    /// Appends a literal's UTF-8 bytes (a `String`'s `utf8` view is walked).
    @inlinable
    public mutating func appendLiteral(_ literal: StaticString) {
        guard literal.hasPointerRepresentation else { return literal.withUTF8Buffer { append(contentsOf: $0) } }
        appendBytes(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends `bytes` with one copy into room made once: cheaper, for the few bytes of a name
    /// or a literal, than `append(contentsOf:)` (docs/performance.md#bytes-appended-with-one-copy).
    @inlinable
    public mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        append(addingCapacity: bytes.count) { out in
            out.withUnsafeMutableBufferPointer { room, initialized in
                room.baseAddress!.initialize(from: source, count: bytes.count)
                initialized = bytes.count
            }
        }
    }
}

/// Base64 (RFC 4648) without Foundation: this sits on the search path of every request.
///
/// Encoding writes the standard alphabet with padding, or the URL-safe one without (for
/// persistent references, which appear in paths). Decoding accepts both alphabets, with or
/// without padding, and nothing else (no whitespace).
public enum Base64 {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let decoding: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in standard.enumerated() { table[Int(c)] = UInt8(i) }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String { encode(bytes, alphabet: standard, pad: true) }

    /// URL-safe, unpadded.
    public static func encodeURLSafe(_ bytes: [UInt8]) -> String { encode(bytes, alphabet: urlSafe, pad: false) }

    /// Appends the encoding of `bytes` to `out`: the bytes of `encode`, or of `encodeURLSafe`.
    static func append(_ bytes: [UInt8], urlSafe: Bool = false, to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: encodedLength(bytes.count, pad: !urlSafe)))
        out.withUnsafeMutableBufferPointer { buffer in
            _ = write(
                bytes, alphabet: urlSafe ? Self.urlSafe : standard, pad: !urlSafe,
                into: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
    }

    private static func encode(_ bytes: [UInt8], alphabet: [UInt8], pad: Bool) -> String {
        String(unsafeUninitializedCapacity: encodedLength(bytes.count, pad: pad)) { out in
            write(bytes, alphabet: alphabet, pad: pad, into: out)
        }
    }

    private static func encodedLength(_ count: Int, pad: Bool) -> Int {
        let rest = count % 3
        return count / 3 * 4 + (rest == 0 ? 0 : (pad ? 4 : rest + 1))
    }

    /// Writes the encoding at the start of `out` (at least `encodedLength` bytes); returns its length.
    private static func write(
        _ bytes: [UInt8], alphabet: [UInt8], pad: Bool, into out: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        // Through raw pointers: checked indexing costs more than the encoding itself.
        bytes.withUnsafeBufferPointer { input in
            alphabet.withUnsafeBufferPointer { table in
                guard let i = input.baseAddress, let o = out.baseAddress, let a = table.baseAddress else { return 0 }
                precondition(out.count >= encodedLength(input.count, pad: pad) && table.count == 64)
                let rest = input.count % 3
                var n = 0
                var w = 0
                while n + 3 <= input.count {
                    let v = UInt32(i[n]) << 16 | UInt32(i[n + 1]) << 8 | UInt32(i[n + 2])
                    o[w] = a[Int(v >> 18)]
                    o[w + 1] = a[Int(v >> 12 & 63)]
                    o[w + 2] = a[Int(v >> 6 & 63)]
                    o[w + 3] = a[Int(v & 63)]
                    n += 3
                    w += 4
                }
                if rest > 0 {
                    let v = UInt32(i[n]) << 16 | (rest == 2 ? UInt32(i[n + 1]) << 8 : 0)
                    o[w] = a[Int(v >> 18)]
                    o[w + 1] = a[Int(v >> 12 & 63)]
                    w += 2
                    if rest == 2 {
                        o[w] = a[Int(v >> 6 & 63)]
                        w += 1
                    } else if pad {
                        o[w] = UInt8(ascii: "=")
                        w += 1
                    }
                    if pad {
                        o[w] = UInt8(ascii: "=")
                        w += 1
                    }
                }
                return w
            }
        }
    }

    /// The decoded bytes, or `nil` for anything that is not base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var input = Array(text.utf8)
        if input.count % 4 == 0, input.last == UInt8(ascii: "=") {
            input.removeLast()
            if input.last == UInt8(ascii: "=") { input.removeLast() }
        }
        guard input.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in input {
            let v = decoding[Int(c)]
            guard v != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero (canonical encoding).
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}

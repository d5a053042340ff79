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

    private static func encode(_ bytes: [UInt8], alphabet: [UInt8], pad: Bool) -> String {
        let full = bytes.count / 3
        let rest = bytes.count % 3
        let length = full * 4 + (rest == 0 ? 0 : (pad ? 4 : rest + 1))
        return String(unsafeUninitializedCapacity: length) { out in
            var o = 0
            var i = 0
            while i + 3 <= bytes.count {
                let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                out[o] = alphabet[Int(v >> 18)]
                out[o + 1] = alphabet[Int(v >> 12 & 63)]
                out[o + 2] = alphabet[Int(v >> 6 & 63)]
                out[o + 3] = alphabet[Int(v & 63)]
                i += 3
                o += 4
            }
            if rest > 0 {
                let v = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                out[o] = alphabet[Int(v >> 18)]
                out[o + 1] = alphabet[Int(v >> 12 & 63)]
                o += 2
                if rest == 2 {
                    out[o] = alphabet[Int(v >> 6 & 63)]
                    o += 1
                } else if pad {
                    out[o] = UInt8(ascii: "=")
                    o += 1
                }
                if pad {
                    out[o] = UInt8(ascii: "=")
                    o += 1
                }
            }
            return o
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

/// Client-supplied text made safe for a log line: bounded, and printable.
///
/// A method, a header name or an `X-Forwarded-For` hop comes from the network; written raw, an
/// ESC sequence would drive the operator's terminal, a CR or LF forge a line, a space forge a
/// field of a `key=value` line, and 5,000 bytes bury the line. So every byte outside visible
/// ASCII (and `\` itself) is written `\xHH`, and past `maxBytes` bytes of input the rest is
/// replaced by a marker saying how many bytes were cut.
public enum LogText {
    /// The method's bound: longer than any registered method (`UPDATEREDIRECTREF`, 17 bytes).
    public static let maxMethodBytes = 32

    /// The bound for an address (an IPv6 literal is at most 45 bytes).
    public static let maxAddressBytes = 64

    /// `text` sanitized and bounded; itself when it has nothing to escape or cut.
    public static func sanitized(_ text: String, maxBytes: Int) -> String {
        if text.utf8.count <= maxBytes, text.utf8.allSatisfy(isPlain) { return text }
        var text = text
        return text.withUTF8 { sanitized($0, maxBytes: maxBytes) }
    }

    /// The bytes sanitized and bounded.
    public static func sanitized(_ bytes: UnsafeBufferPointer<UInt8>, maxBytes: Int) -> String {
        let kept = bytes.prefix(maxBytes)
        if kept.count == bytes.count, kept.allSatisfy(isPlain) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out = ""
        out.reserveCapacity(kept.count + 16)
        for byte in kept {
            if isPlain(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x"
                out += hex(byte >> 4)
                out += hex(byte & 0x0F)
            }
        }
        if kept.count < bytes.count { out += "…[\(bytes.count - kept.count) bytes cut]" }
        return out
    }

    /// Appends `text` sanitized and bounded to a line being built as bytes.
    public static func append(_ text: String, maxBytes: Int, to line: inout [UInt8]) {
        // On the string's contiguous bytes: walking its UTF8View cost several times more (this
        // runs twice for every access line).
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count <= maxBytes, bytes.allSatisfy(isPlain) else { return false }
            line.append(contentsOf: bytes)
            return true
        }
        if plain != true { line.append(contentsOf: sanitized(text, maxBytes: maxBytes).utf8) }
    }

    private static func isPlain(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") }

    private static func hex(_ nibble: UInt8) -> String { String(nibble, radix: 16, uppercase: true) }
}

/// RFC 7468 text: the `-----BEGIN LABEL-----` blocks operators keep certificates and keys in,
/// read into their DER and written back.
///
/// The parser is this module's own Swift, not OpenSSL's `PEM_read_bio`: one pass over the
/// input, each byte looked at a bounded number of times (linear in the input, which a client
/// sends), with the input and the number of blocks bounded (`maxBytes`, `maxBlocks`). It reads
/// what `PEM_read_bio` reads: text outside blocks is ignored, a BEGIN line must start its line,
/// body lines may carry blanks and CR, and the END line must name the BEGIN line's label.
/// Unlike OpenSSL it refuses RFC 1421 headers (`Proc-Type`, `DEK-Info`), which only the
/// legacy encrypted key formats use.
public enum PEM {
    /// The most bytes a PEM text may have: a certificate chain of a few dozen certificates is
    /// well under 100 KiB.
    public static let maxBytes = 1024 * 1024
    /// The most blocks one text may hold.
    public static let maxBlocks = 64

    /// One `-----BEGIN LABEL-----` … `-----END LABEL-----` block: its label and decoded body.
    public struct Block: Sendable, Equatable, CustomStringConvertible {
        /// The label, as the BEGIN and END lines name it: `CERTIFICATE`, `PRIVATE KEY`, ….
        public let label: String
        /// The base64 body, decoded (the DER of a certificate or a key).
        public let der: [UInt8]

        public init(label: String, der: [UInt8]) {
            self.label = label
            self.der = der
        }

        /// The label and the length, never the bytes (a block may hold a private key).
        public var description: String { "PEM.Block(\(label), \(der.count) bytes)" }
    }

    /// Every block of `text`, in order.
    ///
    /// Throws `.malformed` for a text without any block, over `maxBytes` or `maxBlocks`, a block
    /// without its END line, an END line naming another label, a header line, or a body that
    /// is not padded base64.
    public static func decode(_ text: [UInt8]) throws(CertificateError) -> [Block] {
        guard text.count <= maxBytes else { throw .malformed("more than \(maxBytes) bytes of PEM text") }
        var blocks: [Block] = []
        // The open block's label (nil outside a block) and its body so far, decoded line by line.
        var label: String?
        var body = Base64Decoder()
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count, text[end] != UInt8(ascii: "\n") { end += 1 }
            let next = end + 1
            while end > start, Self.isBlank(text[end - 1]) { end -= 1 }
            let line = start..<end
            start = next
            guard let open = label else {
                if let begun = Self.label(of: text, line, prefix: Self.begin) {
                    guard blocks.count < maxBlocks else { throw .malformed("more than \(maxBlocks) PEM blocks") }
                    label = begun
                    body = Base64Decoder()
                }
                continue
            }
            if let ended = Self.label(of: text, line, prefix: Self.end) {
                guard ended == open else { throw .malformed("a PEM block whose END line names another label") }
                guard let der = body.finish() else { throw .malformed("a PEM block whose body is not padded base64") }
                blocks.append(Block(label: open, der: der))
                label = nil
                continue
            }
            if Self.label(of: text, line, prefix: Self.begin) != nil {
                throw .malformed("a PEM block without its END line")
            }
            for index in line where !Self.isBlank(text[index]) {
                let byte = text[index]
                if byte == UInt8(ascii: ":") {
                    throw .malformed("a PEM header line (Proc-Type, DEK-Info): encrypted traditional keys are not accepted")
                }
                guard body.append(byte) else { throw .malformed("a PEM block whose body is not base64") }
            }
        }
        guard label == nil else { throw .malformed("a PEM block without its END line") }
        guard !blocks.isEmpty else { throw .malformed("no PEM block (-----BEGIN …-----)") }
        return blocks
    }

    /// `der` as RFC 7468 text under `label`: base64 in lines of 64 characters, each line and
    /// the END line ending with a newline (LF).
    public static func encode(label: String, der: [UInt8]) -> [UInt8] {
        let characters = Base64Encoder.encode(der)
        var out: [UInt8] = []
        out.reserveCapacity(characters.count + characters.count / 64 + 2 * label.utf8.count + 40)
        out += Self.begin + Array(label.utf8) + Self.dashes + [UInt8(ascii: "\n")]
        var index = 0
        while index < characters.count {
            let lineEnd = min(index + 64, characters.count)
            out += characters[index..<lineEnd]
            out.append(UInt8(ascii: "\n"))
            index = lineEnd
        }
        out += Self.end + Array(label.utf8) + Self.dashes + [UInt8(ascii: "\n")]
        return out
    }

    // MARK: Lines

    private static let begin = Array("-----BEGIN ".utf8)
    private static let end = Array("-----END ".utf8)
    private static let dashes = Array("-----".utf8)

    /// Blanks a body line may carry (and a line may end with): space, tab, CR, VT, FF.
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// The label of `line` when it is `prefix` (`-----BEGIN ` or `-----END `), a label of
    /// printable ASCII, then `-----`; nil for any other line.
    private static func label(of text: [UInt8], _ line: Range<Int>, prefix: [UInt8]) -> String? {
        guard line.count >= prefix.count + dashes.count else { return nil }
        let labelStart = line.lowerBound + prefix.count
        let labelEnd = line.upperBound - dashes.count
        guard text[line.lowerBound..<labelStart].elementsEqual(prefix), text[labelEnd..<line.upperBound].elementsEqual(dashes),
            text[labelStart..<labelEnd].allSatisfy({ (0x20...0x7E).contains($0) })
        else { return nil }
        return String(decoding: text[labelStart..<labelEnd], as: UTF8.self)
    }
}

/// RFC 4648 base64 (the standard alphabet, `=` padding) decoded one character at a time, so a
/// PEM body is decoded as its lines are read, without a second buffer of its characters.
struct Base64Decoder {
    private(set) var bytes: [UInt8] = []
    /// The data characters of the current group of four, six bits each, and how many there are.
    private var group: UInt32 = 0
    private var count = 0
    /// The `=` characters of the current group.
    private var padding = 0
    /// Whether a padded group ended the data: nothing may follow it.
    private var isClosed = false

    /// Appends one character; false when it is not base64, or comes where it may not.
    mutating func append(_ character: UInt8) -> Bool {
        guard !isClosed else { return false }
        if character == UInt8(ascii: "=") {
            // Padding ends a group of which two or three characters are data: `xx==` or `xxx=`.
            guard count >= 2 else { return false }
            padding += 1
            if count + padding == 4 { flush() }
            return true
        }
        guard padding == 0, let value = Self.value(of: character) else { return false }
        group = group << 6 | UInt32(value)
        count += 1
        if count == 4 { flush() }
        return true
    }

    /// The decoded bytes; nil when the last group is incomplete.
    func finish() -> [UInt8]? {
        guard count == 0, padding == 0 else { return nil }
        return bytes
    }

    private mutating func flush() {
        switch count {
        case 4:
            bytes.append(UInt8(truncatingIfNeeded: group >> 16))
            bytes.append(UInt8(truncatingIfNeeded: group >> 8))
            bytes.append(UInt8(truncatingIfNeeded: group))
        case 3:
            // 18 bits: two bytes, then two bits of padding.
            bytes.append(UInt8(truncatingIfNeeded: group >> 10))
            bytes.append(UInt8(truncatingIfNeeded: group >> 2))
            isClosed = true
        default:
            // 12 bits: one byte, then four bits of padding.
            bytes.append(UInt8(truncatingIfNeeded: group >> 4))
            isClosed = true
        }
        group = 0
        count = 0
        padding = 0
    }

    private static func value(of character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}

/// RFC 4648 base64 with `=` padding, as the characters' bytes.
enum Base64Encoder {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 0x3F)])
            out.append(alphabet[Int(group >> 12 & 0x3F)])
            out.append(remaining > 1 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            out.append(remaining > 2 ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return out
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The checks of a request head that need its bytes as received: what libmicrohttpd 0.9.75
/// accepts but a proxy in front may read differently (RFC 9112 §2.2, §3, §5).
///
/// libmicrohttpd 0.9.75 parses a head in place, in one buffer of the connection's memory pool:
/// it writes a NUL over the space after the method, over the space before the version, over
/// each line's CR and LF and over each header's colon, and hands out pointers into that buffer.
/// What it hands out loses things:
/// - header values are C strings, and the `_n` sizes are their `strlen`: a NUL inside a value
///   silently cuts it there (`X: a\0b` reads as `X: a`);
/// - a method is the bytes before the first space: `GET\0 /` reads as `GET`;
/// - whitespace before a colon stays in the name (`Transfer-Encoding : chunked` is another
///   header), control bytes are kept in names and a bare CR in values;
/// - an obs-folded line (one starting with a space or tab) is appended to the previous field's
///   NAME, in a block of its own (`process_broken_line`): `Transfer-Encoding:` folded onto
///   ` chunked` becomes a field named `Transfer-Encodingchunked`.
///
/// So the head's buffer (`MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE` bytes from the method) is
/// walked against the fields libmicrohttpd reports, in order: each must start where the previous
/// line's CRLF ended, and the head must end right after the last one's CRLF and the empty line.
/// Every byte that the reported fields do not account for is a refusal. Should a later
/// libmicrohttpd parse elsewhere, every request fails here: loudly, never silently.
struct HeadSyntax {
    private let base: UnsafePointer<UInt8>
    private let size: Int
    /// Where the next field line must start, from `base`.
    private var cursor = 0
    /// The first thing found wrong.
    private(set) var refusal: HTTPTransportError?

    /// Checks the request line: `method SP request-target SP HTTP-version CRLF`, with a token
    /// for a method and visible ASCII for a target.
    ///
    /// - Parameters:
    ///   - method, url, version: the access handler's pointers (the start of the head, the
    ///     decoded path, the version).
    ///   - target: the target as the request-line callback copied it.
    ///   - headSize: the head's length in bytes; more than `maxHeadBytes` is refused unread.
    init(
        method: UnsafePointer<CChar>, url: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, target: RequestTarget?,
        headSize: Int, maxHeadBytes: Int
    ) {
        base = UnsafeRawPointer(method).assumingMemoryBound(to: UInt8.self)
        size = headSize > 0 && headSize <= maxHeadBytes ? headSize : 0
        let methodCount = strlen(method)
        guard methodCount > 0, Self.allTokenBytes(base, count: methodCount) else {
            refusal = .malformedHead(field: "method", reason: "not an RFC 9110 token")
            return
        }
        guard let target, let urlOffset = url.flatMap(offset(of:)), let versionOffset = version.flatMap(offset(of:)) else {
            refusal = .malformedHead(field: "request-line", reason: "not method SP request-target SP HTTP-version")
            return
        }
        guard urlOffset == methodCount + 1 else {
            let spaces = (methodCount + 1..<urlOffset).allSatisfy { base[$0] == UInt8(ascii: " ") }
            refusal =
                spaces
                ? .malformedHead(field: "request-line", reason: "more than one space after the method")
                : .malformedHead(field: "method", reason: "holds a NUL")
            return
        }
        guard target.isVisibleASCII else {
            refusal = .malformedHead(field: "request-target", reason: "holds a space, a control byte or a byte outside ASCII")
            return
        }
        guard versionOffset == urlOffset + target.count + 1 else {
            refusal = .malformedHead(field: "request-target", reason: "holds a NUL")
            return
        }
        let end = versionOffset + strlen(version!)
        guard endsLine(at: end) else {
            refusal = .malformedHead(field: "request-line", reason: "not ended by CRLF")
            return
        }
        cursor = end + 2
    }

    /// Checks the next field libmicrohttpd reports (`MHD_HEADER_KIND`, in the order received).
    mutating func field(name: UnsafePointer<CChar>?, nameCount: Int, value: UnsafePointer<CChar>?, valueCount: Int) {
        guard refusal == nil else { return }
        guard let nameOffset = name.flatMap(offset(of:)), nameOffset == cursor else {
            refusal = .malformedHead(field: "header", reason: "a field line continued on the next (obs-fold)")
            return
        }
        guard nameCount > 0, nameOffset + nameCount < size, Self.allTokenBytes(base + nameOffset, count: nameCount) else {
            let shown = LogText.sanitized(
                UnsafeBufferPointer(start: base + nameOffset, count: min(nameCount, size - nameOffset)), maxBytes: 32)
            refusal = .malformedHead(field: "header", reason: "name \"\(shown)\" is not an RFC 9110 token")
            return
        }
        guard let valueOffset = value.flatMap(offset(of:)), valueOffset > nameOffset + nameCount,
            valueOffset + valueCount <= size,
            (nameOffset + nameCount + 1..<valueOffset).allSatisfy({ base[$0] == UInt8(ascii: " ") || base[$0] == 0x09 })
        else {
            refusal = .malformedHead(field: "header", reason: "\(text(at: nameOffset, count: nameCount)) is not name: value")
            return
        }
        guard Self.allValueBytes(base + valueOffset, count: valueCount) else {
            refusal = .malformedHead(
                field: "header",
                reason: "the value of \(text(at: nameOffset, count: nameCount)) holds a control byte (a bare CR, …)")
            return
        }
        guard endsLine(at: valueOffset + valueCount) else {
            refusal = .malformedHead(
                field: "header",
                reason: "the value of \(text(at: nameOffset, count: nameCount)) holds a NUL, or its line does not end with CRLF")
            return
        }
        cursor = valueOffset + valueCount + 2
    }

    /// The verdict, once every field was checked: the empty line must end the head.
    func verdict() -> HTTPTransportError? {
        if let refusal { return refusal }
        guard endsLine(at: cursor), cursor + 2 == size else {
            return .malformedHead(
                field: "header", reason: "the last field holds a NUL, or the head does not end with an empty line")
        }
        return nil
    }

    /// A checked token's bytes, for a refusal's reason (only then: this runs for every field).
    private func text(at offset: Int, count: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: base + offset, count: count), as: UTF8.self)
    }

    /// Whether `offset` and the byte after it are the NULs libmicrohttpd wrote over a CRLF.
    private func endsLine(at offset: Int) -> Bool {
        offset >= 0 && offset + 1 < size && base[offset] == 0 && base[offset + 1] == 0
    }

    /// Where `pointer` lies in the head, or `nil` when outside it.
    private func offset(of pointer: UnsafePointer<CChar>) -> Int? {
        let distance = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(pointer))
        return distance >= 0 && distance < size ? distance : nil
    }

    /// RFC 9110 §5.6.2 `tchar`: `!#$%&'*+-.^_`|~`, digits and letters, as a bit per ASCII byte
    /// (this runs for every byte of every header name: a walk of the punctuation's UTF-8 view
    /// cost more than the rest of the check).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        // Bytes 0-63: `!#$%&'*+-.` and the digits; bytes 64-127: the letters and `^_`|~`.
        let low: UInt64 = 0x03FF_6CFA_0000_0000
        let high: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        switch byte {
        case 0..<64: return low >> UInt64(byte) & 1 == 1
        case 64..<128: return high >> UInt64(byte - 64) & 1 == 1
        default: return false
        }
    }

    /// RFC 9110 §5.5 `field-content` bytes: visible ASCII, space, tab and obs-text.
    static func isValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    /// Whether the `count` bytes at `start` are all `tchar`s.
    static func allTokenBytes(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
        for n in 0..<count where !isTokenByte(start[n]) { return false }
        return true
    }

    /// The high bit of each of a word's eight bytes.
    static let highBits: UInt64 = 0x8080_8080_8080_8080
    private static let ones: UInt64 = 0x0101_0101_0101_0101

    /// Nonzero when a byte of `word` is below `limit` (at most 0x80; bytes with the high bit set
    /// are not counted): exact for "any", as a borrow only follows a byte that is one.
    @inline(__always)
    static func bytes(below limit: UInt8, in word: UInt64) -> UInt64 {
        (word &- ones &* UInt64(limit)) & ~word & highBits
    }

    /// Nonzero when a byte of `word` is a DEL (0x7F): a zero byte of the word XORed with 0x7F
    /// in each byte.
    @inline(__always)
    static func deletes(in word: UInt64) -> UInt64 {
        let flipped = word ^ (ones &* 0x7F)
        return (flipped &- ones) & ~flipped & highBits
    }

    /// Whether the `count` bytes at `start` are all `isValueByte`, eight at a time: a word is
    /// looked at byte by byte only when it holds a byte below 0x20 (a tab, or a refusal) or a
    /// DEL. (This runs over every header value, the bearer token's among them: a closure per
    /// byte cost more than a third of the head's checks.)
    static func allValueBytes(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
        var n = 0
        while n + 8 <= count {
            let word = UnsafeRawPointer(start + n).loadUnaligned(as: UInt64.self)
            if bytes(below: 0x20, in: word) | deletes(in: word) != 0 {
                for m in n..<n + 8 where !isValueByte(start[m]) { return false }
            }
            n += 8
        }
        for m in n..<count where !isValueByte(start[m]) { return false }
        return true
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The request target as the client sent it, captured when its request line is complete.
///
/// libmicrohttpd 0.9.75 hands the application only the path it has percent-decoded in place
/// (`/v1/keychain%2flock` becomes `/v1/keychain/lock`, and a decoded `%00` ends it), which is
/// not what a proxy in front routes on. Its request-line callback (`MHD_OPTION_URI_LOG_CALLBACK`,
/// "called before we modify URI *or* args") sees the target as sent; its return value becomes
/// the request's `*con_cls`, so the access handler's first call finds this object there.
///
/// It is also the one place that runs before libmicrohttpd splits the query: the library
/// stores every query parameter as a record in the connection's memory pool
/// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`) and ignores running out of it there
/// (`parse_initial_message_line` drops `MHD_parse_arguments_`'s failure), after which the
/// connection hangs unanswered (with a 32 KiB pool, about 500 parameters). So a target
/// over the limits is refused here, and its query is hidden from the library (see `capture`).
final class RequestTarget: Sendable {
    /// The path as sent: the target up to its `?`.
    let rawPath: String
    /// The target's length in bytes, as sent (path and query).
    let count: Int
    /// Whether the target has bytes and each is visible ASCII (no space, control byte or byte
    /// outside ASCII), as `HeadSyntax` requires.
    let isVisibleASCII: Bool
    /// A 414 when the target is over a limit (its query then hidden from libmicrohttpd, so the
    /// head is refused before anything else in it is looked at), or `nil`.
    let overLimit: HTTPTransportError?
    /// A 400 for a path this server would read differently from a proxy, or `nil`.
    let pathRefusal: HTTPTransportError?

    private init(
        rawPath: String, count: Int, isVisibleASCII: Bool, overLimit: HTTPTransportError?, pathRefusal: HTTPTransportError?
    ) {
        self.rawPath = rawPath
        self.count = count
        self.isVisibleASCII = isVisibleASCII
        self.overLimit = overLimit
        self.pathRefusal = pathRefusal
    }

    /// Reads the target libmicrohttpd hands its request-line callback (NUL-terminated, still
    /// undecoded) where it lies, keeps what the request needs of it (the path as sent, the
    /// target's length, whether its bytes are visible ASCII: no copy of a long query), and
    /// judges it against the limits.
    ///
    /// Over a limit, the query is also cut for libmicrohttpd by writing a NUL over its first
    /// byte, so that the library parses no parameter into the pool and the access handler is
    /// reached to answer 414. The pointer is `const` in the callback's signature, but it points
    /// into the connection's read buffer, which libmicrohttpd 0.9.75 itself writes to right
    /// after the callback returns (`args[0] = '\0'`, then the parameters are split in place).
    static func capture(_ uri: UnsafePointer<CChar>?, maxBytes: Int, maxQueryItems: Int) -> RequestTarget {
        guard let uri else {
            return RequestTarget(
                rawPath: "", count: 0, isVisibleASCII: false, overLimit: nil,
                pathRefusal: .malformedHead(field: "request-line", reason: "no request target"))
        }
        // libc's vectorized `strlen` and `memchr` find the bytes looked for: on every request,
        // byte loops over the target cost about twice as much.
        let count = strlen(uri)
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(uri).assumingMemoryBound(to: UInt8.self), count: count)
        let question = Self.index(of: UInt8(ascii: "?"), in: bytes[...], from: 0)
        var queryItems = 0
        if let question, question + 1 < count {
            queryItems = 1
            var next = question + 1
            while let ampersand = Self.index(of: UInt8(ascii: "&"), in: bytes[...], from: next) {
                queryItems += 1
                next = ampersand + 1
            }
        }
        let tooLong: HTTPTransportError? =
            if count > maxBytes {
                .requestTargetTooLong("longer than the limit of \(maxBytes) bytes")
            } else if queryItems > maxQueryItems {
                .requestTargetTooLong("more than the limit of \(maxQueryItems) query parameters")
            } else {
                nil
            }
        let path = bytes[..<(question ?? count)]
        let target = RequestTarget(
            rawPath: String(decoding: path, as: UTF8.self), count: count,
            isVisibleASCII: count > 0 && allVisibleASCII(bytes), overLimit: tooLong,
            pathRefusal: pathRefusal(path))
        // Last: everything above read the target as sent.
        if tooLong != nil, let question, question + 1 < count {
            UnsafeMutablePointer(mutating: uri)[question + 1] = 0
        }
        return target
    }

    /// Where `byte` first is in `bytes` from `start` on (`memchr`), or `nil`; indices are the
    /// whole buffer's, as a slice's are.
    private static func index(of byte: UInt8, in bytes: Slice<UnsafeBufferPointer<UInt8>>, from start: Int) -> Int? {
        let start = max(start, bytes.startIndex)
        guard start < bytes.endIndex, let base = bytes.base.baseAddress else { return nil }
        let found = memchr(base + start, Int32(byte), bytes.endIndex - start)
        return found.map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) }
    }

    /// Whether every byte is visible ASCII (0x21 to 0x7E), eight at a time as
    /// `HeadSyntax.allValueBytes` reads a value: a byte below 0x21, one with its high bit set or
    /// a DEL in a word is found by its arithmetic.
    private static func allVisibleASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = bytes.baseAddress else { return true }
        var n = 0
        while n + 8 <= bytes.count {
            let word = UnsafeRawPointer(start + n).loadUnaligned(as: UInt64.self)
            if HeadSyntax.bytes(below: 0x21, in: word) | HeadSyntax.deletes(in: word) | word & HeadSyntax.highBits != 0 {
                return false
            }
            n += 8
        }
        for m in n..<bytes.count where !(bytes[m] > 0x20 && bytes[m] < 0x7F) { return false }
        return true
    }

    /// `%2F` and `%00` in the path: libmicrohttpd would decode them into a `/` that is not a
    /// segment boundary to a proxy, or a NUL that ends the path it hands over. Other escapes
    /// are left to the application, which routes on the path as sent.
    private static func pathRefusal(_ path: Slice<UnsafeBufferPointer<UInt8>>) -> HTTPTransportError? {
        var index = path.startIndex
        while let percent = Self.index(of: UInt8(ascii: "%"), in: path, from: index), percent + 2 < path.endIndex {
            let high = path[percent + 1]
            let low = path[percent + 2] | 0x20  // ASCII lowercase
            if (high == UInt8(ascii: "2") && low == UInt8(ascii: "f")) || (high == UInt8(ascii: "0") && low == UInt8(ascii: "0"))
            {
                return .malformedHead(
                    field: "path", reason: "holds %2F or %00, which a proxy and this server would read differently")
            }
            index = percent + 1
        }
        return nil
    }
}

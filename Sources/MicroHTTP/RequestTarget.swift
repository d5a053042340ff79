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
/// connection hangs unanswered: with the default 32 KiB pool, about 500 parameters. So a target
/// over the limits is refused here, and its query is hidden from the library (see `capture`).
final class RequestTarget: Sendable {
    /// The target's bytes, as sent (path and query).
    let bytes: [UInt8]
    /// A 414 when the target is over a limit (its query then hidden from libmicrohttpd, so the
    /// head is refused before anything else in it is looked at), or `nil`.
    let overLimit: HTTPTransportError?
    /// A 400 for a path this server would read differently from a proxy, or `nil`.
    let pathRefusal: HTTPTransportError?

    private init(bytes: [UInt8], overLimit: HTTPTransportError?, pathRefusal: HTTPTransportError?) {
        self.bytes = bytes
        self.overLimit = overLimit
        self.pathRefusal = pathRefusal
    }

    /// The path as sent: the target up to its `?`.
    var rawPath: String {
        let end = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// Copies the target libmicrohttpd hands its request-line callback (NUL-terminated, still
    /// undecoded), and judges it against the limits.
    ///
    /// Over a limit, the query is also cut for libmicrohttpd by writing a NUL over its first
    /// byte, so that the library parses no parameter into the pool and the access handler is
    /// reached to answer 414. The pointer is `const` in the callback's signature, but it points
    /// into the connection's read buffer, which libmicrohttpd 0.9.75 itself writes to right
    /// after the callback returns (`args[0] = '\0'`, then the parameters are split in place).
    static func capture(_ uri: UnsafePointer<CChar>?, maxBytes: Int, maxQueryItems: Int) -> RequestTarget {
        guard let uri else {
            return RequestTarget(
                bytes: [], overLimit: nil, pathRefusal: .malformedHead(field: "request-line", reason: "no request target"))
        }
        let count = strlen(uri)
        let bytes = Array(UnsafeRawBufferPointer(start: uri, count: count))
        let question = bytes.firstIndex(of: UInt8(ascii: "?"))
        let queryItems = question.map { q in q + 1 < count ? 1 + bytes[(q + 1)...].count { $0 == UInt8(ascii: "&") } : 0 } ?? 0
        let tooLong: HTTPTransportError? =
            if count > maxBytes {
                .requestTargetTooLong("longer than the limit of \(maxBytes) bytes")
            } else if queryItems > maxQueryItems {
                .requestTargetTooLong("more than the limit of \(maxQueryItems) query parameters")
            } else {
                nil
            }
        if tooLong != nil, let question, question + 1 < count {
            UnsafeMutablePointer(mutating: uri)[question + 1] = 0
        }
        return RequestTarget(bytes: bytes, overLimit: tooLong, pathRefusal: pathRefusal(bytes[..<(question ?? count)]))
    }

    /// `%2F` and `%00` in the path: libmicrohttpd would decode them into a `/` that is not a
    /// segment boundary to a proxy, or a NUL that ends the path it hands over. Other escapes
    /// are left to the application, which routes on the path as sent.
    private static func pathRefusal(_ path: ArraySlice<UInt8>) -> HTTPTransportError? {
        var index = path.startIndex
        while let percent = path[index...].firstIndex(of: UInt8(ascii: "%")), percent + 2 < path.endIndex {
            let high = path[percent + 1]
            let low = path[percent + 2] | 0x20  // ASCII lowercase
            if (high == UInt8(ascii: "2") && low == UInt8(ascii: "f")) || (high == UInt8(ascii: "0") && low == UInt8(ascii: "0")) {
                return .malformedHead(field: "path", reason: "holds %2F or %00, which a proxy and this server would read differently")
            }
            index = percent + 1
        }
        return nil
    }
}

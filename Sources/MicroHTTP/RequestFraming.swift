/// The transport's reading of a request head's framing headers, made before any body byte.
///
/// libmicrohttpd 0.9.75 frames by `Transfer-Encoding` when it is present and silently ignores a
/// `Content-Length` beside it, reads only the first of two `Content-Length` headers, and does not
/// look at `Host` at all. Those are request-smuggling shapes (RFC 9112 §6.3), so they are refused
/// here. (It answers an unparsable or negative `Content-Length` with its own 400 before calling
/// the application, so the check below is a second line for that case.) Two `Authorization`
/// headers are refused too: this server would read the first, a proxy may have checked the last.
/// An HTTP/1.1 request without `Host` is refused as RFC 9112 §3.2 requires (libmicrohttpd checks
/// it only in its strict mode, `MHD_OPTION_STRICT_FOR_CLIENT`, which answers in its own HTML and
/// also refuses other things a client may send).
public struct RequestFraming: Sendable, Equatable {
    /// The declared body length, when there is a `Content-Length`.
    public var declaredLength: Int?
    /// Whether the body comes chunked, with no length known in advance.
    public var isChunked: Bool

    /// A head's framing, or the refusal it earns.
    public enum Verdict: Sendable, Equatable {
        case accept(RequestFraming)
        case refuse(HTTPTransportError)
    }

    /// Reads `headers`, or says why the request must be refused with the connection closed.
    /// `requiresHost`: the request is HTTP/1.1, so it must carry a `Host`.
    public static func check(_ headers: HTTPHeaders, maxBodyBytes: Int, requiresHost: Bool = false) -> Verdict {
        // One pass over the headers, since every request goes through here.
        var lengths: [String] = []
        var encodings: [String] = []
        var hosts = 0
        var authorizations = 0
        for index in 0..<headers.count {
            if headers.nameEquals(at: index, lowercased: "content-length") {
                lengths.append(headers.value(at: index))
            } else if headers.nameEquals(at: index, lowercased: "transfer-encoding") {
                encodings.append(headers.value(at: index))
            } else if headers.nameEquals(at: index, lowercased: "host") {
                hosts += 1
            } else if headers.nameEquals(at: index, lowercased: "authorization") {
                authorizations += 1
            }
        }
        if lengths.count > 1 {
            return .refuse(.malformedFraming("more than one Content-Length"))
        }
        if hosts > 1 {
            return .refuse(.malformedFraming("more than one Host"))
        }
        if hosts == 0 && requiresHost {
            return .refuse(.malformedHead(field: "Host", reason: "missing from an HTTP/1.1 request"))
        }
        if authorizations > 1 {
            return .refuse(.malformedHead(field: "Authorization", reason: "given more than once"))
        }
        if !lengths.isEmpty && !encodings.isEmpty {
            return .refuse(.malformedFraming("Content-Length with Transfer-Encoding"))
        }
        if !encodings.isEmpty {
            // Only a lone `chunked` is framing this server can read; anything else has no end.
            let codings = encodings.flatMap { $0.split(separator: ",") }
                .map { $0.trimmingASCIIWhitespace().lowercased() }
            guard codings == ["chunked"] else {
                return .refuse(.malformedFraming("Transfer-Encoding other than chunked"))
            }
            return .accept(RequestFraming(declaredLength: nil, isChunked: true))
        }
        guard let text = lengths.first else {
            return .accept(RequestFraming(declaredLength: nil, isChunked: false))
        }
        guard let length = parseContentLength(text) else {
            return .refuse(.malformedFraming("unparsable Content-Length"))
        }
        guard length <= maxBodyBytes else {
            return .refuse(.bodyTooLarge(limit: maxBodyBytes))
        }
        return .accept(RequestFraming(declaredLength: length, isChunked: false))
    }

    /// `1*DIGIT` and nothing else (no sign, no list, no spaces inside); `nil` if it overflows `Int`.
    static func parseContentLength(_ text: String) -> Int? {
        let trimmed = text.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(trimmed)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and horizontal tabs.
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

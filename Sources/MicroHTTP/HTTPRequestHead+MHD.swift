import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPRequestHead {
    /// Reads a request head from libmicrohttpd once its headers are complete, with the verdict
    /// of `HeadSyntax` on its bytes (`nil`: nothing wrong).
    ///
    /// libmicrohttpd 0.9.75 has already decoded `url` (cut at the `?`; `%HH` decoded, `+` kept,
    /// a malformed `%zz` kept as is, and a decoded `%00` ends the C string, so `/a%00b` reads as
    /// `/a`) and every query name and value (`%HH` decoded and `+` read as a space). Headers and
    /// query items keep their order and duplicates; the `_n` iterator keeps a decoded `%00`
    /// inside a query value instead of cutting it there. `rawPath` comes from `target`, the
    /// request-line callback's copy.
    static func read(
        connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        target: RequestTarget?, maxHeadBytes: Int
    ) -> (HTTPRequestHead, HTTPTransportError?) {
        var reading = HeadReading(
            headers: HTTPHeaders(),
            syntax: method.map {
                HeadSyntax(
                    method: $0, url: url, version: version, target: target,
                    headSize: kcd_mhd_request_header_size(connection), maxHeadBytes: maxHeadBytes)
            })
        reading.headers.reserveCapacity(fields: 8, bytes: 512)
        withUnsafeMutablePointer(to: &reading) { readingPointer in
            _ = MHD_get_connection_values_n(
                connection, .HEADER_KIND,
                { context, _, key, keySize, value, valueSize in
                    guard let context else { return .NO }
                    let reading = context.assumingMemoryBound(to: HeadReading.self)
                    reading.pointee.headers.append(
                        name: UnsafeRawBufferPointer(start: key, count: key == nil ? 0 : keySize),
                        value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
                    reading.pointee.syntax?.field(name: key, nameCount: keySize, value: value, valueCount: valueSize)
                    return .YES
                },
                readingPointer)
        }
        let rawPath = target?.rawPath ?? ""
        let head = HTTPRequestHead(
            method: method.map(Self.method) ?? "",
            path: url.map { Self.path($0, rawPath: rawPath) } ?? "",
            rawPath: rawPath,
            queryItems: Self.queryItems(of: connection),
            headers: reading.headers,
            peer: PeerAddress(kcd_mhd_client_address(connection)),
            receivedAt: Self.monotonicNanoseconds(), wipesHeaders: true)
        guard let syntax = reading.syntax else {
            return (head, .malformedHead(field: "method", reason: "missing"))
        }
        return (head, syntax.verdict())
    }

    /// The method as a `String`: a constant for the usual ones, whose bytes are not read into a
    /// new one on every request.
    private static func method(_ method: UnsafePointer<CChar>) -> String {
        if strcmp(method, "GET") == 0 { return "GET" }
        if strcmp(method, "POST") == 0 { return "POST" }
        if strcmp(method, "PUT") == 0 { return "PUT" }
        if strcmp(method, "DELETE") == 0 { return "DELETE" }
        return String(cString: method)
    }

    /// The decoded path as a `String`: the raw path's own when decoding changed nothing (the
    /// usual case: no `%` in it), else read anew.
    private static func path(_ url: UnsafePointer<CChar>, rawPath: String) -> String {
        var rawPath = rawPath
        let same = rawPath.withUTF8 { raw in
            strlen(url) == raw.count && (raw.baseAddress.map { memcmp(url, $0, raw.count) == 0 } ?? true)
        }
        return same ? rawPath : String(cString: url)
    }

    /// What the header iteration fills: the headers, and the syntax walk over their bytes.
    private struct HeadReading {
        var headers: HTTPHeaders
        var syntax: HeadSyntax?
    }

    /// Every query parameter, in the order libmicrohttpd received them.
    private static func queryItems(of connection: OpaquePointer) -> [(name: String, value: String)] {
        var entries: [(name: String, value: String)] = []
        entries.reserveCapacity(8)
        withUnsafeMutablePointer(to: &entries) { entriesPointer in
            _ = MHD_get_connection_values_n(
                connection, .GET_ARGUMENT_KIND,
                { context, _, key, keySize, value, valueSize in
                    guard let context else { return .NO }
                    let entries = context.assumingMemoryBound(to: [(name: String, value: String)].self)
                    entries.pointee.append((string(key, keySize), string(value, valueSize)))
                    return .YES
                },
                entriesPointer)
        }
        return entries
    }

    /// Monotonic nanoseconds (`CLOCK_MONOTONIC`), for durations only.
    public static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// Bytes from libmicrohttpd as a String (invalid UTF-8 becomes U+FFFD); NULL is the empty string.
private func string(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
    guard let pointer, count > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
}

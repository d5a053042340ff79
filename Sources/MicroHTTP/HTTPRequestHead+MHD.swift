import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPRequestHead {
    /// Reads a request head from libmicrohttpd once its headers are complete.
    ///
    /// libmicrohttpd 0.9.75 has already decoded `url` (cut at the `?`; `%HH` decoded, `+` kept,
    /// a malformed `%zz` kept as is, and a decoded `%00` ends the C string, so `/a%00b` reads as
    /// `/a`) and every query name and value (`%HH` decoded and `+` read as a space). Headers and
    /// query items keep their order and duplicates; the `_n` iterator keeps a decoded `%00`
    /// inside a query value instead of cutting it there.
    init(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?) {
        self.init(
            method: method.map { String(cString: $0) } ?? "",
            path: url.map { String(cString: $0) } ?? "",
            queryItems: Self.values(of: connection, kind: .GET_ARGUMENT_KIND),
            headers: HTTPHeaders(Self.values(of: connection, kind: .HEADER_KIND)),
            peer: PeerAddress(kcd_mhd_client_address(connection)),
            receivedAt: Self.monotonicNanoseconds())
    }

    /// Every (name, value) pair of `kind`, in the order libmicrohttpd received them.
    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
        var entries: [(name: String, value: String)] = []
        entries.reserveCapacity(8)
        withUnsafeMutablePointer(to: &entries) { entriesPointer in
            _ = MHD_get_connection_values_n(
                connection, kind,
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

import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 socket address parsed from a literal, kept as bytes that `bind` reads.
///
/// libmicrohttpd copies the address while it binds (`MHD_OPTION_SOCK_ADDR`), so the
/// storage needs to live only across `MHD_start_daemon`.
struct SocketAddress: Sendable {
    /// Whether the address is IPv6 (the daemon then needs `MHD_USE_DUAL_STACK`).
    let isIPv6: Bool
    private let storage: sockaddr_storage

    /// Parses `host` as an IPv4 or IPv6 literal (no names, no brackets, no zone) with `port`.
    init?(host: String, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        var storage = sockaddr_storage()
        let networkPort = in_port_t(UInt16(port).bigEndian)
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = networkPort
                address.sin_addr = v4
                raw.storeBytes(of: address, as: sockaddr_in.self)
            }
            isIPv6 = false
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = networkPort
                address.sin6_addr = v6
                raw.storeBytes(of: address, as: sockaddr_in6.self)
            }
            isIPv6 = true
        } else {
            return nil
        }
        self.storage = storage
    }

    /// Calls `body` with a `sockaddr` pointer valid only for the call.
    func withSockAddrPointer<R>(_ body: (UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        var copy = storage
        return try withUnsafeMutableBytes(of: &copy) { try body($0.baseAddress!) }
    }

}

/// Address literals compared as addresses rather than as spellings.
public enum IPAddressText {
    /// One spelling per address: an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, `::FFFF:a00:1`,
    /// any spelling `inet_pton` reads) becomes its IPv4 address, as a dual-stack socket's IPv4
    /// peer already does; any other IPv6 address is written as `inet_ntop` writes it. Anything
    /// without a colon (IPv4, or not an address) is returned as it is, without a parse.
    public static func canonical(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: ":")) else { return text }
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return text }
        return withUnsafeBytes(of: address) { PeerAddress.v6Text($0) }
    }
}

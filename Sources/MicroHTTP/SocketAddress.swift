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

    /// The numeric host of a peer address, without its port; IPv4-mapped IPv6 prints as IPv4.
    static func numericHost(_ address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer in
            let start = buffer.baseAddress!
            let size = socklen_t(buffer.count)
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                var v4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self).sin_addr
                guard inet_ntop(AF_INET, &v4, start, size) != nil else { return "" }
            case AF_INET6:
                var v6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self).sin6_addr
                if var v4 = ipv4Mapped(v6) {
                    guard inet_ntop(AF_INET, &v4, start, size) != nil else { return "" }
                } else {
                    guard inet_ntop(AF_INET6, &v6, start, size) != nil else { return "" }
                }
            default:
                return ""
            }
            return String(cString: start)
        }
    }

    /// The IPv4 address inside `::ffff:a.b.c.d`, which a dual-stack socket reports for IPv4 peers.
    private static func ipv4Mapped(_ address: in6_addr) -> in_addr? {
        let bytes = withUnsafeBytes(of: address) { Array($0) }
        guard bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return nil }
        var v4 = in_addr()
        withUnsafeMutableBytes(of: &v4) { $0.copyBytes(from: bytes[12..<16]) }
        return v4
    }
}

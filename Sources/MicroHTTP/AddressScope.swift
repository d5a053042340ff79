#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who can reach a listening address: this host, a private network, or anyone. keychaind binds
/// the metrics listener, which answers without a token, only to the first two.
public enum AddressScope: Sendable, Equatable {
    /// `127.0.0.0/8`, `::1`, and IPv4-mapped loopback.
    case loopback
    /// RFC 1918 (`10/8`, `172.16/12`, `192.168/16`) and IPv6 unique local addresses (`fc00::/7`).
    case privateNetwork
    /// `0.0.0.0` or `::`: every interface, public ones included.
    case wildcard
    /// Anything else: public, link-local, multicast.
    case other

    /// The scope of an IPv4 or IPv6 literal; `nil` when `host` is not one.
    public init?(host: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            self = withUnsafeBytes(of: v4) { Self.ipv4(Array($0)) }
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                self = Self.ipv4(Array(bytes[12..<16]))
            } else if bytes.allSatisfy({ $0 == 0 }) {
                self = .wildcard
            } else if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] == 1 {
                self = .loopback
            } else {
                self = bytes[0] & 0xFE == 0xFC ? .privateNetwork : .other
            }
        } else {
            return nil
        }
    }

    /// `bytes`: the address in network order.
    private static func ipv4(_ bytes: [UInt8]) -> AddressScope {
        switch (bytes[0], bytes[1]) {
        case (0, _) where bytes.allSatisfy({ $0 == 0 }): .wildcard
        case (127, _): .loopback
        case (10, _), (172, 16...31), (192, 168): .privateNetwork
        default: .other
        }
    }
}

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

/// A peer's address as libmicrohttpd reported it, formatted only when asked: `inet_ntop`
/// formats through `sprintf`, a measurable share of a request that never logs its peer.
struct PeerAddress: Sendable {
    private enum Storage: Sendable {
        case text(String)
        case v4(UInt32)
        case v6(UInt64, UInt64)
    }

    private let storage: Storage

    init(text: String) {
        storage = .text(text)
    }

    /// Copies the address `address` points to (an unknown family reads as the empty string).
    init(_ address: UnsafePointer<sockaddr>?) {
        guard let address else {
            storage = .text("")
            return
        }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            storage = .v4(UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self).sin_addr.s_addr)
        case AF_INET6:
            let v6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self).sin6_addr
            storage = withUnsafeBytes(of: v6) {
                .v6($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
        default:
            storage = .text("")
        }
    }

    /// The numeric host, without the port; an IPv4-mapped IPv6 address prints as IPv4.
    var text: String {
        switch storage {
        case .text(let text):
            return text
        case .v4(let raw):
            return withUnsafeBytes(of: raw) { Self.dotted($0) }
        case .v6(let high, let low):
            return withUnsafeBytes(of: (high, low)) { Self.v6Text($0) }
        }
    }

    /// An IPv4 address's 4 bytes (network order) in dotted decimal, as `inet_ntop` writes it.
    /// By hand: `inet_ntop` formats IPv4 with `sprintf`, and this runs for every request's
    /// access line; at most 15 bytes, a string that needs no allocation.
    static func dotted(_ address: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: 15) { text in
            var count = 0
            for n in 0..<4 {
                if n > 0 {
                    text[count] = UInt8(ascii: ".")
                    count += 1
                }
                let byte = address[n]
                if byte >= 100 {
                    text[count] = UInt8(ascii: "0") + byte / 100
                    count += 1
                }
                if byte >= 10 {
                    text[count] = UInt8(ascii: "0") + byte / 10 % 10
                    count += 1
                }
                text[count] = UInt8(ascii: "0") + byte % 10
                count += 1
            }
            return count
        }
    }

    /// An `in6_addr`'s 16 bytes as text: an IPv4-mapped address (`::ffff:a.b.c.d`) as its IPv4
    /// address, any other as `inet_ntop` writes it.
    static func v6Text(_ bytes: UnsafeRawBufferPointer) -> String {
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return Self.dotted(UnsafeRawBufferPointer(rebasing: bytes[12..<16]))
        }
        return Self.format(family: AF_INET6, bytes)
    }

    /// `address` holds an `in_addr` (4 bytes) or an `in6_addr` (16), in network order.
    private static func format(family: Int32, _ address: UnsafeRawBufferPointer) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer in
            guard inet_ntop(family, address.baseAddress, buffer.baseAddress!, socklen_t(buffer.count)) != nil else { return "" }
            return String(cString: buffer.baseAddress!)
        }
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

import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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

import Testing

@testable import MicroHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The peer address is copied raw from libmicrohttpd and formatted when asked.
@Suite struct PeerAddressTests {
    private func v4(_ text: String) -> PeerAddress {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        _ = inet_pton(AF_INET, text, &address.sin_addr)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { PeerAddress($0) } }
    }

    private func v6(_ text: String) -> PeerAddress {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        _ = inet_pton(AF_INET6, text, &address.sin6_addr)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { PeerAddress($0) } }
    }

    @Test func formatsIPv4IPv6AndMappedIPv4() {
        #expect(v4("192.0.2.7").text == "192.0.2.7")
        #expect(v6("2001:db8::1").text == "2001:db8::1")
        #expect(v6("::1").text == "::1")
        #expect(v6("::ffff:198.51.100.9").text == "198.51.100.9", "a dual-stack socket's IPv4 peer prints as IPv4")
        #expect(PeerAddress(nil).text == "")
        #expect(PeerAddress(text: "10.0.0.1").text == "10.0.0.1")
    }

    @Test(arguments: ["0.0.0.0", "255.255.255.255", "10.0.0.1", "127.0.0.1", "1.20.255.9"])
    func formatsIPv4AsInetNtopDoes(text: String) {
        #expect(v4(text).text == text)
        #expect(v6("::ffff:" + text).text == text)
    }
}

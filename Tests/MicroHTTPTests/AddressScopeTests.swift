import MicroHTTP
import Testing

/// Which addresses the metrics listener (no token) may bind: loopback and private ones only.
@Suite struct AddressScopeTests {
    @Test(arguments: [
        ("127.0.0.1", AddressScope.loopback), ("127.8.9.10", .loopback), ("::1", .loopback), ("::ffff:127.0.0.1", .loopback),
        ("10.0.0.1", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.254", .privateNetwork),
        ("192.168.1.1", .privateNetwork), ("fd12:3456::1", .privateNetwork), ("fc00::1", .privateNetwork),
        ("::ffff:10.1.2.3", .privateNetwork),
        ("0.0.0.0", .wildcard), ("::", .wildcard), ("::ffff:0.0.0.0", .wildcard),
        ("172.15.0.1", .other), ("172.32.0.1", .other), ("192.169.0.1", .other), ("8.8.8.8", .other),
        ("169.254.1.1", .other), ("fe80::1", .other), ("2001:db8::1", .other), ("11.0.0.1", .other),
    ])
    func scopes(_ host: String, _ scope: AddressScope) {
        #expect(AddressScope(host: host) == scope, "\(host)")
    }

    @Test func aNameIsNoAddress() {
        for host in ["localhost", "", "[::1]", "10.0.0.1:80", "example.org"] {
            #expect(AddressScope(host: host) == nil, "\(host)")
        }
    }
}

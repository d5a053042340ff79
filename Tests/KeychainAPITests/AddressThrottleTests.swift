import Testing

@testable import KeychainAPI

@Suite struct AddressThrottleTests {
    /// Apple's ladder per address: four failures free, the fifth waits a minute, then 5, 15 and 60.
    @Test func oneAddressFollowsApplesLadder() {
        let throttle = AddressThrottle()
        var now: Int64 = 1_000_000
        for _ in 0..<5 { #expect(throttle.admit("192.0.2.1", now: now) == nil) }
        for step in [60, 300, 900, 3600, 3600] {
            #expect(throttle.admit("192.0.2.1", now: now) == step)
            #expect(throttle.admit("192.0.2.2", now: now) == nil, "another address is not held back")
            throttle.succeeded("192.0.2.2")
            now += Int64(step) * 1000
            #expect(throttle.admit("192.0.2.1", now: now) == nil)
        }
        throttle.succeeded("192.0.2.1")
        #expect(throttle.admit("192.0.2.1", now: now) == nil)
    }

    /// The table never grows past its capacity: the least recent address is dropped.
    @Test func aFullTableDropsTheLeastRecentAddress() {
        let throttle = AddressThrottle(capacity: 3)
        for _ in 0..<5 { _ = throttle.admit("192.0.2.1", now: 0) }
        _ = throttle.admit("192.0.2.2", now: 1)
        _ = throttle.admit("192.0.2.3", now: 2)
        #expect(throttle.admit("192.0.2.1", now: 3) == 60, "still held")
        _ = throttle.admit("192.0.2.4", now: 4)
        #expect(throttle.count == 3)
        // .2 was the least recent: dropped. .1 was used at 3, so it stays.
        #expect(throttle.admit("192.0.2.1", now: 5) != nil)
        for n in 5..<100_000 { _ = throttle.admit("198.51.\(n / 256).\(n % 256)", now: Int64(n)) }
        #expect(throttle.count == 3)
    }

    /// Entries a day old are forgotten as calls go by.
    @Test func aDayOldAddressIsForgotten() {
        let throttle = AddressThrottle()
        for _ in 0..<5 { _ = throttle.admit("192.0.2.1", now: 0) }
        _ = throttle.admit("192.0.2.9", now: AddressThrottle.forgetMilliseconds + 1)
        #expect(throttle.count == 1)
        #expect(throttle.admit("192.0.2.1", now: AddressThrottle.forgetMilliseconds + 2) == nil)
    }

    /// One IPv6 host holds a /64: its addresses share one count.
    @Test func ipv6AddressesAreCountedByTheirSlash64() {
        #expect(AddressThrottle.key("2001:db8:1:2::1") == AddressThrottle.key("2001:db8:1:2:ffff::9"))
        #expect(AddressThrottle.key("2001:db8:1:2::1") != AddressThrottle.key("2001:db8:1:3::1"))
        #expect(AddressThrottle.key("192.0.2.1") == "192.0.2.1")
        let throttle = AddressThrottle()
        for n in 0..<5 { #expect(throttle.admit("2001:db8::\(n + 1)", now: 0) == nil) }
        #expect(throttle.admit("2001:db8::ff", now: 0) == 60)
    }
}

/// IPv4 clients behind a dual-stack proxy or socket arrive as IPv4-mapped IPv6 addresses
/// (`::ffff:a.b.c.d`): each counts as its IPv4 address, never as the /64 they all share.
@Suite struct MappedAddressTests {
    @Test(arguments: ["::ffff:10.77.0.1", "::FFFF:10.77.0.1", "::ffff:0a4d:0001", "0:0:0:0:0:ffff:a4d:1"])
    func aMappedAddressIsKeyedAsItsIPv4Address(spelling: String) {
        #expect(AddressThrottle.key(spelling) == "10.77.0.1")
    }

    /// Two IPv4 clients of a dual-stack proxy: the wrong unlocks of one do not hold the other.
    @Test func twoMappedClientsHaveSeparateLadders() {
        let throttle = AddressThrottle()
        for _ in 0..<5 { #expect(throttle.admit("::ffff:10.77.0.1", now: 0) == nil) }
        #expect(throttle.admit("::ffff:10.77.0.1", now: 0) == 60)
        #expect(throttle.admit("::ffff:10.77.0.2", now: 0) == nil, "another IPv4 client is held by the first one's failures")
        #expect(throttle.admit("::FFFF:10.77.0.3", now: 0) == nil)
    }

    /// A client reached over IPv4 and over a dual-stack socket is one client: one ladder.
    @Test func aMappedClientAndItsIPv4AddressShareOneLadder() {
        let throttle = AddressThrottle()
        for _ in 0..<5 { #expect(throttle.admit("::ffff:10.77.0.1", now: 0) == nil) }
        #expect(throttle.admit("10.77.0.1", now: 0) == 60, "the plain IPv4 spelling escaped the ladder")
        #expect(throttle.admit("::ffff:0a4d:0001", now: 0) == 60)
    }

    /// A proxy written as IPv4 is the same proxy when its peer address arrives mapped, and the
    /// mapped client it forwards for is resolved to its IPv4 address.
    @Test func aTrustedProxyWrittenAsIPv4MatchesAMappedPeer() {
        let clients = ClientAddress(trustedProxies: ["127.0.0.2"])
        #expect(clients.resolve(peer: "::ffff:127.0.0.2", forwardedFor: ["::ffff:10.77.0.1"]) == "10.77.0.1")
        #expect(clients.resolve(peer: "::FFFF:7f00:2", forwardedFor: ["10.77.0.9"]) == "10.77.0.9")
        // A mapped spelling of the proxy among the hops is still the proxy, not the client.
        #expect(clients.resolve(peer: "127.0.0.2", forwardedFor: ["10.77.0.5, ::ffff:127.0.0.2"]) == "10.77.0.5")
        // Any other peer is the client itself, whatever it forwards.
        #expect(clients.resolve(peer: "::ffff:127.0.0.1", forwardedFor: ["10.77.0.1"]) == "127.0.0.1")
        let mappedProxy = ClientAddress(trustedProxies: ["::ffff:127.0.0.2"])
        #expect(mappedProxy.resolve(peer: "127.0.0.2", forwardedFor: ["10.77.0.1"]) == "10.77.0.1")
    }
}

@testable import KeychainAPI
import Testing

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

import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Polls `condition` (observable state, not a delay) every millisecond for up to 10 s: whether
/// an effect that follows asynchronously has happened.
public func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
    while !condition() {
        guard DispatchTime.now().uptimeNanoseconds < deadline else { return false }
        usleep(1000)
    }
    return true
}

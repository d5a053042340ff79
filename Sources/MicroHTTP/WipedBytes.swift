#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a request carries that may be a credential (a bearer token, a passphrase, a secret being
/// added) is zeroed where it lay once the request is done, rather than left in freed heap that
/// can be swapped out. Ordinary arrays: `String` cannot be wiped, so those bytes never become one
/// on the way to secure memory (`JSON.forEachMember(ofObject:_:)` for a passphrase's body).
enum WipedBytes {
    /// Zeroes `bytes` with a write the compiler keeps.
    static func zero(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        #if canImport(Darwin)
            _ = memset_s(base, bytes.count, 0, bytes.count)
        #else
            explicit_bzero(base, bytes.count)
        #endif
    }

    /// Appends `chunk` to `bytes`. When the room runs out, the bytes move to a buffer twice as
    /// large and the old one is zeroed, where the array's own growth would free it as it is.
    static func append(_ chunk: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        let needed = bytes.count + chunk.count
        if needed > bytes.capacity {
            var larger: [UInt8] = []
            larger.reserveCapacity(max(needed, 2 * bytes.capacity))
            larger.append(contentsOf: bytes)
            bytes.withUnsafeMutableBytes { zero($0) }
            bytes = larger
        }
        bytes.append(contentsOf: chunk.assumingMemoryBound(to: UInt8.self))
    }
}

internal import CSodium

/// libsodium's one-time initialisation; every entry point of this module calls `Sodium.ensureInitialized()`.
public enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    /// Initialises libsodium once (thread-safe: `sodium_init` may be called repeatedly).
    public static func ensureInitialized() {
        precondition(initialized, "libsodium failed to initialise")
    }

    /// `count` bytes from the system CSPRNG (`randombytes_buf`).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        if count > 0 { bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) } }
        return bytes
    }

    /// Constant-time comparison of two byte strings of public length.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in sodium_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }

    /// Zeroes a Swift array's storage in place (best effort for transient buffers; keys live in `SecureBytes`).
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }
}

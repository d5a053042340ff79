internal import CSodium
import Synchronization

/// Key material in `sodium_malloc` memory: guarded pages, `mlock`ed, zeroed when freed.
///
/// `String` and `Data` cannot be reliably zeroed, so every key and passphrase lives here.
/// It has no `description` that shows contents, and compares in constant time.
public final class SecureBytes: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: the buffer is written only during init and `wipe()`; callers share it read-only
    // and `wipe()` is called only by the owner that has stopped sharing it (the lock path).
    private let pointer: UnsafeMutableRawPointer
    public let count: Int

    /// Allocates `count` zeroed bytes.
    public init(count: Int) throws(CryptoError) {
        Sodium.ensureInitialized()
        guard let p = sodium_malloc(max(count, 1)) else { throw .outOfMemory }
        sodium_memzero(p, max(count, 1))
        pointer = p
        self.count = count
    }

    /// `count` random bytes, generated straight into secure memory.
    public static func random(count: Int) throws(CryptoError) -> SecureBytes {
        let key = try SecureBytes(count: count)
        randombytes_buf(key.pointer, count)
        return key
    }

    /// Copies `bytes` in and zeroes the source array.
    public convenience init(consuming bytes: inout [UInt8]) throws(CryptoError) {
        try self.init(count: bytes.count)
        bytes.withUnsafeBytes { src in
            if let base = src.baseAddress { pointer.copyMemory(from: base, byteCount: src.count) }
        }
        Sodium.wipe(&bytes)
    }

    /// Copies `bytes` in (a passphrase where it lies in a request's header).
    public convenience init(copying bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        try self.init(count: bytes.count)
        if let base = bytes.baseAddress { pointer.copyMemory(from: base, byteCount: bytes.count) }
    }

    /// Copies a string's UTF-8 bytes in (for passphrases read from a file or a prompt).
    public convenience init(utf8 string: String) throws(CryptoError) {
        var bytes = Array(string.utf8)
        try self.init(consuming: &bytes)
    }

    deinit {
        sodium_free(pointer)
    }

    /// Calls `body` with the bytes; the pointer must not escape.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The bytes' address, for a holder that keeps this object alive as long as it reads them
    /// (`KeyedDigest`, whose every digest copies its state from here): reading through it costs
    /// no retain and release of this object, as a `withUnsafeBytes` call in a closure did.
    var unsafeBaseAddress: UnsafeRawPointer { UnsafeRawPointer(pointer) }

    /// Calls `body` with the mutable bytes; the pointer must not escape.
    public func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// Zeroes the bytes now, before the last reference goes.
    public func wipe() {
        sodium_memzero(pointer, count)
    }

    /// Constant-time equality (`sodium_memcmp`).
    public func constantTimeEquals(_ other: SecureBytes) -> Bool {
        count == other.count && sodium_memcmp(pointer, other.pointer, count) == 0
    }

    public var description: String { "SecureBytes(\(count) bytes)" }
}

/// `SecureBytes` of a few sizes kept for reuse, zeroed in between: allocating `sodium_malloc`
/// memory takes five system calls (mmap, two mprotects, mlock, and munmap when freed), more than
/// the signature a key is opened for. A buffer handed back is zeroed before anyone takes it.
public final class SecureBytesPool: Sendable {
    public static let shared = SecureBytesPool()

    /// Buffers kept, at most, for each size.
    static let perSize = 16
    private let buffers = Mutex<[Int: [SecureBytes]]>([:])

    /// A zeroed buffer of `count` bytes: a kept one, or a new one.
    public func take(count: Int) throws(CryptoError) -> SecureBytes {
        if let kept = buffers.withLock({ $0[count]?.popLast() }) { return kept }
        return try SecureBytes(count: count)
    }

    /// Zeroes `bytes` and keeps it for the next `take` of its size, unless enough are kept.
    public func recycle(_ bytes: SecureBytes) {
        bytes.wipe()
        buffers.withLock { kept in
            if kept[bytes.count, default: []].count < Self.perSize { kept[bytes.count, default: []].append(bytes) }
        }
    }
}

internal import CSodium

/// Keyed BLAKE2b (`crypto_generichash` with a key): lookup digests and token hashes.
///
/// A keyed digest lets storage index and compare values it cannot read, and, unlike a plain
/// hash, cannot be brute-forced from a stolen database without the key.
public struct KeyedDigest: Sendable {
    /// Digest length in bytes (128 bits: collision-resistant enough for equality and uniqueness).
    public static let length = 16
    /// The BLAKE2b state once the key has been absorbed (`crypto_generichash_init`), in secure
    /// memory: a digest starts from a copy of it rather than from the key, which spares the
    /// parameter block and key padding on every digest (docs/performance.md#keyed-digest-state-copied).
    private let keyed: SecureBytes
    /// `keyed`'s bytes, which live as long as `keyed`, held here, does: a digest copies its state
    /// from here without touching `keyed` (docs/performance.md#keyed-state-read-from-its-address).
    nonisolated(unsafe) private let keyedState: UnsafeRawPointer

    /// `key` must be 32 bytes.
    public init(key: SecureBytes) throws(CryptoError) {
        guard key.count == Int(crypto_generichash_KEYBYTES) else { throw .invalidLength("digest key") }
        keyed = try SecureBytes(count: crypto_generichash_statebytes())
        keyedState = keyed.unsafeBaseAddress
        let keyed = keyed
        let status = Self.withState { state in
            let status = key.withUnsafeBytes { k in
                crypto_generichash_init(state, k.baseAddress!.assumingMemoryBound(to: UInt8.self), k.count, Self.length)
            }
            keyed.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: UnsafeRawPointer(state), byteCount: $0.count) }
            sodium_memzero(UnsafeMutableRawPointer(state), crypto_generichash_statebytes())
            return status
        }
        guard status == 0 else { throw .invalidLength("digest key") }
    }

    /// Calls `body` with room for a state on the stack. The state is an opaque, 64-byte-aligned C
    /// struct; Swift puts a temporary allocation on the stack only up to 16-byte alignment (above,
    /// it calls memalign, slower than the digest), so the room is 63 bytes longer and the state
    /// starts at its first 64-byte boundary.
    private static func withState<R>(_ body: (OpaquePointer) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: crypto_generichash_statebytes() + 63, alignment: 16) { raw in
            body(OpaquePointer(raw.baseAddress!.alignedUp(toMultipleOf: 64)))
        }
    }

    /// `withState`, and a count of the parts appended beside it.
    private static func withCountedState<R>(_ body: (OpaquePointer, UnsafeMutablePointer<Int>) -> R) -> R {
        var parts = 0
        return withState { state in body(state, &parts) }
    }

    /// The digest of `parts` (at least one), each length-prefixed so that ("ab","c") and
    /// ("a","bc") differ.
    public func digest(_ parts: [UInt8]...) -> [UInt8] {
        digest(parts: parts)
    }

    /// The digest of `parts` (at least one), each length-prefixed.
    public func digest(parts: [[UInt8]]) -> [UInt8] {
        digest { input in
            for part in parts { input.append(part) }
        }
    }

    /// The digest of the parts `build` appends, each length-prefixed exactly as `digest(parts:)`
    /// does, without building the parts as arrays first.
    public func digest(_ build: (Input) -> Void) -> [UInt8] {
        inlineDigest(build).span.withUnsafeBufferPointer { Array($0) }
    }

    /// `digest(_:)`, held inline rather than in an array: for a caller that only encodes it
    /// (the audit log, once per query value of every request).
    /// - Precondition: `build` appends at least one part.
    public func inlineDigest(_ build: (Input) -> Void) -> InlineArray<16, UInt8> {
        // The closure reads the address alone: one that read `self` took a copy of it, a retain
        // and a release of `keyed` twice a digest.
        let keyedState = keyedState
        return Self.withCountedState { state, parts in
            UnsafeMutableRawPointer(state).copyMemory(from: keyedState, byteCount: crypto_generichash_statebytes())
            build(Input(state: state, parts: parts))
            precondition(parts.pointee > 0, "KeyedDigest: a digest takes at least one part")
            var out = InlineArray<16, UInt8>(repeating: 0)
            var span = out.mutableSpan
            span.withUnsafeMutableBufferPointer { _ = crypto_generichash_final(state, $0.baseAddress!, Self.length) }
            // The state was the key's: no copy of it stays on the stack.
            sodium_memzero(UnsafeMutableRawPointer(state), crypto_generichash_statebytes())
            return out
        }
    }

    /// The parts of a digest being computed; valid only inside `digest(_:)`'s closure.
    public struct Input {
        fileprivate let state: OpaquePointer
        fileprivate let parts: UnsafeMutablePointer<Int>

        /// Appends one part: its length (4 bytes, little-endian), then its bytes.
        public func append(_ part: UnsafeRawBufferPointer) {
            append(tag: nil, part)
        }

        public func append(_ part: [UInt8]) {
            part.withUnsafeBytes { append(tag: nil, $0) }
        }

        /// Appends a string's UTF-8 bytes as one part.
        public func append(_ part: String) {
            var part = part
            part.withUTF8 { append(tag: nil, UnsafeRawBufferPointer($0)) }
        }

        /// Appends one part made of `tag` followed by `rest`.
        public func append(tag: UInt8?, _ rest: UnsafeRawBufferPointer) {
            parts.pointee += 1
            let length = UInt32(rest.count + (tag == nil ? 0 : 1)).littleEndian
            withUnsafeBytes(of: length) { update($0) }
            if let tag { withUnsafeBytes(of: tag) { update($0) } }
            update(rest)
        }

        private func update(_ bytes: UnsafeRawBufferPointer) {
            guard !bytes.isEmpty else { return }
            _ = crypto_generichash_update(state, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
        }
    }
}

/// Derivation of independent subkeys from one master key (`crypto_kdf`, BLAKE2b).
public enum SubkeyDerivation {
    /// Derives the 32-byte subkey number `id` in `context` (8 ASCII characters).
    public static func derive(from master: SecureBytes, id: UInt64, context: String) throws(CryptoError) -> SecureBytes {
        let ctx = Array(context.utf8)
        guard ctx.count == Int(crypto_kdf_CONTEXTBYTES) else { throw .invalidLength("kdf context") }
        guard master.count == Int(crypto_kdf_KEYBYTES) else { throw .invalidLength("master key") }
        let sub = try SecureBytes(count: 32)
        sub.withUnsafeMutableBytes { out in
            master.withUnsafeBytes { m in
                ctx.withUnsafeBytes { c in
                    _ = crypto_kdf_derive_from_key(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count, id,
                        c.baseAddress!.assumingMemoryBound(to: CChar.self),
                        m.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return sub
    }
}

/// SipHash-1-3/2-4 with a 128-bit output (`crypto_shorthash_siphashx24`) under a random key of
/// its own: a fast keyed hash for in-memory lookups, where an attacker who cannot read the key
/// must not be able to aim at an entry. Not for anything stored.
public struct ShortKeyedHash: Sendable {
    private let key: SecureBytes

    /// A hash under a fresh random key.
    public init() throws(CryptoError) {
        key = try SecureBytes.random(count: Int(crypto_shorthash_siphashx24_KEYBYTES))
    }

    /// The 16-byte hash of `string`'s UTF-8 bytes, as two words.
    public func hash(_ string: String) -> (UInt64, UInt64) {
        var string = string
        return string.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    /// The 16-byte hash of `bytes`, as two words.
    public func hash(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        var out: (UInt64, UInt64) = (0, 0)
        key.withUnsafeBytes { k in
            withUnsafeMutableBytes(of: &out) { o in
                _ = crypto_shorthash_siphashx24(
                    o.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    UInt64(bytes.count), k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return out
    }
}

internal import CSodium

/// `crypto_secretstream_xchacha20poly1305`: a sequence of messages sealed under one key, each
/// authenticated together with its place in the sequence, the last one tagged FINAL.
///
/// libsodium: "the stream cannot be truncated, reordered, or have messages removed or
/// duplicated without this being detected" — a message moved, dropped or edited fails `pull`,
/// and a stream that ends without a FINAL message is recognisably incomplete. The state holds
/// the key, so it lives in `sodium_malloc` memory and is zeroed when released.
public enum SecretStream {
    public static let keyLength = Int(crypto_secretstream_xchacha20poly1305_keybytes())
    public static let headerLength = Int(crypto_secretstream_xchacha20poly1305_headerbytes())
    /// The bytes each message grows by: its tag and its MAC.
    public static let overhead = Int(crypto_secretstream_xchacha20poly1305_abytes())

    private static var stateLength: Int { Int(crypto_secretstream_xchacha20poly1305_statebytes()) }

    /// Seals messages, in order, under a key; `header` goes before them.
    public final class Pusher {
        private let state: SecureBytes
        /// What the reader needs besides the key (public: a random nonce).
        public let header: [UInt8]

        public init(key: SecureBytes) throws(CryptoError) {
            guard key.count == SecretStream.keyLength else { throw .invalidLength("stream key") }
            Sodium.ensureInitialized()
            state = try SecureBytes(count: SecretStream.stateLength)
            var header = [UInt8](repeating: 0, count: SecretStream.headerLength)
            state.withUnsafeMutableBytes { s in
                key.withUnsafeBytes { k in
                    _ = crypto_secretstream_xchacha20poly1305_init_push(
                        s.baseAddress!.assumingMemoryBound(to: crypto_secretstream_xchacha20poly1305_state.self), &header,
                        k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            self.header = header
        }

        /// The next message sealed, binding `associatedData`; `final` tags it as the last.
        public func push(_ message: [UInt8], associatedData: [UInt8], final: Bool) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: message.count + SecretStream.overhead)
            let tag =
                final ? crypto_secretstream_xchacha20poly1305_tag_final() : crypto_secretstream_xchacha20poly1305_tag_message()
            state.withUnsafeMutableBytes { s in
                message.withUnsafeBufferPointer { m in
                    associatedData.withUnsafeBufferPointer { a in
                        _ = crypto_secretstream_xchacha20poly1305_push(
                            s.baseAddress!.assumingMemoryBound(to: crypto_secretstream_xchacha20poly1305_state.self), &out, nil,
                            m.baseAddress, UInt64(m.count), a.baseAddress, UInt64(a.count), tag)
                    }
                }
            }
            return out
        }
    }

    /// Opens messages sealed by a `Pusher`, in the order they were sealed.
    public final class Puller {
        private let state: SecureBytes
        /// Whether the last message opened was tagged FINAL: nothing may follow it.
        public private(set) var finished = false

        /// `header` is the pusher's; a malformed one is `malformedCiphertext`.
        public init(key: SecureBytes, header: [UInt8]) throws(CryptoError) {
            guard key.count == SecretStream.keyLength else { throw .invalidLength("stream key") }
            guard header.count == SecretStream.headerLength else { throw .malformedCiphertext }
            Sodium.ensureInitialized()
            state = try SecureBytes(count: SecretStream.stateLength)
            let rc = state.withUnsafeMutableBytes { s in
                key.withUnsafeBytes { k in
                    crypto_secretstream_xchacha20poly1305_init_pull(
                        s.baseAddress!.assumingMemoryBound(to: crypto_secretstream_xchacha20poly1305_state.self), header,
                        k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            guard rc == 0 else { throw .malformedCiphertext }
        }

        /// The next message, opened; `authenticationFailed` when it is not the next message the
        /// pusher sealed under this key with this associated data (or comes after the FINAL one).
        /// The bytes may lie anywhere: an array's, a mapped file's.
        public func pull(_ sealed: UnsafeRawBufferPointer, associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
            guard !finished else { throw .authenticationFailed }
            guard sealed.count >= SecretStream.overhead else { throw .authenticationFailed }
            var out = [UInt8](repeating: 0, count: sealed.count - SecretStream.overhead)
            var tag: UInt8 = 0
            let rc = state.withUnsafeMutableBytes { s in
                associatedData.withUnsafeBufferPointer { a in
                    crypto_secretstream_xchacha20poly1305_pull(
                        s.baseAddress!.assumingMemoryBound(to: crypto_secretstream_xchacha20poly1305_state.self), &out, nil,
                        &tag, sealed.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(sealed.count), a.baseAddress,
                        UInt64(a.count))
                }
            }
            guard rc == 0 else { throw .authenticationFailed }
            finished = tag == crypto_secretstream_xchacha20poly1305_tag_final()
            return out
        }
    }
}

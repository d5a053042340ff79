public import KeychainCrypto
import KeychainJSON

/// The audit log's two keys, derived from the instance key (`crypto_kdf`, context `kcdaudit`):
/// one for the keyed hashes of query values, one for the chain of lines.
///
/// Derived, not stored: whoever holds the instance key file (the operator, `keychaind audit`)
/// can search the log for a value and verify the chain, and nobody else can do either, or forge
/// a line. A value's hash is the same in every line and on every replica that shares the key.
///
/// A class: every line passes its keys down to each hash, and copies of a struct holding the two
/// keys' secure memory cost two retains and two releases each.
public final class AuditKeys: Sendable {
    let values: KeyedDigest
    let chain: KeyedDigest

    public init(instanceKey: SecureBytes) throws(CryptoError) {
        values = try KeyedDigest(key: SubkeyDerivation.derive(from: instanceKey, id: 1, context: "kcdaudit"))
        chain = try KeyedDigest(key: SubkeyDerivation.derive(from: instanceKey, id: 2, context: "kcdaudit"))
    }

    /// `hmac:` and the base64url keyed hash of `value`'s UTF-8 bytes: how a query's value is
    /// written in the log (`keychaind audit hash VALUE` prints the same).
    public func hash(_ value: String) -> String {
        var out: [UInt8] = []
        out.append(atMost: Self.hashBytes) { appendHash(value, to: &$0) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `hash(value)`: `hmac:` and 22 of base64url.
    static let hashBytes = 5 + macBytes

    /// The bytes of a `mac`: 16 bytes of digest in base64url, unpadded.
    static let macBytes = 22

    /// Writes `hash(value)`'s bytes, without an intermediate array or string (once per query
    /// value of every request).
    func appendHash(_ value: String, to out: inout ByteCursor) {
        out.literal("hmac:")
        Self.appendBase64url(values.inlineDigest { $0.append(value) }, to: &out)
    }

    /// Writes the chain's value for the bytes `covered` the cursor wrote: the line's `mac`, and
    /// the next line's `prev`.
    func appendMAC(covering covered: Range<Int>, to out: inout ByteCursor) {
        let digest = macDigest(UnsafeRawBufferPointer(rebasing: out.written[covered]))
        Self.appendBase64url(digest, to: &out)
    }

    /// What `appendMAC` writes for `covered`, as a string (the verifier's side).
    func mac(_ covered: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        let digest = covered.withUnsafeBytes { macDigest($0) }
        out.append(atMost: Self.macBytes) { Self.appendBase64url(digest, to: &$0) }
        return String(decoding: out, as: UTF8.self)
    }

    private func macDigest(_ covered: UnsafeRawBufferPointer) -> InlineArray<16, UInt8> {
        chain.inlineDigest { $0.append(covered) }
    }

    private static func appendBase64url(_ digest: InlineArray<16, UInt8>, to out: inout ByteCursor) {
        digest.span.withUnsafeBytes { out.base64url($0) }
    }
}

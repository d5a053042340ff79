import ExtrasBase64
import KeychainJSON
public import KeychainCrypto

/// The audit log's two keys, derived from the instance key (`crypto_kdf`, context `kcdaudit`):
/// one for the keyed hashes of query values, one for the chain of lines.
///
/// Derived, not stored: whoever holds the instance key file (the operator, `keychaind audit`)
/// can search the log for a value and verify the chain, and nobody else can do either, or forge
/// a line. A value's hash is the same in every line and on every replica that shares the key.
public struct AuditKeys: Sendable {
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
        appendHash(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `hash(value)`'s bytes, without an intermediate array or string (once per query
    /// value of every request).
    func appendHash(_ value: String, to out: inout [UInt8]) {
        out.appendLiteral("hmac:")
        Self.appendBase64url(values.inlineDigest { $0.append(value) }, to: &out)
    }

    /// Appends the chain's value for the covered bytes `out[covered]`: the line's `mac`, and the
    /// next line's `prev`.
    func appendMAC(covering covered: Range<Int>, to out: inout [UInt8]) {
        let digest = out.withUnsafeBytes { macDigest(UnsafeRawBufferPointer(rebasing: $0[covered])) }
        Self.appendBase64url(digest, to: &out)
    }

    /// What `appendMAC` appends for `covered`, as a string (the verifier's side).
    func mac(_ covered: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        Self.appendBase64url(covered.withUnsafeBytes { macDigest($0) }, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func macDigest(_ covered: UnsafeRawBufferPointer) -> InlineArray<16, UInt8> {
        chain.inlineDigest { $0.append(covered) }
    }

    private static func appendBase64url(_ digest: InlineArray<16, UInt8>, to out: inout [UInt8]) {
        let options: Base64.EncodingOptions = [.base64UrlAlphabet, .omitPaddingCharacter]
        out.append(addingCapacity: Base64.encodedLength(bytesCount: 16, options: options)) { output in
            Base64.encode(bytes: digest.span, into: &output, options: options)
        }
    }
}

import ExtrasBase64
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
        "hmac:" + Self.base64url(values.digest(Array(value.utf8)))
    }

    /// The chain's value for a line's covered bytes (`AuditLine`): its `mac`, and the next line's `prev`.
    func mac(_ covered: ArraySlice<UInt8>) -> String {
        Self.base64url(chain.digest { input in covered.withUnsafeBytes { input.append($0) } })
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }
}

// What every test target works with: JSON values, the API's parser and writers, base64.
@_exported public import ExtrasBase64
@_exported public import KeychainAPI
@_exported public import KeychainJSON

extension Base64 {
    /// Standard alphabet, padded.
    public static func encode(_ bytes: [UInt8]) -> String { encodeToString(bytes: bytes) }

    /// The bytes of a canonical encoding, or `nil`.
    public static func decode(_ text: String) -> [UInt8]? { decodeCanonical(text) }
}

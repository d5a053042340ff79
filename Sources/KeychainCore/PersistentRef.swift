public import ExtrasBase64

/// Persistent references: 16 random bytes, URL-safe base64 without padding (22 characters).
public enum PersistentRef {
    static let length = 16

    public static func encode(_ bytes: [UInt8]) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// The 16 bytes of a well-formed reference, or `nil`.
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count == 22, let bytes = Base64.decodeCanonical(text, urlSafe: true), bytes.count == length else {
            return nil
        }
        return bytes
    }
}

extension Base64 {
    /// The bytes `text` encodes, or `nil` unless `text` is their canonical encoding: the
    /// standard alphabet padded or not, or with `urlSafe` the URL-safe one without padding.
    /// So every byte string has one spelling (two, padded and not, in the standard alphabet),
    /// and nothing else — whitespace, a misplaced `=`, stray low bits — is taken.
    public static func decodeCanonical(_ text: String, urlSafe: Bool = false) -> [UInt8]? {
        let decodeOptions: DecodingOptions = urlSafe ? [.base64UrlAlphabet, .omitPaddingCharacter] : [.omitPaddingCharacter]
        guard let bytes = try? decode(string: text, options: decodeOptions) else { return nil }
        let padded = urlSafe ? nil : encodeToString(bytes: bytes)
        let unpadded = encodeToString(bytes: bytes, options: urlSafe ? [.base64UrlAlphabet, .omitPaddingCharacter] : [.omitPaddingCharacter])
        return text == unpadded || text == padded ? bytes : nil
    }
}

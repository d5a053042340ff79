public import ExtrasBase64

/// Persistent references: 16 random bytes, URL-safe base64 without padding (22 characters),
/// after `<keychain>.` for an item of a keychain other than `default` (base64url has no `.`).
public enum PersistentRef {
    static let length = 16

    public static func encode(_ bytes: [UInt8]) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// The reference of an item of the keychain `keychain`.
    public static func encode(_ bytes: [UInt8], keychain: String) -> String {
        keychain.isSameBytes(as: KeychainName.default) ? encode(bytes) : keychain + "." + encode(bytes)
    }

    /// The keychain and the 16 bytes of a well-formed reference, or `nil`. A reference that
    /// spells `default.` out is not one: each item has one reference.
    public static func parse(_ text: String) -> (keychain: String, bytes: [UInt8])? {
        guard let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")) else {
            return decode(text).map { (KeychainName.default, $0) }
        }
        let name = String(text[..<dot])
        guard KeychainName.isValid(name), !name.isSameBytes(as: KeychainName.default),
            let bytes = decode(String(text[text.utf8.index(after: dot)...]))
        else { return nil }
        return (name, bytes)
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
    /// The bytes `text` encodes, or `nil` unless `text` is their canonical encoding: in the
    /// standard or the URL-safe alphabet, padded or not (the API's input), or with `urlSafe`
    /// in the URL-safe alphabet without padding only (persistent references). Nothing else —
    /// whitespace, a misplaced `=`, stray low bits — is taken.
    public static func decodeCanonical(_ text: String, urlSafe: Bool = false) -> [UInt8]? {
        if urlSafe { return canonical(text, urlAlphabet: true, padding: false) }
        return canonical(text, urlAlphabet: false, padding: true) ?? canonical(text, urlAlphabet: true, padding: true)
    }

    private static func canonical(_ text: String, urlAlphabet: Bool, padding: Bool) -> [UInt8]? {
        let alphabet: EncodingOptions = urlAlphabet ? [.base64UrlAlphabet] : []
        let decoding: DecodingOptions = urlAlphabet ? [.base64UrlAlphabet, .omitPaddingCharacter] : [.omitPaddingCharacter]
        guard let bytes = try? decode(string: text, options: decoding) else { return nil }
        if text == encodeToString(bytes: bytes, options: alphabet.union(.omitPaddingCharacter)) { return bytes }
        return padding && text == encodeToString(bytes: bytes, options: alphabet) ? bytes : nil
    }
}

/// Keychain names: what routes, references, files and PostgreSQL schemas are named after.
///
/// 1…48 characters of `a`–`z`, `0`–`9`, `-` and `_`, beginning with a letter or a digit: a
/// name is a path segment, a file name and a database identifier as it is, with nothing to
/// escape and one spelling (no case, no Unicode forms to compare).
public enum KeychainName {
    /// The first keychain: `keychaind init` creates it, and a server's data from before there
    /// were several opens as it.
    public static let `default` = "default"
    /// `POST /v1/keychains/lock-all` takes this place among the names.
    public static let reserved: Set<String> = ["lock-all"]
    public static let maxLength = 48

    /// Whether `name` is a well-formed keychain name.
    public static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, bytes.count <= maxLength, isLetterOrDigit(first) else { return false }
        return bytes.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
            && !reserved.contains(name)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// errSecParam naming `key` unless `name` is well formed.
    public static func check(_ name: String, key: String) throws(KeychainError) {
        guard isValid(name) else {
            throw .param(
                "\(key): a keychain name is 1…\(maxLength) of a-z, 0-9, - and _, beginning with a letter or a digit"
                    + (reserved.contains(name) ? " (and not \(name))" : ""))
        }
    }
}

extension KeychainError {
    /// The one answer for a keychain that is missing or that the token may not use: the same
    /// bytes either way (HTTP 404).
    public static let noSuchKeychain = noSuchKeychain("keychain: no such keychain")

    /// errSecNoSuchKeychain naming a keychain the caller itself named (a bundle's), which
    /// reveals nothing it did not know.
    static func noSuchKeychain(_ message: String) -> KeychainError { KeychainError(-25294, "errSecNoSuchKeychain", message) }
}

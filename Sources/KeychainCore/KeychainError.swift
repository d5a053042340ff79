/// An error of the keychain core: an OSStatus, its `errSec` name, and a message naming the key at fault.
///
/// Messages never contain a secret, a token, a passphrase or an attribute value.
public struct KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The OSStatus (`-25300`, …).
    public let status: Int32
    /// Apple's name for it (`errSecItemNotFound`, …).
    public let name: String
    public let message: String
    /// For errSecDuplicateItem: the colliding item's persistent reference, when the caller may see it.
    public let persistentRef: String?
    /// For a throttled unlock: seconds until the next attempt is allowed.
    public let retryAfter: Int?

    init(_ status: Int32, _ name: String, _ message: String, persistentRef: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.name = name
        self.message = message
        self.persistentRef = persistentRef
        self.retryAfter = retryAfter
    }

    public var description: String { "\(name) (\(status)): \(message)" }

    /// Equality compares the status (and, for throttling, nothing more): messages may change.
    public static func == (lhs: KeychainError, rhs: KeychainError) -> Bool { lhs.status == rhs.status && lhs.name == rhs.name }

    // MARK: the error table (docs/semantics.md §5)

    public static func param(_ message: String) -> KeychainError { KeychainError(-50, "errSecParam", message) }
    public static func noSuchAttr(_ key: String, _ detail: String) -> KeychainError {
        KeychainError(-25303, "errSecNoSuchAttr", "\(key): \(detail)")
    }
    public static func noSuchClass(_ message: String) -> KeychainError { KeychainError(-25306, "errSecNoSuchClass", message) }
    public static func authFailed(_ message: String) -> KeychainError { KeychainError(-25293, "errSecAuthFailed", message) }
    public static func missingEntitlement(_ message: String) -> KeychainError {
        KeychainError(-34018, "errSecMissingEntitlement", message)
    }
    /// The one not-found error: the same bytes whether the item is missing or in another group.
    public static let itemNotFound = KeychainError(-25300, "errSecItemNotFound", "no item matches the query")
    public static func duplicateItem(persistentRef: String?) -> KeychainError {
        KeychainError(
            -25299, "errSecDuplicateItem", "an item with the same primary key already exists", persistentRef: persistentRef)
    }
    /// `If-Match` named another version than the item's (HTTP 412).
    public static func preconditionFailed(_ message: String) -> KeychainError {
        KeychainError(-25310, "errSecWrongSecVersion", message)
    }
    public static func dataTooLarge(_ message: String) -> KeychainError { KeychainError(-25302, "errSecDataTooLarge", message) }
    public static func interactionNotAllowed(_ message: String) -> KeychainError {
        KeychainError(-25308, "errSecInteractionNotAllowed", message)
    }
    /// An access object asks for the keychain's passphrase, which the request lacks (HTTP 403).
    public static func interactionRequired(_ message: String) -> KeychainError {
        KeychainError(-25315, "errSecInteractionRequired", message)
    }
    /// Unlock refused before checking the passphrase, after too many failures (HTTP 429).
    public static func unlockThrottled(retryAfter: Int) -> KeychainError {
        KeychainError(
            -25293, "errSecAuthFailed", "too many failed unlock attempts; retry after \(retryAfter) s", retryAfter: retryAfter)
    }
    public static func decode(_ message: String) -> KeychainError { KeychainError(-26275, "errSecDecode", message) }
    public static func notAvailable(_ message: String) -> KeychainError { KeychainError(-25291, "errSecNotAvailable", message) }
    public static func unimplemented(_ message: String) -> KeychainError { KeychainError(-4, "errSecUnimplemented", message) }
    /// Bytes that are not what the item's class holds (a certificate that does not parse).
    public static func unknownFormat(_ message: String) -> KeychainError { KeychainError(-25257, "errSecUnknownFormat", message) }

    /// The same error with the key at fault, `key`, named `name` instead: the API names what a
    /// request carries in a header (the core's `token`) by that header (`Authorization`).
    public func naming(_ key: String, as name: String) -> KeychainError {
        guard message.hasPrefix(key + ":") else { return self }
        return KeychainError(
            status, self.name, name + message.dropFirst(key.count), persistentRef: persistentRef, retryAfter: retryAfter)
    }

    /// Whether this is the throttle variant of errSecAuthFailed.
    public var isThrottle: Bool { retryAfter != nil }
}

import KeychainJSON

/// 0: No error.
public let errSecSuccess: OSStatus = 0
/// -4: Function or operation not implemented.
public let errSecUnimplemented: OSStatus = -4
/// -36: I/O error.
public let errSecIO: OSStatus = -36
/// -50: One or more parameters passed to a function were not valid.
public let errSecParam: OSStatus = -50
/// -108: Failed to allocate memory.
public let errSecAllocate: OSStatus = -108
/// -128: User canceled the operation.
public let errSecUserCanceled: OSStatus = -128
/// -909: Bad parameter or invalid state for operation.
public let errSecBadReq: OSStatus = -909
/// -25291: No keychain is available. You may need to restart your computer.
public let errSecNotAvailable: OSStatus = -25291
/// -25292: This keychain cannot be modified.
public let errSecReadOnly: OSStatus = -25292
/// -25293: The user name or passphrase you entered is not correct.
public let errSecAuthFailed: OSStatus = -25293
/// -25294: The specified keychain could not be found.
public let errSecNoSuchKeychain: OSStatus = -25294
/// -25299: The specified item already exists in the keychain.
public let errSecDuplicateItem: OSStatus = -25299
/// -25300: The specified item could not be found in the keychain.
public let errSecItemNotFound: OSStatus = -25300
/// -25302: This item contains information which is too large or in a format that cannot be displayed.
public let errSecDataTooLarge: OSStatus = -25302
/// -25303: The specified attribute does not exist.
public let errSecNoSuchAttr: OSStatus = -25303
/// -25304: The specified item is no longer valid. It may have been deleted from the keychain.
public let errSecInvalidItemRef: OSStatus = -25304
/// -25306: The specified item does not appear to be a valid keychain item.
public let errSecNoSuchClass: OSStatus = -25306
/// -25308: User interaction is not allowed.
public let errSecInteractionNotAllowed: OSStatus = -25308
/// -25315: User interaction is required, but is currently not allowed.
public let errSecInteractionRequired: OSStatus = -25315
/// -25310: This keychain was created by a different version of the system software and cannot be opened.
public let errSecWrongSecVersion: OSStatus = -25310
/// -26275: Unable to decode the provided data.
public let errSecDecode: OSStatus = -26275
/// -34018: A required entitlement isn't present.
public let errSecMissingEntitlement: OSStatus = -34018
/// -67808: A cryptographic verification failure has occurred.
public let errSecVerifyFailed: OSStatus = -67808

/// What went wrong, as Keychain Services says it: the OSStatus, its `errSec…` name, and the
/// server's message, which names the key at fault. Never carries a secret or a token.
public struct KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The result code (`errSecItemNotFound`, `errSecDuplicateItem`, …).
    public let status: OSStatus
    /// What the server (or the client, before sending) said, naming the key at fault.
    public let message: String
    /// The colliding item of an `errSecDuplicateItem`.
    public let persistentRef: String?
    /// Seconds the server asked to wait before trying again (`Retry-After`), when it did.
    public let retryAfter: Int?
    /// The HTTP status of the answer; `nil` when no answer came.
    public let httpStatus: Int?

    /// An error of `status`, saying `message`.
    public init(
        status: OSStatus, message: String, persistentRef: String? = nil, retryAfter: Int? = nil, httpStatus: Int? = nil
    ) {
        self.status = status
        self.message = message
        self.persistentRef = persistentRef
        self.retryAfter = retryAfter
        self.httpStatus = httpStatus
    }

    /// The `errSec…` name of `status`, or the number when it has none here.
    public var name: String { OSStatusText.name(status) ?? String(status) }

    public var description: String { "\(name) (\(status)): \(message)" }

    static func param(_ message: String) -> KeychainError { KeychainError(status: errSecParam, message: message) }

    static func notAvailable(_ message: String) -> KeychainError {
        KeychainError(status: errSecNotAvailable, message: message)
    }

    /// The error an answer's body states (`{"status", "error", "message"}`), or one naming the
    /// HTTP status when the body is not the API's (a proxy's own page).
    init(answer status: Int, body: [UInt8], retryAfter: Int?) {
        if let object = try? JSON.parse(body).objectValue, let code = object["status"]?.intValue,
            let message = object["message"]?.stringValue, let osStatus = OSStatus(exactly: code)
        {
            self.init(
                status: osStatus, message: message, persistentRef: object["persistentRef"]?.stringValue,
                retryAfter: retryAfter, httpStatus: status)
        } else {
            let code: OSStatus =
                switch status {
                case 401: errSecAuthFailed
                case 403: errSecMissingEntitlement
                case 404: errSecItemNotFound
                case 423: errSecInteractionNotAllowed
                default: errSecNotAvailable
                }
            self.init(
                status: code, message: "server: HTTP \(status) without a keychaind error body (a proxy's answer?)",
                retryAfter: retryAfter, httpStatus: status)
        }
    }
}

/// Keychain Services' text for a result code, as `SecCopyErrorMessageString` gives it.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> String? {
    OSStatusText.message(status)
}

/// The names and Apple's messages of the result codes keychaind answers with.
enum OSStatusText {
    private static let table: [OSStatus: (name: String, message: String)] = [
        errSecSuccess: ("errSecSuccess", "No error."),
        errSecUnimplemented: ("errSecUnimplemented", "Function or operation not implemented."),
        errSecIO: ("errSecIO", "I/O error."),
        errSecParam: ("errSecParam", "One or more parameters passed to a function were not valid."),
        errSecAllocate: ("errSecAllocate", "Failed to allocate memory."),
        errSecUserCanceled: ("errSecUserCanceled", "User canceled the operation."),
        errSecBadReq: ("errSecBadReq", "Bad parameter or invalid state for operation."),
        errSecNotAvailable: ("errSecNotAvailable", "No keychain is available. You may need to restart your computer."),
        errSecReadOnly: ("errSecReadOnly", "This keychain cannot be modified."),
        errSecAuthFailed: ("errSecAuthFailed", "The user name or passphrase you entered is not correct."),
        errSecNoSuchKeychain: ("errSecNoSuchKeychain", "The specified keychain could not be found."),
        errSecDuplicateItem: ("errSecDuplicateItem", "The specified item already exists in the keychain."),
        errSecItemNotFound: ("errSecItemNotFound", "The specified item could not be found in the keychain."),
        errSecDataTooLarge: (
            "errSecDataTooLarge", "This item contains information which is too large or in a format that cannot be displayed."
        ),
        errSecNoSuchAttr: ("errSecNoSuchAttr", "The specified attribute does not exist."),
        errSecInvalidItemRef: (
            "errSecInvalidItemRef", "The specified item is no longer valid. It may have been deleted from the keychain."
        ),
        errSecNoSuchClass: ("errSecNoSuchClass", "The specified item does not appear to be a valid keychain item."),
        errSecInteractionNotAllowed: ("errSecInteractionNotAllowed", "User interaction is not allowed."),
        errSecWrongSecVersion: (
            "errSecWrongSecVersion",
            "This keychain was created by a different version of the system software and cannot be opened."
        ),
        errSecInteractionRequired: (
            "errSecInteractionRequired", "User interaction is required, but is currently not allowed."
        ),
        errSecDecode: ("errSecDecode", "Unable to decode the provided data."),
        errSecMissingEntitlement: ("errSecMissingEntitlement", "A required entitlement isn't present."),
        errSecVerifyFailed: ("errSecVerifyFailed", "A cryptographic verification failure has occurred."),
    ]

    static func name(_ status: OSStatus) -> String? { table[status]?.name }
    static func message(_ status: OSStatus) -> String? { table[status]?.message }
}

/// An error from the crypto layer. Its message never contains key material or plaintext.
public struct CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    private enum Code: Equatable, Sendable {
        case initializationFailed
        case outOfMemory
        case authenticationFailed
        case malformedCiphertext
        case keyDerivationFailed
        case invalidLength
    }

    private let code: Code
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// libsodium could not be initialised.
    public static let initializationFailed = CryptoError(.initializationFailed, "libsodium failed to initialise")
    /// `sodium_malloc` returned NULL.
    public static let outOfMemory = CryptoError(.outOfMemory, "secure memory allocation failed")
    /// A ciphertext did not authenticate: wrong key, wrong associated data, or tampering.
    public static let authenticationFailed = CryptoError(.authenticationFailed, "ciphertext failed authentication")
    /// A sealed frame is too short or has an unknown version.
    public static let malformedCiphertext = CryptoError(.malformedCiphertext, "sealed data is malformed")
    /// Argon2id could not run (usually: not enough memory for the limits).
    public static let keyDerivationFailed = CryptoError(.keyDerivationFailed, "key derivation failed")
    /// A key or input has the wrong length.
    public static func invalidLength(_ what: String) -> CryptoError {
        CryptoError(.invalidLength, "\(what) has the wrong length")
    }

    public var description: String { message }

    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.code == rhs.code }
}

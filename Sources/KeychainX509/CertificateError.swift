/// An error reading a certificate, a distinguished name or a key (`KeyMaterial`), or the PEM and
/// PKCS #12 files they come in (`PEM`, `PKCS12`). Its message never quotes the bytes.
public struct CertificateError: Error, Equatable, Sendable, CustomStringConvertible {
    private enum Code: Equatable, Sendable {
        case malformed
        case tooLarge
        case mismatch
        case wrongPassword
    }

    private let code: Code
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The bytes are not one DER X.509 certificate (or not one DER Name).
    public static func malformed(_ detail: String) -> CertificateError { CertificateError(.malformed, detail) }
    /// A key's type and class that do not go together, whatever the bytes.
    public static func mismatch(_ detail: String) -> CertificateError { CertificateError(.mismatch, detail) }
    /// More bytes than a certificate may have here (`Certificate.maxBytes`).
    public static let tooLarge = CertificateError(.tooLarge, "more than \(Certificate.maxBytes) bytes")

    /// The password does not open a PKCS #12 file (its MAC does not verify) or an encrypted key:
    /// what Apple's `SecPKCS12Import` answers `errSecAuthFailed` for.
    public static let wrongPassword = CertificateError(.wrongPassword, "the password does not open it")

    /// Whether a key's type and class themselves are at fault rather than its bytes.
    public var isMismatch: Bool { code == .mismatch }
    /// Whether the password was at fault rather than the bytes (`wrongPassword`).
    public var isWrongPassword: Bool { code == .wrongPassword }

    public var description: String { message }

    public static func == (lhs: CertificateError, rhs: CertificateError) -> Bool { lhs.code == rhs.code }
}

/// An error reading a certificate or a distinguished name. Its message never quotes the bytes.
public struct CertificateError: Error, Equatable, Sendable, CustomStringConvertible {
    private enum Code: Equatable, Sendable {
        case malformed
        case tooLarge
    }

    private let code: Code
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The bytes are not one DER X.509 certificate (or not one DER Name).
    public static func malformed(_ detail: String) -> CertificateError { CertificateError(.malformed, detail) }
    /// More bytes than a certificate may have here (`Certificate.maxBytes`).
    public static let tooLarge = CertificateError(.tooLarge, "more than \(Certificate.maxBytes) bytes")

    public var description: String { message }

    public static func == (lhs: CertificateError, rhs: CertificateError) -> Bool { lhs.code == rhs.code }
}

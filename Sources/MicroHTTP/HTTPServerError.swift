/// Why an `HTTPServer` could not start.
///
/// Equality compares the code only; the message says what was at fault for a person.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case invalidConfiguration
        case startFailed
    }

    private let code: Code
    /// A human-readable explanation; it never carries request data.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A configuration field is out of range (the host is not an IP literal, a limit is not positive…).
    public static let invalidConfiguration = HTTPServerError(.invalidConfiguration, "invalid configuration")
    /// `MHD_start_daemon` returned NULL: the port is taken, the address is not local, or a resource ran out.
    public static let startFailed = HTTPServerError(.startFailed, "libmicrohttpd could not start")

    static func invalidConfiguration(_ message: String) -> HTTPServerError {
        HTTPServerError(.invalidConfiguration, message)
    }

    static func startFailed(_ message: String) -> HTTPServerError {
        HTTPServerError(.startFailed, message)
    }

    public static func == (lhs: HTTPServerError, rhs: HTTPServerError) -> Bool {
        lhs.code == rhs.code
    }

    public var description: String { message }
}

import Foundation
import KeychainX509
import TestSupport
import Testing

/// The key types the PEM and PKCS #12 tests run over, each made by the `openssl` command line
/// (`TestKeys`), whose Apple external representation openssl itself gave.
enum KeyKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case rsa2048, p256, p384, p521, ed25519, x25519

    var testDescription: String { rawValue }

    var algorithm: KeyMaterial.Algorithm {
        switch self {
        case .rsa2048: .rsa
        case .p256, .p384, .p521: .ec
        case .ed25519: .ed25519
        case .x25519: .x25519
        }
    }

    /// Whether a certificate can carry the key (X25519 cannot sign one for itself).
    var certifiable: Bool { self != .x25519 }

    func make(_ keys: TestKeys) throws -> TestKeys.Made {
        switch self {
        case .rsa2048: try keys.rsa(rawValue, bits: 2048)
        case .p256: try keys.ec(rawValue, curve: "P-256")
        case .p384: try keys.ec(rawValue, curve: "P-384")
        case .p521: try keys.ec(rawValue, curve: "P-521")
        case .ed25519: try keys.raw25519(rawValue, algorithm: "ED25519")
        case .x25519: try keys.raw25519(rawValue, algorithm: "X25519")
        }
    }

    /// The kinds a certificate (and so a PKCS #12 identity) can be made of.
    static let certifiable = allCases.filter(\.certifiable)
}

/// The `openssl` command line with what it writes to standard error (`pkcs12 -info` writes
/// there), and a failure as a thrown error: `TestCertificates.openssl` leaves standard error out.
struct OpenSSL {
    let directory: String

    struct Failed: Error, CustomStringConvertible {
        let arguments: [String]
        let standardError: String
        var description: String { "openssl \(arguments.joined(separator: " ")) failed: \(standardError)" }
    }

    /// Runs `openssl arguments`; its standard output and standard error.
    @discardableResult
    func run(_ arguments: [String], input: [UInt8]? = nil) throws -> (out: [UInt8], err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Standard error is read on another thread so that neither pipe fills while the other is read.
        let errors = ErrorReader(err.fileHandleForReading)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let standardError = errors.finish()
        guard process.terminationStatus == 0 else { throw Failed(arguments: arguments, standardError: standardError) }
        return (Array(data), standardError)
    }

    /// The bytes of `name` in the directory.
    func read(_ name: String) throws -> [UInt8] { try TestCertificates.read(path(name)) }

    /// Writes `bytes` to `name` in the directory; its path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    func path(_ name: String) -> String { "\(directory)/\(name)" }
}

/// Reads a pipe to its end on a thread of its own.
private final class ErrorReader: @unchecked Sendable {  // `text` is written before `done` is signalled, read after
    private var text = ""
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            done.signal()
        }
    }

    func finish() -> String {
        done.wait()
        return text
    }
}

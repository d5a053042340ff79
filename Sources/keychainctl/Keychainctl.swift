import ArgumentParser
import Foundation
import KeychainClient

#if canImport(Glibc)
    import Glibc
#endif

/// `security(1)`'s verbs against a keychaind server.
@main
struct Keychainctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keychainctl",
        abstract: "Command line interface to a keychaind server, shaped like security(1).",
        discussion: """
            The server is KEYCHAIND_URL (or --url); the token comes from KEYCHAIND_TOKEN, \
            KEYCHAIND_TOKEN_FILE, --token-file or the config file, never from an argument.
            """,
        subcommands: [
            AddGenericPassword.self, AddInternetPassword.self, FindGenericPassword.self, FindInternetPassword.self,
            DeleteGenericPassword.self, DeleteInternetPassword.self, SetGenericPasswordAccess.self,
            SetInternetPasswordAccess.self, CreateKeychain.self, DeleteKeychain.self,
            ListKeychains.self, DefaultKeychain.self, LockKeychain.self, UnlockKeychain.self,
            ShowKeychainInfo.self, SetKeychainSettings.self, DumpKeychain.self, AddCertificates.self, FindCertificate.self,
            FindIdentity.self, Import.self, Export.self, CreateKeypair.self, Sign.self, Verify.self, Encrypt.self, Decrypt.self,
            KeyExchange.self, PublicKey.self, Token.self, Run.self, Events.self,
        ])

    /// Parses the arguments as `security` reads them, runs the verb, and exits with its status.
    static func main() async {
        let arguments = PromptedValue.rewrite(Array(CommandLine.arguments.dropFirst()))
        let status: Int32
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            status = 0
        } catch let failure as SecurityFailure {
            Terminal.error(failure.line)
            if let detail = failure.detail { Terminal.error("\(Terminal.programName): \(detail)") }
            status = failure.exitCode
        } catch let silent as SilentFailure {
            status = silent.exitCode
        } catch let failure as ToolFailure {
            Terminal.error("\(Terminal.programName): \(failure.message)")
            status = 1
        } catch {
            // Usage errors exit 2, as `security` does; --help and the like exit 0.
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                status = 0
            } else {
                Terminal.error(fullMessage(for: error))
                status = code == .validationFailure ? 2 : code.rawValue
            }
        }
        Glibc.exit(status)
    }
}

/// A Keychain Services call's failure as `security` reports it: `<program>: <function>:
/// <Apple's message>`, and the OSStatus's low byte as the exit code (44 for
/// errSecItemNotFound).
struct SecurityFailure: Error {
    let function: String
    let status: OSStatus
    /// The server's own words, when they add something to Apple's message.
    let detail: String?
    /// The exit code, when the verb's is not the status's low byte (import and export exit 1).
    private let fixedExitCode: Int32?

    init(_ function: String, _ error: KeychainError, exitCode: Int32? = nil) {
        self.function = function
        status = error.status
        fixedExitCode = exitCode
        // Apple's message says all there is for these; others get the server's reason too.
        detail = [errSecItemNotFound, errSecDuplicateItem, errSecAuthFailed].contains(error.status) ? nil : error.message
    }

    init(_ function: String, status: OSStatus, exitCode: Int32? = nil) {
        self.function = function
        self.status = status
        detail = nil
        fixedExitCode = exitCode
    }

    var line: String {
        let message = SecCopyErrorMessageString(status, nil) ?? "OSStatus \(status)"
        return "\(Terminal.programName): \(function): \(message)"
    }

    var exitCode: Int32 { fixedExitCode ?? Int32(UInt32(bitPattern: status) & 0xFF) }
}

/// A failure `security` reports by its exit code alone: a password that could not be read
/// after its item was found (locked), for `find-… -g` and `-w`.
struct SilentFailure: Error {
    let exitCode: Int32
}

/// A failure with `security`'s own wording that names no OSStatus: exit 1.
struct ToolFailure: Error {
    let message: String
}

extension ToolFailure: CustomStringConvertible {
    var description: String { message }
}

/// Calls `body`, reporting a KeychainError as `function`'s failure.
func calling<T>(_ function: String, exitCode: Int32? = nil, _ body: () async throws(KeychainError) -> T)
    async throws(SecurityFailure) -> T
{
    do {
        return try await body()
    } catch {
        throw SecurityFailure(function, error, exitCode: exitCode)
    }
}

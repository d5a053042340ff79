import Foundation
import KeychainCore
import KeychainHost
import Logging

/// Unlock from the host: the passphrase file, read at start and on SIGUSR2.
///
/// Never throttled by network failures and never counted toward them; a wrong or unreadable
/// file leaves the keychain locked with the reason in the log, and the server serving (a unit
/// that exited here would restart in a loop).
struct HostUnlock {
    let passphraseFile: String
    /// `--allow-insecure-permissions`: the file is used whoever can read it.
    let allowInsecurePermissions: Bool
    let logger: Logger

    func run(_ keychain: Keychain, when: String) {
        // Checked at start before serving (refused there); checked again here for SIGUSR2.
        if !allowInsecurePermissions, let problem = FilePermissions.check(path: passphraseFile, kind: .passphraseFile) {
            return logger.error(
                "the passphrase file is not used \(when); the keychain stays locked",
                metadata: [
                    "path": "\(passphraseFile)", "error": "\(problem)",
                ])
        }
        do {
            try keychain.unlock(passphrase: PassphraseInput.fromFile(passphraseFile), from: .host)
        } catch let error as KeychainError {
            logger.error(
                "the passphrase file did not unlock the keychain \(when); it stays locked",
                metadata: [
                    "path": "\(passphraseFile)", "error": "\(error.message)",
                ])
        } catch {
            logger.error(
                "the passphrase file cannot be used \(when); the keychain stays locked",
                metadata: [
                    "path": "\(passphraseFile)", "error": "\(error)",
                ])
        }
    }
}

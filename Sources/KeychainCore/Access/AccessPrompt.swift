public import KeychainCrypto
import Synchronization

/// The keychain's passphrase a request carries for its items' access objects: the prompt of a
/// macOS keychain, answered over HTTP. Once verified for a keychain it stands for the whole
/// request there ("Allow Once"); with `alwaysAllow`, each entry it passed trusts the token
/// from then on ("Always Allow"), written after the operation (`Keychain.applyAlwaysAllow`).
public final class AccessPrompt: Sendable {
    let passphrase: SecureBytes
    public let alwaysAllow: Bool
    private let state = Mutex(State())

    struct State {
        /// Keychains whose passphrase this is, by name.
        var verified: [String] = []
        var grants: [Grant] = []
    }

    /// An entry the passphrase passed: the item's reference and the entry's index.
    struct Grant: Equatable {
        let keychain: String
        let ref: [UInt8]
        let entry: Int
    }

    public init(passphrase: SecureBytes, alwaysAllow: Bool) {
        self.passphrase = passphrase
        self.alwaysAllow = alwaysAllow
    }

    /// Whether the passphrase was verified for `keychain` in this request.
    public func isVerified(for keychain: String) -> Bool {
        state.withLock { $0.verified.contains { $0.isSameBytes(as: keychain) } }
    }

    func markVerified(for keychain: String) {
        state.withLock { $0.verified.append(keychain) }
    }

    func record(_ grant: Grant) {
        state.withLock { state in if !state.grants.contains(grant) { state.grants.append(grant) } }
    }

    /// The keychains where the passphrase passed an entry.
    public var grantedKeychains: [String] {
        state.withLock { state in
            var names: [String] = []
            for grant in state.grants where !names.contains(where: { $0.isSameBytes(as: grant.keychain) }) {
                names.append(grant.keychain)
            }
            return names
        }
    }

    func grants(in keychain: String) -> [Grant] {
        state.withLock { $0.grants.filter { $0.keychain.isSameBytes(as: keychain) } }
    }
}

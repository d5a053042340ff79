import ArgumentParser
import KeychainAPI
import KeychainCore
import KeychainCrypto
import KeychainJSON

extension Keychaind {
    /// `keychaind token create|list|revoke`: local administration of a data directory.
    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create, list and revoke tokens in a data directory.", subcommands: [Create.self, List.self, Revoke.self])

        struct Create: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create a token; prints its secret once.")
            @OptionGroup var store: StoreOptions
            @Option(help: "A name for the token.") var name: String
            @Option(name: .customLong("group"), help: "An access group (repeatable; * = all).") var groups: [String]
            @Option(name: .customLong("capability"), help: "read, list, write, delete, lock, admin, metrics or use (repeatable).")
            var capabilities: [String]
            @Option(help: "Expiry as an RFC 3339 date-time.") var expiresAt: String?

            func run() throws {
                var caps = Set<Capability>()
                for name in capabilities {
                    guard let capability = Capability(rawValue: name) else { throw ValidationError("unknown capability \(name)") }
                    caps.insert(capability)
                }
                let expiry = try expiresAt.map { text -> Int64 in
                    guard let ms = RFC3339.parse(text) else { throw ValidationError("--expires-at: not an RFC 3339 date-time") }
                    return ms
                }
                let keychain = try store.openKeychain()
                defer { keychain.close() }
                let issued = try keychain.createToken(
                    name: name, accessGroups: groups, capabilities: caps, expiresAt: expiry, caller: nil)
                print("\(issued.token.id)\n\(issued.secret)")
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List tokens (never their secrets).")
            @OptionGroup var store: StoreOptions

            func run() throws {
                let keychain = try store.openKeychain()
                defer { keychain.close() }
                for token in try keychain.listTokens(caller: nil) {
                    print(String(decoding: token.json.serialized(), as: UTF8.self))
                }
            }
        }

        struct Revoke: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a token by id.")
            @OptionGroup var store: StoreOptions
            @Argument(help: "The token id (tok_…).") var id: String

            func run() throws {
                let keychain = try store.openKeychain()
                defer { keychain.close() }
                try keychain.revokeToken(id: id, caller: nil)
                print("revoked \(id)")
            }
        }
    }
}

import ArgumentParser
import Foundation
import KeychainClient

/// Token administration, as `keychaind token` does it locally, through the server.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Administer tokens (needs the admin capability).",
        subcommands: [Create.self, List.self, Revoke.self, Show.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a token; prints its id, then its secret (shown this once).")
        @Option(name: .customLong("name"), help: "A name for people.") var name: String
        @Option(name: .customLong("group"), help: "An access group it may use (repeatable; * for all).") var groups: [String]
        @Option(name: .customLong("capability"), help: "read, list, write, delete, lock, admin, metrics or use (repeatable).")
        var capabilities: [String]
        @Option(
            name: .customLong("keychain"),
            help: "A keychain it may use, in search order; the first is its default (repeatable; * for all; default: yours).")
        var keychains: [String] = []
        @Option(name: .customLong("expires-in"), help: "Seconds until it expires (default never).") var expiresIn: Int?
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let client = try connection.client()
            let expiry = expiresIn.map { Date().addingTimeInterval(TimeInterval($0)) }
            let created = try await calling("token create") { () async throws(KeychainError) in
                try await client.createToken(
                    name: name, accessGroups: groups, keychains: keychains.isEmpty ? nil : keychains, capabilities: capabilities,
                    expiresAt: expiry)
            }
            Terminal.out("\(created.info.id)\n\(created.secret)\n")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tokens (never their secrets).")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let client = try connection.client()
            let tokens = try await calling("token list") { () async throws(KeychainError) in try await client.tokens() }
            for token in tokens { Terminal.out(Self.line(token)) }
        }

        static func line(_ token: TokenInfo) -> String {
            let expiry = token.expiresAt.map { " expires=\(ISO8601DateFormatter().string(from: $0))" } ?? ""
            return "\(token.id) \"\(token.name)\" groups=\(token.accessGroups.joined(separator: ","))"
                + " keychains=\(token.keychains.joined(separator: ","))"
                + " capabilities=\(token.capabilities.joined(separator: ","))\(expiry)\n"
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token by its id, on every replica at once.")
        @Argument(help: "The token's id (tok_…).") var id: String
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let client = try connection.client()
            try await calling("token revoke") { () async throws(KeychainError) in try await client.revokeToken(id: id) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "self", abstract: "Show the token in use.")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let client = try connection.client()
            let token = try await calling("token self") { () async throws(KeychainError) in try await client.currentToken() }
            Terminal.out(List.line(token))
        }
    }
}

/// `keychainctl run --env NAME=service[/account] … -- command …`: the command runs with the
/// secrets in its environment, and nowhere else: not in its arguments, not on disk.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a command with secrets in its environment.",
        discussion: """
            Each --env NAME=service[/account] reads that generic password and sets NAME to it. \
            keychainctl then becomes the command (exec): its exit status is the command's.
            """)
    @Option(name: .customLong("env"), help: "NAME=service[/account] (repeatable).") var bindings: [String]
    @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.") var command: [String]
    @OptionGroup var connection: ConnectionOptions

    struct Binding {
        let name: String
        let service: String
        let account: String
    }

    static func parse(_ text: String) throws(ValidationError) -> Binding {
        guard let equals = text.firstIndex(of: "=") else {
            throw ValidationError("--env \(text): expected NAME=service[/account]")
        }
        let name = String(text[..<equals])
        let target = text[text.index(after: equals)...]
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !(name.first?.isNumber ?? true),
            !target.isEmpty
        else {
            throw ValidationError("--env \(text): expected NAME=service[/account], NAME letters, digits and _")
        }
        if let slash = target.lastIndex(of: "/") {
            return Binding(name: name, service: String(target[..<slash]), account: String(target[target.index(after: slash)...]))
        }
        return Binding(name: name, service: String(target), account: "")
    }

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("no command to run: give it after --") }
        for binding in bindings { _ = try Self.parse(binding) }
    }

    func run() async throws {
        let client = try connection.client()
        var values: [(String, String)] = []
        for text in bindings {
            let binding = try Self.parse(text)
            let secret = try await calling("SecKeychainSearchCopyNext") { () async throws(KeychainError) in
                try await client.genericPassword(service: binding.service, account: binding.account)
            }
            guard let value = String(data: secret, encoding: .utf8), !value.utf8.contains(0) else {
                throw ToolFailure(message: "--env \(binding.name): the secret is not text without NUL bytes")
            }
            values.append((binding.name, value))
        }
        await client.shutdown()
        for (name, value) in values { setenv(name, value, 1) }
        let arguments = command.map { strdup($0) } + [nil]
        execvp(command[0], arguments)
        throw ToolFailure(message: "\(command[0]): \(String(cString: strerror(errno)))")
    }
}

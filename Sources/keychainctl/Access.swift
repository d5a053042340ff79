import ArgumentParser
import Foundation
import KeychainClient

/// An item's access object as `security dump-keychain -a` prints one (SecurityTool's
/// `print_access`): each entry's authorizations by their CSSM names, whether it asks for the
/// password, its description, and its trusted tokens in the place of applications.
enum AccessFormat {
    /// The CSSM names `security` prints, by keychaind's authorization.
    static let tagNames: [String: String] = [
        kSecACLAuthorizationAny: "any", kSecACLAuthorizationDecrypt: "decrypt", kSecACLAuthorizationEncrypt: "encrypt",
        kSecACLAuthorizationSign: "sign", kSecACLAuthorizationDerive: "derive", kSecACLAuthorizationExportClear: "export_clear",
        kSecACLAuthorizationKeychainItemModify: "db_modify", kSecACLAuthorizationKeychainItemDelete: "db_delete",
        kSecACLAuthorizationChangeACL: "change_acl",
    ]

    static func lines(_ access: SecAccess?) -> String {
        guard let access else { return "no access control for this item\n" }
        var out = "access: \(access.entries.count) entries\n"
        for (index, entry) in access.entries.enumerated() {
            let tags = entry.authorizations.map { " " + (tagNames[$0] ?? $0) }.joined()
            out += "    entry \(index):\n        authorizations (\(entry.authorizations.count)):\(tags)\n"
            out += entry.prompt ? "        require-password\n" : "        don't-require-password\n"
            out += "        description: \(entry.description)\n"
            guard let tokens = entry.trustedTokens else {
                out += "        applications: <null>\n"
                continue
            }
            out += "        applications (\(tokens.count)):\n"
            for (n, token) in tokens.enumerated() {
                out += "            \(n): \(token)\n                requirement: none\n"
            }
        }
        return out
    }

    /// An access object in the server's JSON form, read from `path` (`-` for standard input):
    /// the object, or the whole answer of `GET /v1/items/{ref}/access` that holds it.
    static func read(_ path: String) throws(ToolFailure) -> SecAccess {
        let data = try readFile(path == "-" ? nil : path)
        func bad(_ what: String) -> ToolFailure { ToolFailure(message: "--from: \(what)") }
        let parsed = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        guard let object = parsed?["access"] as? [String: Any] ?? parsed, let list = object["entries"] as? [Any] else {
            throw bad("expected a JSON object with \"entries\", as GET /v1/items/{ref}/access answers it under \"access\"")
        }
        var entries: [SecACL] = []
        for (index, element) in list.enumerated() {
            let at = "entries[\(index)]"
            guard let entry = element as? [String: Any] else { throw bad("\(at): expected an object") }
            guard let tags = entry["authorizations"] as? [String] else { throw bad("\(at).authorizations: expected strings") }
            let tokens: [String]?
            switch entry["tokens"] {
            case let any as String where any == "any": tokens = nil
            case let ids as [String]: tokens = ids
            default: throw bad("\(at).tokens: expected an array of token ids, or \"any\"")
            }
            guard let description = entry["description"] as? String? else { throw bad("\(at).description: expected a string") }
            guard let prompt = entry["prompt"] as? Bool? else { throw bad("\(at).prompt: expected true or false") }
            entries.append(
                SecACL(authorizations: tags, trustedTokens: tokens, description: description ?? "", prompt: prompt ?? false))
        }
        return SecAccess(entries: entries)
    }
}

/// What `set-…-access` gives the item: SecAccessCreate's object for `-T` tokens, none (`-A`),
/// or one read from a file.
struct AccessChange: ParsableArguments {
    @OptionGroup var given: AccessOptions
    @Option(name: .customLong("from"), help: "An access object in JSON, as GET /v1/items/{ref}/access answers (- for stdin).")
    var file: String?

    func validate() throws {
        guard [!given.trusted.isEmpty, given.anyToken, file != nil].filter(\.self).count == 1 else {
            throw ValidationError("give one of -T, -A or --from")
        }
    }

    /// Gives the first item of `query` its new access object. The owner's entry may ask for the
    /// keychain's password: on a terminal it is asked for, as macOS's dialog does.
    func apply(to query: ItemQuery, connection: ConnectionOptions) async throws {
        // A file that is no access object is refused before anything is asked of the server.
        var access = try file.map(AccessFormat.read)
        let client = try connection.client()
        let item = try await calling("SecKeychainSearchCopyNext") { () async throws(KeychainError) in
            try await client.item(query)
        }
        if !given.trusted.isEmpty {
            access = try await given.access(client, description: item.label ?? item.service ?? item.server ?? "")
        }
        let ref = Data((item.persistentRef ?? "").utf8)
        func set() async -> Result<Void, KeychainError> {
            do { return .success(try await client.SecKeychainItemSetAccess(ref, access)) } catch { return .failure(error) }
        }
        let result = try await askingOnTerminal(set)
        if case .failure(let error) = result { throw SecurityFailure("SecKeychainItemSetAccess", error) }
    }
}

struct SetGenericPasswordAccess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-generic-password-access",
        abstract: "Set the access object of a generic password item (keychaind's own verb).")
    @OptionGroup var attributes: PasswordAttributes
    @OptionGroup var generic: GenericAttributes
    @OptionGroup var change: AccessChange
    @Argument(help: "The keychains to search, in order (default: the token's search list).") var keychains: [String] = []
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await change.apply(to: generic.query(attributes).searching(keychains), connection: connection)
    }
}

struct SetInternetPasswordAccess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-internet-password-access",
        abstract: "Set the access object of an internet password item (keychaind's own verb).")
    @OptionGroup var attributes: PasswordAttributes
    @OptionGroup var internet: InternetAttributes
    @OptionGroup var change: AccessChange
    @Argument(help: "The keychains to search, in order (default: the token's search list).") var keychains: [String] = []
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let query = internet.query(attributes).searching(keychains)
        try await change.apply(to: query, connection: connection)
    }
}

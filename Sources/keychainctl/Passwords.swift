import ArgumentParser
import Foundation
import KeychainClient

/// The attributes the password verbs share, with `security`'s letters.
struct PasswordAttributes: ParsableArguments {
    @Option(name: .customShort("a"), help: "Match/set the account name.") var account: String?
    @Option(name: .customShort("c"), help: "Match/set the creator (a four-character code).") var creator: String?
    @Option(name: .customShort("C"), help: "Match/set the type (a four-character code).") var type: String?
    @Option(name: .customShort("D"), help: "Match/set the kind (the description).") var kind: String?
    @Option(name: .customShort("j"), help: "Match/set the comment.") var comment: String?
    @Option(name: .customShort("l"), help: "Match/set the label.") var label: String?

    func apply(to query: ItemQuery) -> ItemQuery {
        query.matching("account", account.map(AttributeValue.string)).matching("creator", creator.map(AttributeValue.string))
            .matching("type", type.map(AttributeValue.string)).matching("description", kind.map(AttributeValue.string))
            .matching("comment", comment.map(AttributeValue.string)).matching("label", label.map(AttributeValue.string))
    }

    var attributes: [String: AttributeValue] {
        var out: [String: AttributeValue] = [:]
        if let account { out["account"] = .string(account) }
        if let creator { out["creator"] = .string(creator) }
        if let type { out["type"] = .string(type) }
        if let kind { out["description"] = .string(kind) }
        if let comment { out["comment"] = .string(comment) }
        return out
    }
}

/// The generic password's own attributes: its service and generic attribute.
struct GenericAttributes: ParsableArguments {
    @Option(name: .customShort("s"), help: "Match/set the service name.") var service: String?
    @Option(name: .customShort("G"), help: "Match/set the generic attribute (value string).") var generic: String?

    /// `attributes` and these, matched in a query of generic passwords.
    func query(_ attributes: PasswordAttributes) -> ItemQuery {
        let query = attributes.apply(to: ItemQuery(.genericPassword)).matching("service", service.map(AttributeValue.string))
        return generic.map { query.matching("generic", .data(Data($0.utf8))) } ?? query
    }
}

/// The internet password's own attributes.
struct InternetAttributes: ParsableArguments {
    @Option(name: .customShort("d"), help: "Match/set the security domain.") var securityDomain: String?
    @Option(name: .customShort("p"), help: "Match/set the path.") var path: String?
    @Option(name: .customShort("P"), help: "Match/set the port number.") var port: Int?
    @Option(name: .customShort("r"), help: "Match/set the protocol (a four-character code, e.g. htps).") var `protocol`: String?
    @Option(name: .customShort("s"), help: "Match/set the server name.") var server: String?
    @Option(name: .customShort("t"), help: "Match/set the authentication type (a four-character code, e.g. dflt).")
    var authenticationType: String?

    /// `attributes` and these, matched in a query of internet passwords.
    func query(_ attributes: PasswordAttributes) -> ItemQuery { apply(to: attributes.apply(to: ItemQuery(.internetPassword))) }

    func apply(to query: ItemQuery) -> ItemQuery {
        query.matching("securityDomain", securityDomain.map(AttributeValue.string)).matching(
            "path", path.map(AttributeValue.string)
        )
        .matching("port", port.map { AttributeValue.int(Int64($0)) })
        .matching("protocol", `protocol`.map(AttributeValue.string)).matching("server", server.map(AttributeValue.string))
        .matching("authenticationType", authenticationType.map(AttributeValue.string))
    }

    var attributes: [String: AttributeValue] {
        var out: [String: AttributeValue] = [:]
        if let securityDomain { out["securityDomain"] = .string(securityDomain) }
        if let path { out["path"] = .string(path) }
        if let port { out["port"] = .int(Int64(port)) }
        if let `protocol` { out["protocol"] = .string(`protocol`) }
        if let server { out["server"] = .string(server) }
        if let authenticationType { out["authenticationType"] = .string(authenticationType) }
        return out
    }
}

/// The password of a new item: `-w password`, `-X hex`, or prompted for when `-w` ends the line.
struct NewPassword: ParsableArguments {
    @Option(name: .customShort("w"), help: "The password; put -w last to be prompted for it (recommended).")
    var password: String?
    @Option(name: .customShort("X"), help: "The password as a hexadecimal string.") var hex: String?
    @Flag(name: .customLong("prompt-for-password"), help: .hidden) var prompt = false

    func data() throws(ToolFailure) -> Data {
        if prompt { return Data(try PromptedValue.prompt().utf8) }
        if let hex {
            guard let bytes = Self.bytes(hex: hex) else {
                throw ToolFailure(message: "Unable to convert password data (-X must specify valid hex digits)")
            }
            return Data(bytes)
        }
        return Data((password ?? "").utf8)
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[pair..<pair + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}

/// What keychaind adds to `security`'s flags: the access group and protection class.
struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("access-group"), help: "The item's access group (default: the token's first).")
    var accessGroup: String?
    @Option(name: .customLong("accessible"), help: "The protection class (default whenUnlocked).") var accessible: String?
}

/// security's `-A` and `-T`: who may use the new item without the keychain's password. Tokens
/// stand for applications: `-T` names a token id (repeatable; `-T ""` trusts none), and the item
/// gets SecAccessCreate's access object; `-A`, or neither, leaves it to its group's tokens.
struct AccessOptions: ParsableArguments {
    @Flag(name: .customShort("A"), help: "Allow any token of the item's group to use it (no access object).")
    var anyToken = false
    @Option(name: .customShort("T"), help: "A token id trusted to use the item without the keychain's password (repeatable).")
    var trusted: [String] = []

    func validate() throws {
        if anyToken, !trusted.isEmpty { throw ValidationError("-A and -T cannot be combined") }
    }

    /// The access object, when `-T` asks for one.
    func access(_ client: KeychainClient, description: String) async throws -> SecAccess? {
        guard !trusted.isEmpty else { return nil }
        let ids = trusted.filter { !$0.isEmpty }
        return try await calling("SecAccessCreate") { () async throws(KeychainError) in
            try await client.SecAccessCreate(description, ids)
        }
    }
}

struct AddGenericPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-generic-password", abstract: "Add a generic password item.")
    @OptionGroup var attributes: PasswordAttributes
    @OptionGroup var generic: GenericAttributes
    @OptionGroup var password: NewPassword
    @Flag(name: .customShort("U"), help: "Update item if it already exists.") var update = false
    @OptionGroup var access: AccessOptions
    @OptionGroup var storage: StorageOptions
    @Argument(help: "The keychain to add it to (default: the token's default keychain).") var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard attributes.account != nil, generic.service != nil else {
            throw ValidationError("both -a account and -s service are required")
        }
    }

    func run() async throws {
        let client = try connection.client()
        let secret = try password.data()
        var extra = attributes.attributes
        if let keychain { extra["useKeychain"] = .string(keychain) }
        let service = generic.service!
        extra["service"] = .string(service)
        if let value = generic.generic { extra["generic"] = .data(Data(value.utf8)) }
        // security labels a new password with its service.
        var options = NewItemOptions(
            label: attributes.label ?? service, accessGroup: storage.accessGroup, accessible: storage.accessible,
            attributes: extra)
        options.access = try await access.access(client, description: options.label ?? service)
        _ = try await calling("SecKeychainItemCreateFromContent (<default>)") { () async throws(KeychainError) in
            try await client.addGenericPassword(
                service: service, account: attributes.account!, password: secret, options: options, replacing: update)
        }
    }
}

struct AddInternetPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-internet-password", abstract: "Add an internet password item.")
    @OptionGroup var attributes: PasswordAttributes
    @OptionGroup var internet: InternetAttributes
    @OptionGroup var password: NewPassword
    @Flag(name: .customShort("U"), help: "Update item if it already exists.") var update = false
    @OptionGroup var access: AccessOptions
    @OptionGroup var storage: StorageOptions
    @Argument(help: "The keychain to add it to (default: the token's default keychain).") var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard attributes.account != nil, internet.server != nil else {
            throw ValidationError("both -a account and -s server are required")
        }
    }

    func run() async throws {
        let client = try connection.client()
        let secret = try password.data()
        var extra = attributes.attributes
        extra.merge(internet.attributes) { $1 }
        if let keychain { extra["useKeychain"] = .string(keychain) }
        var options = NewItemOptions(
            label: attributes.label ?? internet.server, accessGroup: storage.accessGroup, accessible: storage.accessible,
            attributes: extra)
        options.access = try await access.access(client, description: options.label ?? internet.server ?? "")
        let internet = internet
        _ = try await calling("SecKeychainAddInternetPassword <NULL>") { () async throws(KeychainError) in
            try await client.addInternetPassword(
                server: internet.server!, account: attributes.account!, password: secret, protocol: internet.protocol,
                port: internet.port, path: internet.path, securityDomain: internet.securityDomain,
                authenticationType: internet.authenticationType, options: options, replacing: update)
        }
    }
}

/// `operation`, and again with the keychain's password typed on the terminal when the item's
/// access object asks for it (errSecInteractionRequired), as macOS's dialog asks.
func askingOnTerminal<T>(_ operation: () async -> Result<T, KeychainError>) async throws -> Result<T, KeychainError> {
    let first = await operation()
    guard case .failure(let error) = first, error.status == errSecInteractionRequired, Terminal.standardInputIsTerminal else {
        return first
    }
    let passphrase = try Terminal.secret(prompt: "password to allow access to the item: ")
    return await KeychainClient.withPrompt(passphrase: passphrase) { await operation() }
}

/// Finds the first item of `query` and prints it as `security` does: the attributes on standard
/// output and, with `-g`, `password: …` on standard error; with `-w`, the bare password only.
func findAndPrint(_ query: ItemQuery, showPassword: Bool, passwordOnly: Bool, connection: ConnectionOptions) async throws {
    let client = try connection.client()
    let wantsData = showPassword || passwordOnly
    func fetch() async -> Result<KeychainItem, KeychainError> {
        do { return .success(try await client.item(query, returnData: wantsData)) } catch { return .failure(error) }
    }
    let found = try await askingOnTerminal(fetch)
    let item: KeychainItem
    switch found {
    case .success(let value): item = value
    case .failure(let error) where error.status == errSecInteractionNotAllowed && wantsData:
        // Found, but its password cannot be read (locked): security prints nothing at all.
        throw SilentFailure(exitCode: SecurityFailure("SecKeychainItemCopyContent", error).exitCode)
    case .failure(let error):
        throw SecurityFailure("SecKeychainSearchCopyNext", error)
    }
    if passwordOnly {
        Terminal.outBytes(SecurityFormat.bareSecret(item.data ?? Data()))
        return
    }
    Terminal.out(SecurityFormat.item(item, keychain: client.keychainName))
    if showPassword {
        Terminal.errorBytes(Array(("password: " + SecurityFormat.buffer(Array(item.data ?? Data())) + "\n").utf8))
    }
}

struct FindGenericPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-generic-password", abstract: "Find a generic password item.")
    @OptionGroup var attributes: PasswordAttributes
    @OptionGroup var generic: GenericAttributes
    @Flag(name: .customShort("g"), help: "Display the password for the item found.") var showPassword = false
    @Flag(name: .customShort("w"), help: "Display only the password on stdout.") var passwordOnly = false
    @Argument(help: "The keychains to search, in order (default: the token's search list).") var keychains: [String] = []
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let query = generic.query(attributes).searching(keychains)
        try await findAndPrint(query, showPassword: showPassword, passwordOnly: passwordOnly, connection: connection)
    }
}

struct FindInternetPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-internet-password", abstract: "Find an internet password item.")
    @OptionGroup var attributes: PasswordAttributes
    @OptionGroup var internet: InternetAttributes
    @Flag(name: .customShort("g"), help: "Display the password for the item found.") var showPassword = false
    @Flag(name: .customShort("w"), help: "Display only the password on stdout.") var passwordOnly = false
    @Argument(help: "The keychains to search, in order (default: the token's search list).") var keychains: [String] = []
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let query = internet.query(attributes).searching(keychains)
        try await findAndPrint(query, showPassword: showPassword, passwordOnly: passwordOnly, connection: connection)
    }
}

/// Deletes the first item of `query`, printing it first, as `security` does.
func deleteAndPrint(_ query: ItemQuery, connection: ConnectionOptions) async throws {
    let client = try connection.client()
    let item = try await calling("SecKeychainSearchCopyNext") { () async throws(KeychainError) in try await client.item(query) }
    Terminal.out(SecurityFormat.item(item, keychain: client.keychainName))
    func delete() async -> Result<Void, KeychainError> {
        do { return .success(try await client.deleteItem(persistentRef: item.persistentRef ?? "")) } catch {
            return .failure(error)
        }
    }
    let deleted = try await askingOnTerminal(delete)
    if case .failure(let error) = deleted { throw SecurityFailure("SecKeychainItemDelete", error) }
    Terminal.error("password has been deleted.")
}

struct DeleteGenericPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-generic-password", abstract: "Delete a generic password item.")
    @OptionGroup var attributes: PasswordAttributes
    @OptionGroup var generic: GenericAttributes
    @Argument(help: "The keychains to search, in order (default: the token's search list).") var keychains: [String] = []
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let query = generic.query(attributes).searching(keychains)
        try await deleteAndPrint(query, connection: connection)
    }
}

struct DeleteInternetPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-internet-password", abstract: "Delete an internet password item.")
    @OptionGroup var attributes: PasswordAttributes
    @OptionGroup var internet: InternetAttributes
    @Argument(help: "The keychains to search, in order (default: the token's search list).") var keychains: [String] = []
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let query = internet.query(attributes).searching(keychains)
        try await deleteAndPrint(query, connection: connection)
    }
}

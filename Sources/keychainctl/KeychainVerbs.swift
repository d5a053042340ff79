import ArgumentParser
import Foundation
import KeychainClient

/// What a verb's `keychain` argument means: a keychain's name; absent, the token's default.
let keychainArgumentHelp = ArgumentHelp("The keychain's name (default: the token's default keychain).")

struct LockKeychain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lock-keychain", abstract: "Lock the keychain.")
    @Flag(name: .customShort("a"), help: "Lock all keychains the token may use.") var all = false
    @Argument(help: keychainArgumentHelp) var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        try await calling(all ? "SecKeychainLockAll" : "SecKeychainLock") { () async throws(KeychainError) in
            if all {
                try await client.lockAll()
            } else if let keychain {
                try await client.lock(keychain: keychain)
            } else {
                try await client.lock()
            }
        }
    }
}

struct CreateKeychain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-keychain", abstract: "Create keychains (an admin token of every group and keychain).",
        discussion: "Without -p, the password is asked for twice without echo, or read from standard input.")
    @Option(
        name: .customShort("p"), help: "The new keychain's password (visible to other users of this host: prefer the prompt).")
    var password: String?
    @Flag(name: .customShort("P"), help: "Prompt for the password (the default).") var prompt = false
    @Argument(help: "The new keychains' names.") var keychains: [String]
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        for name in keychains {
            let passphrase = try password ?? Terminal.newSecret(what: "new keychain")
            _ = try await calling("SecKeychainCreate \(name)") { () async throws(KeychainError) in
                try await client.createKeychain(name: name, passphrase: passphrase)
            }
        }
    }
}

struct DeleteKeychain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-keychain", abstract: "Delete keychains and every item in them.")
    @Argument(help: "The keychains' names.") var keychains: [String]
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        for name in keychains {
            try await calling("SecKeychainDelete \(name)") { () async throws(KeychainError) in
                try await client.deleteKeychain(name: name)
            }
        }
    }
}

struct ListKeychains: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list-keychains", abstract: "Display the token's keychain search list.",
        discussion: "A token's search list is set when the token is made (token create --keychains).")
    @Option(name: .customShort("d"), help: "The preference domain (ignored: a token has one search list).") var domain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let keychains = try await calling("SecKeychainCopySearchList") { () async throws(KeychainError) in
            try await client.keychains()
        }
        for keychain in keychains { Terminal.out("    \"\(keychain.name)\"\n") }
    }
}

struct DefaultKeychain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "default-keychain", abstract: "Display the token's default keychain: the first of its search list.")
    @Option(name: .customShort("d"), help: "The preference domain (ignored: a token has one default keychain).")
    var domain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let status = try await calling("SecKeychainCopyDefault") { () async throws(KeychainError) in try await client.status() }
        Terminal.out("    \"\(status.name)\"\n")
    }
}

struct UnlockKeychain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock-keychain",
        abstract: "Unlock the keychain.",
        discussion: "The password is asked for without echo, or read from standard input when it is not a terminal.")
    @Flag(name: .customShort("u"), help: "Do not use the password (ignored: a server is unlocked with one).") var noPassword =
        false
    @Argument(help: keychainArgumentHelp) var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let passphrase = try Terminal.secret(prompt: "password to unlock \(keychain ?? "default"): ")
        try await calling("SecKeychainUnlock \(keychain ?? "<NULL>")") { () async throws(KeychainError) in
            if let keychain {
                try await client.unlock(keychain: keychain, passphrase: passphrase)
            } else {
                try await client.unlock(passphrase: passphrase)
            }
        }
    }
}

struct ShowKeychainInfo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show-keychain-info", abstract: "Show the keychain's settings.")
    @Argument(help: keychainArgumentHelp) var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let name = keychain ?? "<NULL>"
        let interval = try await calling("SecKeychainCopySettings \(name)") { () async throws(KeychainError) in
            if let keychain { return try await client.lockInterval(keychain: keychain) }
            return try await client.status().lockInterval
        }
        // security never prints " use-lock-interval": SecKeychainCopySettings leaves it unset.
        let timeout = interval > 0 ? " timeout=\(interval)s" : " no-timeout"
        Terminal.error("Keychain \"\(name)\"\(timeout)")
    }
}

struct SetKeychainSettings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-keychain-settings", abstract: "Set the keychain's settings: its auto-lock timeout.")
    @Flag(name: .customShort("l"), help: "Lock keychain when the system sleeps (ignored: a server does not sleep).")
    var lockOnSleep = false
    @Flag(name: .customShort("u"), help: "Lock keychain after timeout interval.") var useInterval = false
    @Option(name: .customShort("t"), help: "Timeout in seconds (omitting this option specifies \"no timeout\").")
    var timeout: Int?
    @Argument(help: keychainArgumentHelp) var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        try await calling("SecKeychainSetSettings \(keychain ?? "<NULL>")") { () async throws(KeychainError) in
            if let keychain {
                try await client.setLockInterval(timeout ?? 0, keychain: keychain)
            } else {
                try await client.setLockInterval(timeout ?? 0)
            }
        }
    }
}

struct DumpKeychain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump-keychain", abstract: "Dump the contents of the keychain: every item the token may see.")
    @Flag(name: .customShort("a"), help: "Dump access control lists of items (their access objects).") var acl = false
    @Flag(name: .customShort("d"), help: "Dump (decrypted) data of items.") var data = false
    @Flag(name: .customShort("i"), help: "Interactive access control list editing (not on a server).") var interactive = false
    @Flag(name: .customShort("r"), help: "Dump the raw (encrypted) data of items (the decrypted data here).") var raw = false
    @Argument(help: "The keychain (default: the token's search list).") var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let total = try? await client.status().items
        let progress = ProgressBar("dump-keychain", total: total)
        defer { progress.finish() }
        let name = client.keychainName
        for itemClass in [ItemClass.genericPassword, .internetPassword, .certificate, .key] {
            do {
                for try await item in client.items(
                    ItemQuery(itemClass).searching(keychain.map { [$0] } ?? []), returnData: data || raw)
                {
                    Terminal.out(SecurityFormat.item(item, keychain: name, showData: data || raw))
                    if acl { Terminal.out(try await access(of: item, client)) }
                    progress.advance()
                }
            } catch let error as KeychainError {
                throw SecurityFailure("SecKeychainSearchCopyNext", error)
            }
        }
    }

    /// The item's access object, as `security` prints it.
    private func access(of item: KeychainItem, _ client: KeychainClient) async throws -> String {
        let ref = Data((item.persistentRef ?? "").utf8)
        let access = try await calling("SecKeychainItemCopyAccess") { () async throws(KeychainError) in
            try await client.SecKeychainItemCopyAccess(ref)
        }
        return AccessFormat.lines(access)
    }
}

import ArgumentParser
import Foundation
import KeychainClient

struct LockKeychain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lock-keychain", abstract: "Lock the keychain.")
    @Flag(name: .customShort("a"), help: "Lock all keychains (the server's one keychain).") var all = false
    @Argument(help: "The keychain (the server's one keychain).") var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        try await calling(all ? "SecKeychainLockAll" : "SecKeychainLock") { () async throws(KeychainError) in
            try await client.lock()
        }
    }
}

struct UnlockKeychain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock-keychain",
        abstract: "Unlock the keychain.",
        discussion: "The password is asked for without echo, or read from standard input when it is not a terminal.")
    @Flag(name: .customShort("u"), help: "Do not use the password (ignored: a server is unlocked with one).") var noPassword =
        false
    @Argument(help: "The keychain (the server's one keychain).") var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let passphrase = try Terminal.secret(prompt: "password to unlock \(keychain ?? "default"): ")
        try await calling("SecKeychainUnlock \(keychain ?? "<NULL>")") { () async throws(KeychainError) in
            try await client.unlock(passphrase: passphrase)
        }
    }
}

struct ShowKeychainInfo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show-keychain-info", abstract: "Show the keychain's settings.")
    @Argument(help: "The keychain (the server's one keychain).") var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let name = keychain ?? "<NULL>"
        let interval = try await calling("SecKeychainCopySettings \(name)") { () async throws(KeychainError) in
            try await client.status().lockInterval
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
    @Argument(help: "The keychain (the server's one keychain).") var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        try await calling("SecKeychainSetSettings \(keychain ?? "<NULL>")") { () async throws(KeychainError) in
            try await client.setLockInterval(timeout ?? 0)
        }
    }
}

struct DumpKeychain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump-keychain", abstract: "Dump the contents of the keychain: every item the token may see.")
    @Flag(name: .customShort("a"), help: "Dump access control lists of items (keychaind items have none).") var acl = false
    @Flag(name: .customShort("d"), help: "Dump (decrypted) data of items.") var data = false
    @Flag(name: .customShort("i"), help: "Interactive access control list editing (not on a server).") var interactive = false
    @Flag(name: .customShort("r"), help: "Dump the raw (encrypted) data of items (the decrypted data here).") var raw = false
    @Argument(help: "The keychain (the server's one keychain).") var keychain: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let total = try? await client.status().items
        let progress = ProgressBar("dump-keychain", total: total)
        defer { progress.finish() }
        let name = client.keychainName
        for itemClass in [ItemClass.genericPassword, .internetPassword, .certificate, .key] {
            do {
                for try await item in client.items(ItemQuery(itemClass), returnData: data || raw) {
                    Terminal.out(SecurityFormat.item(item, keychain: name, showData: data || raw))
                    progress.advance()
                }
            } catch {
                throw SecurityFailure("SecKeychainSearchCopyNext", error)
            }
        }
    }
}

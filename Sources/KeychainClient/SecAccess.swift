// swift-format-ignore-file: AlwaysUseLowerCamelCase

// (Apple's function names, so that code written against Keychain Services ports with them.)
public import Foundation
import KeychainJSON

// Access objects on items (SecAccess, SecACL): who among the tokens of an item's group may do
// what with it, and the keychain's passphrase standing in for the rest (docs/semantics.md,
// *Access objects*).

/// The key of an item's access object in an add's dictionary (kSecAttrAccess, "acls").
public let kSecAttrAccess = "acls"
/// Every operation.
public let kSecACLAuthorizationAny = "any"
/// A password's secret answered; a key decrypting.
public let kSecACLAuthorizationDecrypt = "decrypt"
/// A key encrypting or verifying.
public let kSecACLAuthorizationEncrypt = "encrypt"
/// A key signing.
public let kSecACLAuthorizationSign = "sign"
/// A key agreeing on a secret.
public let kSecACLAuthorizationDerive = "derive"
/// A key's or a certificate's bytes answered.
public let kSecACLAuthorizationExportClear = "export"
/// The item changed.
public let kSecACLAuthorizationKeychainItemModify = "update"
/// The item deleted.
public let kSecACLAuthorizationKeychainItemDelete = "delete"
/// The access object changed: the owner's entry.
public let kSecACLAuthorizationChangeACL = "changeACL"

/// One entry of an access object (SecACLRef): what it allows, the tokens trusted to do it
/// (`nil`: any token), its description, and whether another token may do it with the
/// keychain's passphrase (the prompt).
public struct SecACL: Sendable, Equatable {
    /// `kSecACLAuthorization…` values.
    public var authorizations: [String]
    /// Token ids (`tok_…`); `nil` for any token.
    public var trustedTokens: [String]?
    /// What the entry is for, shown to whoever reads the access object.
    public var description: String
    /// Whether a token the entry does not trust may still do what it allows with the keychain's
    /// passphrase (``KeychainClient/withPrompt(passphrase:alwaysAllow:_:)``).
    public var prompt: Bool

    /// An entry allowing `authorizations` to `trustedTokens` (`nil`: any token).
    public init(authorizations: [String], trustedTokens: [String]?, description: String = "", prompt: Bool = false) {
        self.authorizations = authorizations
        self.trustedTokens = trustedTokens
        self.description = description
        self.prompt = prompt
    }
}

/// An item's access object (SecAccessRef): its entries in order, the one allowing
/// `kSecACLAuthorizationChangeACL` the owner's. As a value of ``kSecAttrAccess`` it goes with
/// an add.
public struct SecAccess: Sendable, Equatable {
    /// The entries, in order.
    public var entries: [SecACL]

    /// An access object of `entries`.
    public init(entries: [SecACL]) {
        self.entries = entries
    }

    /// The JSON form the server takes and answers.
    var json: JSON {
        .object([
            "entries": .array(
                entries.map { entry in
                    .object([
                        "authorizations": .array(entry.authorizations.map(JSON.string)),
                        "tokens": entry.trustedTokens.map { .array($0.map(JSON.string)) } ?? .string("any"),
                        "description": .string(entry.description), "prompt": .bool(entry.prompt),
                    ])
                })
        ])
    }

    init(json: JSON) throws(KeychainError) {
        guard let list = json.objectValue?["entries"]?.arrayValue else {
            throw .notAvailable("server: an access object without entries")
        }
        var entries: [SecACL] = []
        for item in list {
            guard let object = item.objectValue, let tags = object["authorizations"]?.arrayValue?.compactMap(\.stringValue)
            else { throw .notAvailable("server: an access object's entry is malformed") }
            let tokens: [String]? =
                object["tokens"]?.stringValue == "any" ? nil : object["tokens"]?.arrayValue?.compactMap(\.stringValue) ?? []
            entries.append(
                SecACL(
                    authorizations: tags, trustedTokens: tokens, description: object["description"]?.stringValue ?? "",
                    prompt: object["prompt"]?.boolValue ?? false))
        }
        self.entries = entries
    }
}

/// What an entry asks of a token it does not trust (SecKeychainPromptSelector).
public struct SecKeychainPromptSelector: OptionSet, Sendable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The keychain's passphrase stands in for trust (kSecKeychainPromptRequirePassphase, Apple's
    /// spelling).
    public static let requirePassphase = SecKeychainPromptSelector(rawValue: 0x0001)
}

// Apple's SecACL functions on values: an entry is edited in place (`inout`), and put back on
// the item with SecKeychainItemSetAccess.

/// The entries of `access`, in order (SecAccessCopyACLList).
public func SecAccessCopyACLList(_ access: SecAccess) -> [SecACL] { access.entries }

/// The entries of `access` that allow `authorization`, or every operation
/// (SecAccessCopyMatchingACLList).
public func SecAccessCopyMatchingACLList(_ access: SecAccess, _ authorization: String) -> [SecACL] {
    access.entries.filter { $0.authorizations.contains(authorization) || $0.authorizations.contains(kSecACLAuthorizationAny) }
}

/// An entry's trusted tokens (`nil`: any token), description and prompt (SecACLCopyContents).
public func SecACLCopyContents(
    _ acl: SecACL
) -> (applicationList: [String]?, description: String, promptSelector: SecKeychainPromptSelector) {
    (acl.trustedTokens, acl.description, acl.prompt ? .requirePassphase : [])
}

/// Sets an entry's trusted tokens (`nil`: any token), description and prompt (SecACLSetContents).
public func SecACLSetContents(
    _ acl: inout SecACL, _ applicationList: [String]?, _ description: String, _ promptSelector: SecKeychainPromptSelector
) {
    acl.trustedTokens = applicationList
    acl.description = description
    acl.prompt = promptSelector.contains(.requirePassphase)
}

/// The `kSecACLAuthorization…` values an entry allows (SecACLCopyAuthorizations).
public func SecACLCopyAuthorizations(_ acl: SecACL) -> [String] { acl.authorizations }

/// Replaces the operations an entry allows (SecACLUpdateAuthorizations).
public func SecACLUpdateAuthorizations(_ acl: inout SecACL, _ authorizations: [String]) {
    acl.authorizations = authorizations
}

/// Appends an entry to `access` that allows nothing until SecACLUpdateAuthorizations gives it
/// operations (SecACLCreateWithSimpleContents); its index in `access.entries`.
@discardableResult
public func SecACLCreateWithSimpleContents(
    _ access: inout SecAccess, _ applicationList: [String]?, _ description: String,
    _ promptSelector: SecKeychainPromptSelector
) -> Int {
    access.entries.append(
        SecACL(
            authorizations: [], trustedTokens: applicationList, description: description,
            prompt: promptSelector.contains(.requirePassphase)))
    return access.entries.count - 1
}

/// Removes the first entry equal to `acl` from `access` (SecACLRemove).
public func SecACLRemove(_ access: inout SecAccess, _ acl: SecACL) {
    if let index = access.entries.firstIndex(of: acl) { access.entries.remove(at: index) }
}

extension KeychainClient {
    /// The access object SecAccessCreate makes: an owner entry only the keychain's passphrase
    /// passes, `encrypt` for any token, and `decrypt`, `sign`, `derive` and `export` for
    /// `trustedTokens` (token ids) and, with the passphrase, for others.
    public func SecAccessCreate(_ descriptor: String, _ trustedTokens: [String]) async throws(KeychainError) -> SecAccess {
        let body: JSONObject = ["description": .string(descriptor), "trustedTokens": .array(trustedTokens.map(JSON.string))]
        let answer = try await object(.post("/v1/access", body, idempotent: true))
        return try SecAccess(json: answer["access"] ?? .null)
    }

    /// The access object of the item `persistentRef` names (SecKeychainItemCopyAccess); `nil`
    /// when it has none.
    public func SecKeychainItemCopyAccess(_ persistentRef: Data) async throws(KeychainError) -> SecAccess? {
        let answer = try await object(.get(try Self.accessPath(persistentRef)))
        guard let access = answer["access"], access != .null else { return nil }
        return try SecAccess(json: access)
    }

    /// Gives the item `persistentRef` names `access`, or none (SecKeychainItemSetAccess). When it
    /// has one already, its owner's entry decides: with a prompt, inside ``withPrompt(passphrase:alwaysAllow:_:)``.
    public func SecKeychainItemSetAccess(_ persistentRef: Data, _ access: SecAccess?) async throws(KeychainError) {
        let path = try Self.accessPath(persistentRef)
        if let access, case .object(let object) = access.json {
            _ = try await perform(.put(path, object))
        } else {
            _ = try await perform(.delete(path))
        }
    }

    private static func accessPath(_ persistentRef: Data) throws(KeychainError) -> String {
        // A persistent reference needs no escaping: one that would is none.
        guard let ref = String(data: persistentRef, encoding: .utf8), !ref.isEmpty, Transport.percentEncoded(ref) == ref else {
            throw .param("persistentRef: not a persistent reference")
        }
        return "/v1/items/\(ref)/access"
    }

    /// The keychain's passphrase every request `body` makes carries, for the access objects
    /// whose entries ask for it (the prompt of a macOS keychain). `alwaysAllow`: each entry it
    /// passes trusts this client's token from then on. A wrong passphrase counts as a wrong unlock.
    public static func withPrompt<T>(
        passphrase: String, alwaysAllow: Bool = false, _ body: () async throws -> T
    ) async rethrows -> T {
        try await $prompt.withValue(Prompt(passphrase: passphrase, alwaysAllow: alwaysAllow), operation: body)
    }

    /// What ``withPrompt(passphrase:alwaysAllow:_:)`` sends.
    struct Prompt: Sendable {
        let passphrase: String
        let alwaysAllow: Bool

        var headers: [(name: String, value: String)] {
            [
                (name: "X-Keychain-Prompt-Passphrase", value: passphrase),
                (name: "X-Keychain-Prompt", value: alwaysAllow ? "alwaysAllow" : "allowOnce"),
            ]
        }
    }

    @TaskLocal static var prompt: Prompt?
}

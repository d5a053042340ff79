import KeychainCore
import MicroHTTP

extension KeychainResponder {
    /// Refuses, from the head alone, a request its token may not make: before any of its body is
    /// read or queued, before `100 Continue`, and before a key derivation runs on its behalf.
    ///
    /// These are the capabilities the route needs whatever the body says; the handlers check
    /// again with what only the body tells (a search returning data needs `read`, not `list`).
    func admit(_ route: Route, method: String, head: HTTPRequestHead, token: AccessToken) throws(KeychainError) {
        // A keychain the token may not use is missing, whatever else the token lacks.
        if let name = route.keychainName { _ = try keychains.keychain(named: name, for: token) }
        switch route {
        case .exportBundle where Self.namesEveryKeychain(head), .importBundle where Self.namesEveryKeychain(head):
            try Keychains.requireServerAdmin(token, for: "a bundle of every keychain")
        case .exportBundle, .importBundle, .backup, .itemsImport: _ = try targetKeychain(head, token: token)
        default: break
        }
        switch (route, method) {
        case (.items, "POST"): try keychain.require(.write, token, for: "add")
        case (.items, "PATCH"), (.item, "PATCH"): try keychain.require(.write, token, for: "update")
        case (.items, "DELETE"), (.item, "DELETE"): try keychain.require(.delete, token, for: "delete")
        case (.items, _), (.itemsSearch, _), (.item, _):
            guard token.has(.read) || token.has(.list) else {
                throw .missingEntitlement("token: the token lacks the read or list capability")
            }
        case (.itemsImport, _):
            try keychain.require(.write, token, for: "import")
            // The group is known from the URL: a token without it derives no PKCS#12 key.
            let group = head.queryItems.last { $0.name == "accessGroup" }?.value ?? token.defaultGroup
            guard token.grants(group: group) else { throw Keychain.lacksGroup(group) }
        case (.keychains, "POST"): try Keychains.requireServerAdmin(token, for: "creating a keychain")
        case (.namedKeychain, "DELETE"): try Keychains.requireServerAdmin(token, for: "deleting a keychain")
        case (.namedPassphrase, _): try keychain.requireKeychainAdmin(token, for: "changing the passphrase")
        case (.namedSettings, "PUT"): try keychain.requireKeychainAdmin(token, for: "changing the settings")
        case (.lock, _), (.namedLock, _), (.lockAll, _):
            guard token.has(.lock) else { throw .missingEntitlement("Authorization: the token lacks the lock capability") }
        case (.passphrase, _): try keychain.requireKeychainAdmin(token, for: "changing the passphrase")
        case (.settings, "PUT"): try keychain.requireKeychainAdmin(token, for: "changing the settings")
        case (.exportBundle, _): try keychain.requireKeychainAdmin(token, for: "exporting the keychain")
        case (.importBundle, _): try keychain.requireKeychainAdmin(token, for: "importing a bundle")
        case (.backup, _): try keychain.requireKeychainAdmin(token, for: "taking a backup")
        case (.tokens, _), (.token, _): try keychain.requireAdmin(token)
        case (.metrics, _):
            guard token.has(.metrics) else { throw .missingEntitlement("token: the token lacks the metrics capability") }
        case (.kvData, "GET"): try keychain.require(.read, token, for: "reading a secret")
        case (.kvData, "DELETE"), (.kvMetadata, "DELETE"): try keychain.require(.delete, token, for: "delete")
        case (.kvData, _): try keychain.require(.write, token, for: "writing a secret")
        case (.kvMetadata, _):
            guard token.has(.read) || token.has(.list) else {
                throw .missingEntitlement("token: the token lacks the read or list capability")
            }
        case (.keys, _):
            guard token.has(.write) || token.has(.use) else {
                throw .missingEntitlement("token: the token lacks the write or use capability needed to generate a key")
            }
        case (.keyAction(.publicKey), _):
            guard token.has(.use) || token.has(.read) else {
                throw .missingEntitlement("token: the token lacks the use or read capability needed to copy a public key")
            }
        case (.keyAction(let action), _): try keychain.require(.use, token, for: action.rawValue + " with a key")
        case (.itemAccess, "GET"):
            guard token.has(.read) || token.has(.list) else {
                throw .missingEntitlement("token: the token lacks the read or list capability")
            }
        case (.itemAccess, _): try keychain.require(.write, token, for: "change an item's access object")
        case (.accessCreate, _): break
        case (.keychain, _), (.settings, _), (.tokenSelf, _), (.unlock, _), (.health, _), (.vaultMounts, _), (.vaultMountOf, _),
            (.vaultTokenSelf, _), (.events, _), (.keychains, _), (.namedKeychain, _), (.namedUnlock, _), (.namedSettings, _):
            break
        }
    }
}

import KeychainCore
import KeychainCrypto
import KeychainJSON
import MicroHTTP

/// The keychains of the server: `/v1/keychains` and `/v1/keychains/{name}/…`.
extension KeychainResponder {
    /// The keychain a `/v1/keychains/{name}/…` route names, or `/v1/keychain/…` the token's
    /// default (the server's `default` without a token).
    func keychain(for route: Route, token: AccessToken?) throws(KeychainError) -> Keychain {
        if let name = route.keychainName {
            guard let token else { throw Keychain.invalidToken }
            return try keychains.keychain(named: name, for: token)
        }
        guard let token else { return keychain }
        return try keychains.defaultKeychain(for: token)
    }

    /// The keychain a route that acts on one keychain's items as a whole acts on (an import, a
    /// bundle, a backup): the one `?keychain=` names, else the token's default.
    func targetKeychain(_ head: HTTPRequestHead, token: AccessToken) throws(KeychainError) -> Keychain {
        guard let name = head.queryItems.last(where: { $0.name == Self.keychainParameter })?.value else {
            return try keychains.defaultKeychain(for: token)
        }
        return try keychains.keychain(named: name, for: token)
    }

    /// The URL parameter that names a route's keychain.
    static let keychainParameter = "keychain"

    /// `?keychain=*` on export and import: every keychain of the server, for a server admin.
    static let everyKeychain = "*"

    /// Whether `?keychain=*` names every keychain (export and import only; a server admin's).
    static func namesEveryKeychain(_ head: HTTPRequestHead) -> Bool {
        head.queryItems.last { $0.name == keychainParameter }?.value.isSameBytes(as: everyKeychain) == true
    }

    /// `GET /v1/keychains`: the keychains the token may use, in its search order.
    func listKeychains(_ token: AccessToken) -> HTTPResponse {
        Self.json(200, .object(["keychains": .array(keychains.searchList(for: token).map(Self.summary))]))
    }

    /// A keychain as a list shows it: its name and state.
    static func summary(_ keychain: Keychain) -> JSON {
        .object(["name": .string(keychain.name), "state": .string(keychain.state.rawValue)])
    }

    /// `POST /v1/keychains` `{"name": "…", "passphrase": "…"}` (SecKeychainCreate): 201, unlocked.
    func createKeychain(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let fields = try Self.passphrases(request, keys: ["name", "passphrase"])
        let name = fields[0].withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let created = try keychains.create(name: name, passphrase: fields[1], caller: token)
        return Self.json(
            201, try statusJSON(token, created), headers: [(name: "Location", value: "/v1/keychains/\(created.name)")])
    }

    /// `DELETE /v1/keychains/{name}?confirm={name}` (SecKeychainDelete): the keychain and every
    /// item in it. The confirmation repeats the name, so that no stray request deletes one.
    func deleteKeychain(_ name: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        for (key, _) in request.head.queryItems where key != "confirm" { throw .param("\(key): unknown parameter") }
        guard let confirm = request.head.queryItems.last(where: { $0.name == "confirm" })?.value,
            confirm.isSameBytes(as: name)
        else {
            throw .param("confirm: deleting a keychain removes every item in it; repeat its name as ?confirm=\(name)")
        }
        try keychains.delete(name: name, caller: token)
        return HTTPResponse(status: 204)
    }
}

import KeychainAudit
import KeychainCore
import KeychainCrypto
import KeychainJSON
import MicroHTTP

/// Access objects over HTTP (docs/semantics.md, *Access objects*):
///
/// - `GET /v1/items/{ref}/access` (SecKeychainItemCopyAccess, SecAccessCopyACLList):
///   `{"persistentRef": …, "access": {"entries": […]} | null}`.
/// - `PUT /v1/items/{ref}/access` with an access object (SecKeychainItemSetAccess), `DELETE` to
///   leave the item without one: the item's `changeACL` entry decides.
/// - `POST /v1/access` (SecAccessCreate): `{"description": …, "trustedTokens": [ids]}` answers
///   the standard access object, for an add's `access` to carry.
/// - On any route, `X-Keychain-Prompt-Passphrase` carries the keychain's passphrase for the
///   entries that ask for it, and `X-Keychain-Prompt: alwaysAllow` has them trust the token after.
extension KeychainResponder {
    static let promptPassphraseHeader = "X-Keychain-Prompt-Passphrase"
    static let promptHeader = "X-Keychain-Prompt"

    /// `/v1/items/{ref}/access`.
    func itemAccess(_ ref: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        guard let (name, bytes) = PersistentRef.parse(ref) else { throw .itemNotFound }
        let keychain = try keychains.keychain(named: name, for: token)
        let access: AccessObject?
        let version: Int64
        switch request.head.method {
        case "GET":
            (access, version) = try keychain.access(ref: bytes, token: token)
        case "PUT":
            access = try AccessObject(json: .object(try Self.bodyObject(request)), key: "access")
            version = try keychain.setAccess(ref: bytes, access, token: token, expectedVersion: try Self.ifMatch(request))
        default:
            access = nil
            version = try keychain.setAccess(ref: bytes, nil, token: token, expectedVersion: try Self.ifMatch(request))
        }
        // The item's version, as its ETag: an edit read, changed and put back with If-Match is
        // lost to no concurrent one.
        var response = Self.json(
            200, .object(["persistentRef": .string(ref), "access": access?.json ?? .null]),
            headers: [(name: "ETag", value: "\"\(version)\"")])
        response.touched = [AuditRecord.refBytes(bytes, keychain: keychain.name)]
        return response
    }

    /// `POST /v1/access`.
    func makeAccess(_ request: HTTPRequest) throws(KeychainError) -> HTTPResponse {
        let body = try Self.bodyObject(request, allowEmpty: true)
        for key in body.keys where key != "description" && key != "trustedTokens" {
            throw .param("\(key): unknown key; SecAccessCreate takes description and trustedTokens")
        }
        let description: String
        switch body["description"] {
        case nil: description = ""
        case .string(let text)?: description = text
        default: throw .param("description: expected a string")
        }
        var trusted: [String] = []
        switch body["trustedTokens"] {
        case nil: break
        case .array(let ids)?: trusted = try AccessObject.tokenIDs(ids, key: "trustedTokens")
        default: throw .param("trustedTokens: expected an array of token ids")
        }
        guard description.utf8.count <= AccessObject.maxDescriptionBytes else {
            throw .param("description: at most \(AccessObject.maxDescriptionBytes) bytes")
        }
        let access = AccessObject.standard(description: description, trusted: trusted)
        return Self.json(200, .object(["access": access.json]))
    }

    /// The keychain whose per-address unlock throttle a prompt counts against: the token's default.
    func promptedKeychain(_ token: AccessToken) -> String {
        (try? keychains.defaultKeychain(for: token))?.name ?? KeychainName.default
    }

    /// `token` carrying the request's prompt passphrase, when it has one; the token as it is otherwise.
    func prompting(_ head: HTTPRequestHead, _ token: AccessToken?) throws(KeychainError) -> AccessToken? {
        guard let token else { return nil }
        let always: Bool
        switch head.headers[Self.promptHeader]?.trimmingSpaces {
        case nil, "allowOnce": always = false
        case "alwaysAllow": always = true
        default: throw .param("\(Self.promptHeader): allowOnce or alwaysAllow")
        }
        guard let passphrase = try Self.secretHeader(head, "x-keychain-prompt-passphrase") else {
            if always { throw .param("\(Self.promptHeader): alwaysAllow needs \(Self.promptPassphraseHeader)") }
            return token
        }
        return token.prompting(AccessPrompt(passphrase: passphrase, alwaysAllow: always))
    }

    /// Whether the request carries the keychain's passphrase for access objects, found without
    /// copying it out of the request.
    static func carriesPrompt(_ head: HTTPRequestHead) -> Bool {
        head.headers.withFirstValue(lowercased: "x-keychain-prompt-passphrase") { _ in true } ?? false
    }

    /// After a request that carried `alwaysAllow`: each entry its passphrase passed trusts the
    /// token from now on, in every keychain the request reached, and an audit line says so.
    func applyAlwaysAllow(_ head: HTTPRequestHead, route: Route, token: AccessToken?) throws(KeychainError) -> [[UInt8]] {
        guard let token, let prompt = token.prompt, prompt.alwaysAllow else { return [] }
        var refs: [[UInt8]] = []
        for name in prompt.grantedKeychains {
            guard let keychain = keychains.keychain(named: name) else { continue }
            refs += try keychain.applyAlwaysAllow(token: token).map { AuditRecord.refBytes($0, keychain: name) }
        }
        if !refs.isEmpty, let auditLog {
            _ = auditLog.append(
                AuditRecord(
                    time: clock.now(), requestID: requestIDs.next(), tokenID: token.id, tokenName: token.name,
                    client: LogText.sanitized(client(head), maxBytes: LogText.maxAddressBytes), route: route.template,
                    operation: "alwaysAllow", refs: refs, status: 0, httpStatus: 200))
        }
        return refs
    }
}

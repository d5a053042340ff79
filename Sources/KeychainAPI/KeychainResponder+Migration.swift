public import KeychainCore
import KeychainCrypto
import KeychainJSON
import MicroHTTP

extension KeychainResponder {
    /// The header carrying a migration bundle's passphrase, on export and import: never logged,
    /// never audited, never in an error message.
    static let bundlePassphraseHeader = "X-Keychain-Bundle-Passphrase"

    /// `POST /v1/keychain/export`, no body: the migration bundle (`application/octet-stream`)
    /// of every item but the `…ThisDeviceOnly` ones, sealed under the bundle passphrase: of the
    /// keychain `?keychain=` names (else the token's default), or with `?keychain=*` of every
    /// keychain, each item named by its keychain (a server admin's).
    ///
    /// Runs on the serial worker (Argon2id): the key is derived and the manifest counted before
    /// the answer is returned, and the body then streams (`HTTPStreamBody`, chunked): each batch
    /// of items is sealed on the polling thread as the client reads (a few ms a batch of up to
    /// 1,000 items or 1 MiB), so the bundle is never whole in memory and has no size limit.
    /// A lock or a failure meanwhile cuts the connection before the FINAL message: the client
    /// holds a truncated bundle, which an import refuses.
    func exportBundle(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        try keychain.requireKeychainAdmin(token, for: "exporting the keychain")
        guard request.body.isEmpty else {
            throw .param("body: an export takes no body; the bundle passphrase goes in \(Self.bundlePassphraseHeader)")
        }
        if let other = request.head.queryItems.first(where: { $0.name != Self.keychainParameter }) {
            throw .param("\(other.name): unknown parameter")
        }
        let passphrase = try Self.bundlePassphrase(request.head)
        let export =
            Self.namesEveryKeychain(request.head)
            ? try keychains.exportBundle(passphrase: passphrase, caller: token)
            : try targetKeychain(request.head, token: token).exportBundle(passphrase: passphrase, caller: token)
        var response = HTTPResponse(
            status: 200,
            headers: [
                (name: "Content-Type", value: "application/octet-stream"),
                (name: "Content-Disposition", value: "attachment; filename=\"keychaind.kcbundle\""),
                (name: "X-Keychain-Bundle-Items", value: String(export.manifest.itemCount)),
            ])
        response.bodyStream = HTTPStreamBody { try export.next() }
        // Every secret leaves in it, sealed: an audit log that cannot record that refuses it.
        response.carriesSecret = true
        return response
    }

    /// `POST /v1/keychain/import?conflict=fail|skip|replace&tokenMap=tok_old:tok_new…`, the
    /// bundle as the body: imports it whole or not at all; answers the counts and the bundle's
    /// manifest. Into the keychain `?keychain=` names (else the token's default), or with
    /// `?keychain=*` each item into the keychain the bundle names it with (a server admin's).
    /// `tokenMap` renames the token ids of its access objects. The body arrives
    /// spooled to a file when the server has a spool directory (keychaind's data directory).
    func importBundle(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        try keychain.requireKeychainAdmin(token, for: "importing a bundle")
        var conflict = ConflictPolicy.fail
        var pairs: [String] = []
        for item in request.head.queryItems where item.name != Self.keychainParameter {
            switch item.name {
            case "conflict":
                guard let policy = ConflictPolicy(rawValue: item.value) else {
                    throw .param("conflict: expected fail, skip or replace")
                }
                conflict = policy
            case "tokenMap": pairs.append(item.value)
            default: throw .param("\(item.name): unknown parameter")
            }
        }
        guard !request.hasNoBody else { throw .param("body: expected a migration bundle, got an empty body") }
        let passphrase = try Self.bundlePassphrase(request.head)
        let every = Self.namesEveryKeychain(request.head)
        let target = every ? nil : try targetKeychain(request.head, token: token)
        // The server's tokens live in the default keychain, whichever keychain receives the items.
        let tokens = try ImportedTokens(known: keychains.default.tokenIDs(), pairs: pairs, key: "tokenMap")
        func importBundle(_ bytes: UnsafeRawBufferPointer) throws(KeychainError) -> BundleImport {
            guard let target else {
                return try keychains.importBundle(
                    bytes, passphrase: passphrase, conflict: conflict, caller: token, tokens: tokens)
            }
            return try target.importBundle(bytes, passphrase: passphrase, conflict: conflict, caller: token, tokens: tokens)
        }
        let result: BundleImport
        if let spooled = request.spooled {
            // Read where it was written, mapped: the bundle never sits in the heap whole.
            let imported = try spooled.withBytes { bytes throws(KeychainError) in try importBundle(bytes) }
            guard let imported else { throw .notAvailable("body: the spooled upload could not be read back; retry later") }
            result = imported
        } else {
            result = try request.body.withUnsafeBytes { bytes in
                Result { () throws(KeychainError) in try importBundle(bytes) }
            }.get()
        }
        return Self.json(
            200,
            .object([
                "imported": .int(Int64(result.imported)), "skipped": .int(Int64(result.skipped)),
                "replaced": .int(Int64(result.replaced)), "manifest": Self.manifestJSON(result.manifest),
            ]))
    }

    /// The bundle passphrase, copied from where it lies in the header into secure memory.
    private static func bundlePassphrase(_ head: HTTPRequestHead) throws(KeychainError) -> SecureBytes {
        guard let copied = try secretHeader(head, "x-keychain-bundle-passphrase") else {
            throw .param("\(bundlePassphraseHeader): required: the bundle's passphrase")
        }
        return copied
    }

    /// A header holding a secret, copied from where it lies in the request into secure memory,
    /// never into a `String`; nil when the request lacks it.
    static func secretHeader(_ head: HTTPRequestHead, _ lowercased: StaticString) throws(KeychainError) -> SecureBytes? {
        let copied = head.headers.withFirstValue(lowercased: lowercased) { value in
            Result { () throws(CryptoError) in try SecureBytes(copying: UnsafeRawBufferPointer(value)) }
        }
        do { return try copied?.get() } catch { throw .notAvailable("secure memory: \(error.message)") }
    }

    static func manifestJSON(_ manifest: BundleManifest) -> JSON {
        func counts(_ table: [String: Int]) -> JSON {
            .object(JSONObject(table.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSON.int(Int64($0.value))) }))
        }
        return .object([
            "format": .int(Int64(manifest.format)), "created": .string(RFC3339.format(milliseconds: manifest.created)),
            "itemCount": .int(Int64(manifest.itemCount)), "classes": counts(manifest.classes), "groups": counts(manifest.groups),
            "accessible": counts(manifest.accessible), "keychains": counts(manifest.keychains),
            "leftBehind": counts(manifest.leftBehind),
        ])
    }
}

extension KeychainResponder {
    /// A manifest as the API shows it, serialized (the CLI prints it).
    public static func manifestText(_ manifest: BundleManifest) -> [UInt8] { manifestJSON(manifest).serialized() }
}

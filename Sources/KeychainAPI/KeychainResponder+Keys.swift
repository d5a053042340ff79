import ExtrasBase64
import KeychainAudit
import KeychainCore
import KeychainCrypto
import KeychainJSON
import KeychainX509
import MicroHTTP

/// What a `/v1/keys/{action}` route does to its key (docs/certificates-keys-identities.md).
enum KeyAction: String, Sendable, CaseIterable {
    case sign, verify, encrypt, decrypt, exchange
    /// SecKeyCopyPublicKey.
    case publicKey = "public"

    /// The audit log's name for it.
    var operation: String {
        switch self {
        case .sign: "sign"
        case .verify: "verify"
        case .encrypt: "encrypt"
        case .decrypt: "decrypt"
        case .exchange: "keyExchange"
        case .publicKey: "copyPublicKey"
        }
    }
}

/// Keys used in place, over HTTP:
///
/// - `POST /v1/keys` (SecKeyCreateRandomKey): `{"keyType": "ec", "keySizeInBits": 256, …}` with
///   the key attributes both keys get at the top, and each key's own in `privateKeyAttrs` and
///   `publicKeyAttrs` (kSecPrivateKeyAttrs, kSecPublicKeyAttrs), `isPermanent` among them.
///   201 with the public key, and the stored keys' items.
/// - `POST /v1/keys/{sign|verify|encrypt|decrypt|exchange|public}`: the key named by
///   `persistentRef` or by a `query`, an `algorithm` in Apple's name, and the operation's input
///   in base64 (`data`, `signature`, `plaintext`, `ciphertext`, `peerPublicKey`).
///   200 with the output; a verification answers `{"verified": true|false}`.
extension KeychainResponder {
    static let keyUseKeys: Set<String> = [
        "persistentRef", "query", "algorithm", "data", "signature", "plaintext", "ciphertext", "peerPublicKey",
        "requestedSize", "sharedInfo", "publicKey", "keyType",
    ]

    /// `POST /v1/keys`.
    func generateKey(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        var common = try Self.bodyObject(request)
        guard case .string(let typeName)? = try Self.take(&common, Self.keyTypeSpellings) else {
            throw .param("keyType: required: ec, ed25519, x25519 or rsa")
        }
        let type = try Self.pairType(typeName)
        let bits: Int
        switch try Self.take(&common, ["keySizeInBits", "kSecAttrKeySizeInBits", "bsiz"]) {
        case nil: bits = type == .rsa ? 2048 : 256
        case .int(let value)?: bits = Int(clamping: value)
        default: throw .param("keySizeInBits: expected a number of bits")
        }
        var perKey: [String: JSONObject] = [:]
        for (name, constant) in [("privateKeyAttrs", "private"), ("publicKeyAttrs", "public")] {
            switch try Self.take(&common, [name, "kSec" + name.prefix(1).uppercased() + name.dropFirst(), constant]) {
            case nil: perKey[name] = [:]
            case .object(let attributes)?: perKey[name] = attributes
            default: throw .param("\(name): expected an object of the key's attributes")
            }
        }
        // The keychain is chosen with `useKeychain`; these the generation itself decides.
        let decided: Set<String> = ["class", "keyClass", "keyType", "valueData", "keySizeInBits"]
        for key in common.keys {
            guard let name = Schema.key(named: key, for: .key)?.name, decided.contains(name) else { continue }
            throw .param("\(key): a generated key's \(name) is not given")
        }
        func query(_ name: String, keyClass: String) throws(KeychainError) -> ItemQuery {
            var object = common
            for (key, value) in perKey[name]! {
                if let given = Schema.key(named: key, for: .key)?.name, decided.contains(given) {
                    throw .param("\(name).\(key): a generated key's \(given) is not given")
                }
                object[key] = value
            }
            object["class"] = .string("key")
            object["keyClass"] = .string(keyClass)
            object["keyType"] = .string(type.rawValue)
            return try QueryParser.parse(object)
        }
        let privateQuery = try query("privateKeyAttrs", keyClass: "private")
        let publicQuery = try query("publicKeyAttrs", keyClass: "public")
        let keychain: Keychain
        if let name = privateQuery.keychain {
            keychain = try keychains.keychain(named: name, for: token)
        } else {
            keychain = try keychains.defaultKeychain(for: token)
        }
        let pair = try keychain.generateKeyPair(
            type: type, bits: bits, privateQuery: privateQuery, publicQuery: publicQuery, token: token)
        var body: [UInt8] = []
        body.appendLiteral(#"{"keyType":""#)
        body.append(contentsOf: type.rawValue.utf8)
        body.appendLiteral(#"","publicKey":""#)
        body.append(contentsOf: Base64.encodeToString(bytes: pair.publicKey).utf8)
        body.appendLiteral(#"""#)
        if let key = pair.privateKey {
            body.appendLiteral(#","privateKey":""#)
            key.withUnsafeBytes { body.append(contentsOf: Base64.encodeToString(bytes: $0).utf8) }
            body.appendLiteral(#"""#)
        }
        for (name, item) in [("privateKeyItem", pair.privateItem), ("publicKeyItem", pair.publicItem)] {
            guard let item else { continue }
            body.appendLiteral(#",""#)
            body.append(contentsOf: name.utf8)
            body.appendLiteral(#"":"#)
            item.write(into: &body)
        }
        body.appendLiteral("}")
        var response = Self.json(201, body: body)
        response.touched = [pair.privateItem, pair.publicItem].compactMap { $0 }.flatMap(\.auditedRefs)
        response.carriesSecret = pair.privateKey != nil
        return response
    }

    /// `POST /v1/keys/{action}`.
    func useKey(_ action: KeyAction, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let body = try Self.bodyObject(request)
        for key in body.keys where !Self.keyUseKeys.contains(key) {
            throw .param("\(key): unknown key; a key operation takes \(Self.keyUseKeys.sorted().joined(separator: ", "))")
        }
        let given = body["publicKey"] != nil || body["keyType"] != nil
        if given && action != .verify && action != .encrypt {
            throw .param("publicKey: only verify and encrypt take a public key given in the request")
        }
        let query = given ? ItemQuery() : try Self.keyQuery(body)
        if action == .publicKey {
            let ((type, publicKey, ref), keychain) = try firstHolding(query, token: token) { (keychain) throws(KeychainError) in
                try keychain.copyPublicKey(query, token: token)
            }
            var response = Self.json(
                200,
                .object([
                    "keyType": .string(type.rawValue), "publicKey": .string(Base64.encodeToString(bytes: publicKey)),
                    "persistentRef": .string(PersistentRef.encode(ref, keychain: keychain.name)),
                ]))
            response.touched = [AuditRecord.refBytes(ref, keychain: keychain.name)]
            return response
        }
        guard case .string(let name)? = body["algorithm"] else { throw .param("algorithm: required: a SecKeyAlgorithm's name") }
        guard let algorithm = KeyAlgorithm(rawValue: name) else {
            throw .param("algorithm: \(name) is not a SecKeyAlgorithm keychaind knows")
        }
        func bytes(_ key: String) throws(KeychainError) -> [UInt8] {
            guard case .string(let text)? = body[key] else { throw .param("\(key): required: base64 bytes in a string") }
            guard let bytes = Base64.decodeCanonical(text) else { throw .param("\(key): expected base64 bytes in a string") }
            return bytes
        }
        let use: KeyUse
        switch action {
        case .sign: use = .sign(data: try bytes("data"))
        case .verify: use = .verify(data: try bytes("data"), signature: try bytes("signature"))
        case .encrypt: use = .encrypt(plaintext: try bytes("plaintext"))
        case .decrypt: use = .decrypt(ciphertext: try bytes("ciphertext"))
        case .exchange:
            let size: Int
            switch body["requestedSize"] {
            case nil: size = 32
            case .int(let value)?: size = Int(clamping: value)
            default: throw .param("requestedSize: expected a number of bytes")
            }
            use = .keyExchange(
                peerPublicKey: try bytes("peerPublicKey"), requestedSize: size,
                sharedInfo: body["sharedInfo"] == nil ? [] : try bytes("sharedInfo"))
        case .publicKey: fatalError("answered above")
        }
        if given {
            return try Self.useGivenPublicKey(body, use, algorithm: algorithm, token: token)
        }
        let ((result, ref), keychain) = try firstHolding(query, token: token) { (keychain) throws(KeychainError) in
            try keychain.useKey(query, use, algorithm: algorithm, token: token)
        }
        let answer: JSON
        switch result {
        case .verified(let verified): answer = .object(["verified": .bool(verified)])
        case .data(let output):
            let name =
                switch action {
                case .sign: "signature"
                case .encrypt: "ciphertext"
                case .decrypt: "plaintext"
                default: "sharedSecret"
                }
            answer = .object([name: .string(Base64.encodeToString(bytes: output))])
        }
        var response = Self.json(200, answer)
        response.touched = [AuditRecord.refBytes(ref, keychain: keychain.name)]
        // A decrypted plaintext or a shared secret is a secret: its answer waits for its audit line.
        response.carriesSecret = action == .decrypt || action == .exchange
        return response
    }

    /// Verifies or encrypts with the public key the request gives (`publicKey`, `keyType`): a key
    /// in the caller's hands, as a SecKey made with SecKeyCreateWithData is. Nothing of the
    /// keychain is read, so there is no lock to check and no reference to audit; it still takes `use`.
    private static func useGivenPublicKey(
        _ body: JSONObject, _ use: KeyUse, algorithm: KeyAlgorithm, token: AccessToken
    ) throws(KeychainError) -> HTTPResponse {
        guard token.has(.use) else {
            throw .missingEntitlement("token: the token lacks the use capability needed to \(use.flag.verb) with a key")
        }
        if body["persistentRef"] != nil || body["query"] != nil {
            throw .param("publicKey: a key is named by persistentRef, by a query, or given, not two of them")
        }
        guard case .string(let typeName)? = body["keyType"] else { throw .param("keyType: required with a given publicKey") }
        let type = try pairType(typeName)
        guard case .string(let text)? = body["publicKey"], let publicKey = Base64.decodeCanonical(text) else {
            throw .param("publicKey: expected a public key in Apple's external representation, base64 in a string")
        }
        do { _ = try KeyMaterial(publicKey, algorithm: type, role: .public) } catch {
            throw .param("publicKey: not a public \(type.rawValue) key in Apple's external representation: \(error.message)")
        }
        guard algorithm.isSupported(use.operation, type: type, role: .public) else {
            throw .param("algorithm: \(algorithm.rawValue) does not fit a public \(type.rawValue) key")
        }
        do throws(CertificateError) {
            switch use {
            case .verify(let data, let signature):
                let verified = try KeyOperations.verify(
                    data, signature: signature, algorithm: algorithm, publicKey: publicKey, type: type)
                return json(200, .object(["verified": .bool(verified)]))
            case .encrypt(let plaintext):
                let ciphertext = try KeyOperations.encrypt(plaintext, algorithm: algorithm, publicKey: publicKey, type: type)
                return json(200, .object(["ciphertext": .string(Base64.encodeToString(bytes: ciphertext))]))
            default:
                throw CertificateError.mismatch("only verify and encrypt take a given public key")
            }
        } catch {
            throw .param(error.message.hasPrefix("algorithm:") ? error.message : "\(use.input): \(error.message)")
        }
    }

    /// The value of the one of `spellings` that `object` has, removed from `object`;
    /// errSecParam when it has two.
    private static func take(_ object: inout JSONObject, _ spellings: [String]) throws(KeychainError) -> JSON? {
        let present = spellings.filter { object[$0] != nil }
        guard present.count <= 1 else { throw .param("\(present[1]): the same key as \(present[0])") }
        guard let key = present.first else { return nil }
        defer { object[key] = nil }
        return object[key]
    }

    /// `keyType` as its name, Apple's constant (`kSecAttrKeyType`) or its short name (`type`).
    private static let keyTypeSpellings = Schema.key(canonical: "keyType")!.spellings

    /// The asymmetric key type `name` spells, by name, Apple's constant or raw value.
    private static func pairType(_ name: String) throws(KeychainError) -> KeyMaterial.Algorithm {
        guard case .string(let canonical)? = keyTypes.value(named: name), let type = KeyMaterial.Algorithm(rawValue: canonical),
            type != .aes
        else { throw .param("keyType: \(name) is not ec, ed25519, x25519 or rsa") }
        return type
    }

    /// The key types by name, Apple's constant and raw value (`ec`, `kSecAttrKeyTypeEC`, `73`).
    private static let keyTypes: Enumeration = {
        guard case .enumeration(let values) = Schema.key(canonical: "keyType")!.type else {
            fatalError("keyType is an enumeration")
        }
        return values
    }()

    /// `body` in the first of the query's keychains that holds a match (the token's search list
    /// unless the query names one), and that keychain.
    private func firstHolding<T>(
        _ query: ItemQuery, token: AccessToken, _ body: (Keychain) throws(KeychainError) -> T
    ) throws(KeychainError) -> (T, Keychain) {
        for keychain in try keychains.keychains(for: query, token: token) {
            do { return (try body(keychain), keychain) } catch  where error == .itemNotFound { continue }
        }
        throw .itemNotFound
    }

    /// The key a key operation names: by `persistentRef`, or by `query` (a search's attributes).
    private static func keyQuery(_ body: JSONObject) throws(KeychainError) -> ItemQuery {
        switch (body["persistentRef"], body["query"]) {
        case (.string(let ref)?, nil):
            var query = ItemQuery()
            query.itemClass = .key
            try name(ref, in: &query)
            query.synchronizable = .any
            return query
        case (nil, .object(let object)?):
            return try QueryParser.parse(object)
        case (nil, nil):
            throw .param("persistentRef: required, or a query naming the key")
        case (.some, .some):
            throw .param("query: a key is named by persistentRef or by a query, not both")
        case (.some, _):
            throw .param("persistentRef: expected a persistent reference in a string")
        case (_, .some):
            throw .param("query: expected an object of the key's attributes")
        }
    }
}

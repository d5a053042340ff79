// swift-format-ignore-file: AlwaysUseLowerCamelCase

// (Apple's function names, so that code written against Keychain Services ports with them.)
public import Foundation
import KeychainCrypto
import KeychainJSON

// The SecKey functions over the server's keys used in place (`POST /v1/keys` and
// `/v1/keys/{sign|verify|encrypt|decrypt|exchange|public}`): the private key stays in the
// keychain, and the server signs, decrypts and derives with it.

/// A key, as Apple's SecKey: one the keychain keeps (from ``KeychainClient/SecKeyCreateRandomKey(_:)``,
/// a search's `kSecReturnRef`, or ``SecKey/init(persistentRef:)``), the first key a query selects
/// (``SecKey/init(query:)``: for a token with `use` alone, which may not search), or a key in hand
/// (``SecKeyCreateWithData(_:_:)``, ``KeychainClient/SecKeyCopyPublicKey(_:)``).
///
/// Private keys kept by the keychain sign, decrypt and derive there; a public key verifies and
/// encrypts there too, whether kept or in hand. A private key in hand (a generated key that was
/// not permanent) can be exported but not used: the server uses only the keys it keeps.
public final class SecKey: Sendable, CustomStringConvertible {
    enum Source: Sendable {
        case stored(persistentRef: String)
        case selected(query: JSONObject)
        case publicKey(Data)
        case privateKey(SecureBytes)
    }

    let source: Source
    /// The key's type: `ec`, `rsa`, `ed25519` or `x25519`; `nil` when not known yet (a key
    /// named by its reference or a query).
    public let keyType: String?
    /// `public` or `private`; `nil` when not known yet.
    public let keyClass: String?
    /// The public half, when known: Apple's external representation.
    let publicKey: Data?

    init(_ source: Source, keyType: String?, keyClass: String?, publicKey: Data? = nil) {
        self.source = source
        self.keyType = keyType
        self.keyClass = keyClass
        self.publicKey = publicKey
    }

    /// The key item of persistent reference `persistentRef` (`kSecValuePersistentRef`).
    public convenience init(persistentRef: String) {
        self.init(.stored(persistentRef: persistentRef), keyType: nil, keyClass: nil)
    }

    /// The first key item `query` selects among the token's groups, chosen anew at each use:
    /// a query dictionary of the key's attributes (`kSecAttrApplicationTag`, `kSecAttrKeyClass`, …)
    /// without return keys or a match limit.
    public convenience init(query: [String: Any]) throws(KeychainError) {
        self.init(.selected(query: try QueryDictionary.json(query)), keyType: nil, keyClass: nil)
    }

    /// The key item's persistent reference, when the keychain keeps the key.
    public var persistentRef: String? {
        if case .stored(let ref) = source { return ref }
        return nil
    }

    /// The key's class, type and where it is; never its bytes.
    public var description: String {
        let kind = [keyClass, keyType].compactMap { $0 }.joined(separator: " ")
        switch source {
        case .stored(let ref): return "SecKey(\(kind.isEmpty ? "" : kind + ", ")persistentRef: \(ref))"
        case .selected: return "SecKey(\(kind.isEmpty ? "" : kind + ", ")selected by a query)"
        case .publicKey(let bytes): return "SecKey(\(kind), \(bytes.count) bytes in hand)"
        case .privateKey: return "SecKey(\(kind), in hand)"
        }
    }

    /// How a key operation's request names the key.
    func naming() throws(KeychainError) -> JSONObject {
        switch source {
        case .stored(let ref): return ["persistentRef": .string(ref)]
        case .selected(let query): return ["query": .object(query)]
        case .publicKey(let bytes):
            return ["publicKey": .string(bytes.base64EncodedString()), "keyType": .string(keyType ?? "")]
        case .privateKey:
            throw .param("key: a private key in hand is used nowhere; the keychain uses the keys it keeps (kSecAttrIsPermanent)")
        }
    }
}

/// The name of a key algorithm (Apple's SecKeyAlgorithm), as the server takes it.
public typealias SecKeyAlgorithm = String

/// The attributes of the private key of ``KeychainClient/SecKeyCreateRandomKey(_:)`` ("private").
public let kSecPrivateKeyAttrs = "private"
/// The attributes of the public key of ``KeychainClient/SecKeyCreateRandomKey(_:)`` ("public").
public let kSecPublicKeyAttrs = "public"
/// The key type Ed25519 (keychaind's own value of ``kSecAttrKeyType``: Apple's SecItem has none).
public let kSecAttrKeyTypeEd25519 = "ed25519"
/// The key type X25519 (keychaind's own value of ``kSecAttrKeyType``: Apple's SecItem has none).
public let kSecAttrKeyTypeX25519 = "x25519"
/// The number of bytes ``KeychainClient/SecKeyCopyKeyExchangeResult(_:_:_:_:)`` derives ("requestedSize").
public let kSecKeyKeyExchangeParameterRequestedSize = "requestedSize"
/// The X9.63 KDF's shared info for ``KeychainClient/SecKeyCopyKeyExchangeResult(_:_:_:_:)`` ("sharedInfo").
public let kSecKeyKeyExchangeParameterSharedInfo = "sharedInfo"

extension KeychainClient {
    /// Makes a key pair (SecKeyCreateRandomKey) and answers its private key. `parameters`:
    /// `kSecAttrKeyType` (EC, RSA, Ed25519, X25519), `kSecAttrKeySizeInBits`, attributes both
    /// keys take, and each key's own in `kSecPrivateKeyAttrs` and `kSecPublicKeyAttrs`, where
    /// `kSecAttrIsPermanent: true` keeps the key in the keychain. A private key that is not kept
    /// comes back in hand, to be exported: the keychain uses only the keys it keeps.
    public func SecKeyCreateRandomKey(_ parameters: [String: Any]) async throws(KeychainError) -> SecKey {
        let answer = try await object(.post("/v1/keys", try QueryDictionary.json(parameters)))
        guard let type = answer["keyType"]?.stringValue,
            let publicKey = answer["publicKey"]?.stringValue.flatMap({ Data(base64Encoded: $0) })
        else { throw .notAvailable("server: a generated key's answer lacks its type or public key") }
        if let ref = answer["privateKeyItem"]?.objectValue?["persistentRef"]?.stringValue {
            return SecKey(.stored(persistentRef: ref), keyType: type, keyClass: "private", publicKey: publicKey)
        }
        guard let text = answer["privateKey"]?.stringValue, let data = Data(base64Encoded: text) else {
            throw .notAvailable("server: a generated key's answer lacks its private key")
        }
        var bytes = [UInt8](data)
        let secret: SecureBytes
        do { secret = try SecureBytes(consuming: &bytes) } catch {
            throw KeychainError(status: errSecAllocate, message: "privateKey: no secure memory for the key")
        }
        return SecKey(.privateKey(secret), keyType: type, keyClass: "private", publicKey: publicKey)
    }

    /// The public key of `key` (SecKeyCopyPublicKey), in hand; asked of the server when the
    /// client does not know it yet.
    public func SecKeyCopyPublicKey(_ key: SecKey) async throws(KeychainError) -> SecKey {
        if let publicKey = key.publicKey, let type = key.keyType {
            return SecKey(.publicKey(publicKey), keyType: type, keyClass: "public", publicKey: publicKey)
        }
        let answer = try await object(.post("/v1/keys/public", try key.naming(), idempotent: true))
        guard let type = answer["keyType"]?.stringValue,
            let publicKey = answer["publicKey"]?.stringValue.flatMap({ Data(base64Encoded: $0) })
        else { throw .notAvailable("server: a public key's answer lacks its type or bytes") }
        return SecKey(.publicKey(publicKey), keyType: type, keyClass: "public", publicKey: publicKey)
    }

    /// The key's bytes in Apple's external representation (SecKeyCopyExternalRepresentation):
    /// a key in hand's own; a kept key's as a search with `kSecReturnData` reads them, which takes
    /// `read` and an extractable key.
    public func SecKeyCopyExternalRepresentation(_ key: SecKey) async throws(KeychainError) -> Data {
        switch key.source {
        case .publicKey(let bytes): return bytes
        case .privateKey(let secret): return secret.withUnsafeBytes { Data($0) }
        case .stored(let ref):
            return try await cachedSecret([
                "valuePersistentRef": .string(ref), "class": .string("key"), "returnData": .bool(true),
            ])
                ?? Data()
        case .selected(var query):
            query["class"] = .string("key")
            query["returnData"] = .bool(true)
            return try await cachedSecret(query) ?? Data()
        }
    }

    /// Signs `dataToSign` with a private key the keychain keeps (SecKeyCreateSignature); for a
    /// `…Digest…` algorithm, `dataToSign` is the digest.
    public func SecKeyCreateSignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: Data)
        async throws(KeychainError) -> Data
    {
        try await keyOperation("sign", key, algorithm, ["data": dataToSign], answer: "signature")
    }

    /// Whether `signature` is `key`'s over `signedData` (SecKeyVerifySignature), with a public key
    /// kept or in hand. A signature that does not verify is `false`; a refusal (the algorithm,
    /// the capability, the key) is thrown.
    public func SecKeyVerifySignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: Data, _ signature: Data)
        async throws(KeychainError) -> Bool
    {
        var body = try key.naming()
        body["algorithm"] = .string(algorithm)
        body["data"] = .string(signedData.base64EncodedString())
        body["signature"] = .string(signature.base64EncodedString())
        let answer = try await object(.post("/v1/keys/verify", body, idempotent: true))
        guard let verified = answer["verified"]?.boolValue else {
            throw .notAvailable("server: a verification's answer lacks `verified`")
        }
        return verified
    }

    /// Encrypts `plaintext` for a public key kept or in hand (SecKeyCreateEncryptedData).
    public func SecKeyCreateEncryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: Data)
        async throws(KeychainError) -> Data
    {
        try await keyOperation("encrypt", key, algorithm, ["plaintext": plaintext], answer: "ciphertext")
    }

    /// Decrypts `ciphertext` with a private key the keychain keeps (SecKeyCreateDecryptedData).
    public func SecKeyCreateDecryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: Data)
        async throws(KeychainError) -> Data
    {
        try await keyOperation("decrypt", key, algorithm, ["ciphertext": ciphertext], answer: "plaintext")
    }

    /// The secret `privateKey`, kept by the keychain, agrees on with `publicKey`
    /// (SecKeyCopyKeyExchangeResult). `parameters`: `kSecKeyKeyExchangeParameterRequestedSize`
    /// (bytes, default 32) and `kSecKeyKeyExchangeParameterSharedInfo` for the X9.63 algorithms.
    public func SecKeyCopyKeyExchangeResult(
        _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: [String: Any]
    ) async throws(KeychainError) -> Data {
        let peer = try await SecKeyCopyExternalRepresentation(try await SecKeyCopyPublicKey(publicKey))
        var inputs: [String: Data] = ["peerPublicKey": peer]
        var extra = JSONObject()
        for (name, value) in parameters {
            switch (name, value) {
            case (kSecKeyKeyExchangeParameterSharedInfo, let info as Data): inputs["sharedInfo"] = info
            case (kSecKeyKeyExchangeParameterRequestedSize, let size as Int): extra["requestedSize"] = .int(Int64(size))
            default: throw .param("\(name): a key exchange takes requestedSize (a number) and sharedInfo (Data)")
            }
        }
        return try await keyOperation("exchange", privateKey, algorithm, inputs, extra: extra, answer: "sharedSecret")
    }

    /// One `POST /v1/keys/{action}`: the key, the algorithm and base64 inputs; the bytes of `answer`.
    private func keyOperation(
        _ action: String, _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ inputs: [String: Data], extra: JSONObject = [:],
        answer name: String
    ) async throws(KeychainError) -> Data {
        var body = try key.naming()
        body["algorithm"] = .string(algorithm)
        for (input, bytes) in inputs { body[input] = .string(bytes.base64EncodedString()) }
        for (key, value) in extra { body[key] = value }
        let answer = try await object(.post("/v1/keys/\(action)", body, idempotent: true))
        guard let bytes = answer[name]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else {
            throw .notAvailable("server: the answer lacks `\(name)`")
        }
        return bytes
    }
}

/// A key in hand from its external representation (SecKeyCreateWithData): `attributes` give
/// `kSecAttrKeyType` and `kSecAttrKeyClass` (`kSecAttrKeyClassPublic`; a private key in hand can
/// only be exported). Nothing is sent: the bytes are checked by the server when the key is used.
public func SecKeyCreateWithData(_ keyData: Data, _ attributes: [String: Any]) throws(KeychainError) -> SecKey {
    func text(_ names: String...) -> String? {
        for name in names { if let value = attributes[name] as? String { return value } }
        return nil
    }
    guard let typeName = text(kSecAttrKeyType, "kSecAttrKeyType", "keyType") else {
        throw .param("keyType: required: the key's type (kSecAttrKeyType)")
    }
    let types = [kSecAttrKeyTypeEC: "ec", kSecAttrKeyTypeRSA: "rsa", "ECSECPrimeRandom": "ec"]
    let type = types[typeName] ?? typeName.lowercased()
    guard ["ec", "rsa", "ed25519", "x25519"].contains(type) else {
        throw .param("keyType: \(typeName) is not ec, rsa, ed25519 or x25519")
    }
    switch text(kSecAttrKeyClass, "kSecAttrKeyClass", "keyClass") {
    case kSecAttrKeyClassPublic?, "public"?:
        return SecKey(.publicKey(keyData), keyType: type, keyClass: "public", publicKey: keyData)
    case kSecAttrKeyClassPrivate?, "private"?:
        var bytes = [UInt8](keyData)
        do { return SecKey(.privateKey(try SecureBytes(consuming: &bytes)), keyType: type, keyClass: "private") } catch {
            throw KeychainError(status: errSecAllocate, message: "keyData: no secure memory for the key")
        }
    case let other:
        throw .param("keyClass: \(other ?? "nothing") is not public or private (kSecAttrKeyClass)")
    }
}

/// Makes a key pair through `client` (``KeychainClient/SecKeyCreateRandomKey(_:)``).
public func SecKeyCreateRandomKey(_ parameters: [String: Any], _ client: KeychainClient) async throws(KeychainError) -> SecKey {
    try await client.SecKeyCreateRandomKey(parameters)
}

/// Signs through `client` (``KeychainClient/SecKeyCreateSignature(_:_:_:)``).
public func SecKeyCreateSignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: Data, _ client: KeychainClient)
    async throws(KeychainError) -> Data
{
    try await client.SecKeyCreateSignature(key, algorithm, dataToSign)
}

/// Verifies through `client` (``KeychainClient/SecKeyVerifySignature(_:_:_:_:)``).
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: Data, _ signature: Data, _ client: KeychainClient
) async throws(KeychainError) -> Bool {
    try await client.SecKeyVerifySignature(key, algorithm, signedData, signature)
}

/// Encrypts through `client` (``KeychainClient/SecKeyCreateEncryptedData(_:_:_:)``).
public func SecKeyCreateEncryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: Data, _ client: KeychainClient)
    async throws(KeychainError) -> Data
{
    try await client.SecKeyCreateEncryptedData(key, algorithm, plaintext)
}

/// Decrypts through `client` (``KeychainClient/SecKeyCreateDecryptedData(_:_:_:)``).
public func SecKeyCreateDecryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: Data, _ client: KeychainClient)
    async throws(KeychainError) -> Data
{
    try await client.SecKeyCreateDecryptedData(key, algorithm, ciphertext)
}

/// Agrees on a secret through `client` (``KeychainClient/SecKeyCopyKeyExchangeResult(_:_:_:_:)``).
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: [String: Any],
    _ client: KeychainClient
) async throws(KeychainError) -> Data {
    try await client.SecKeyCopyKeyExchangeResult(privateKey, algorithm, publicKey, parameters)
}

/// The public key of `key` through `client` (``KeychainClient/SecKeyCopyPublicKey(_:)``).
public func SecKeyCopyPublicKey(_ key: SecKey, _ client: KeychainClient) async throws(KeychainError) -> SecKey {
    try await client.SecKeyCopyPublicKey(key)
}

/// The key's bytes through `client` (``KeychainClient/SecKeyCopyExternalRepresentation(_:)``).
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ client: KeychainClient) async throws(KeychainError) -> Data {
    try await client.SecKeyCopyExternalRepresentation(key)
}

extension KeychainItem {
    /// A key item's SecKey, for `kSecReturnRef` (the search asks its persistent reference too).
    var secKey: SecKey? {
        // A key's reference has a class and no certificate (an identity's has both).
        guard let reference, reference.keyClass != nil, reference.certificate == nil, let ref = persistentRef else { return nil }
        let publicKey = reference.keyClass == "public" ? reference.key : nil
        return SecKey(
            .stored(persistentRef: ref), keyType: reference.keyType, keyClass: reference.keyClass, publicKey: publicKey)
    }
}

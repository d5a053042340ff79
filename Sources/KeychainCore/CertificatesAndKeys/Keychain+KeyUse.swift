import KeychainBarrier
public import KeychainCrypto
import KeychainStorage
public import KeychainX509
import Logging
import Synchronization

/// A private key `generateKeyPair` made, on its way to its item: its bytes only in
/// `sodium_malloc` memory.
struct GeneratedPrivateKey {
    let secret: SecureBytes
    let type: KeyMaterial.Algorithm
    let publicKey: [UInt8]
}

/// What SecKeyCreateRandomKey made: the items it stored, and the keys it answers.
public struct GeneratedKeyPair: Sendable {
    /// The private key's item, when it is permanent.
    public var privateItem: ItemResult?
    /// The public key's item, when it is permanent.
    public var publicItem: ItemResult?
    /// The public key, in Apple's external representation.
    public var publicKey: [UInt8]
    /// The private key when it is not permanent: it exists nowhere else, so it is answered.
    public var privateKey: SecureBytes?
}

/// One use of a key in place (SecKeyCreateSignature, SecKeyVerifySignature,
/// SecKeyCreateEncryptedData, SecKeyCreateDecryptedData, SecKeyCopyKeyExchangeResult).
public enum KeyUse: Sendable {
    case sign(data: [UInt8])
    case verify(data: [UInt8], signature: [UInt8])
    case encrypt(plaintext: [UInt8])
    case decrypt(ciphertext: [UInt8])
    case keyExchange(peerPublicKey: [UInt8], requestedSize: Int, sharedInfo: [UInt8])

    public var operation: KeyAlgorithm.Operation {
        switch self {
        case .sign: .sign
        case .verify: .verify
        case .encrypt: .encrypt
        case .decrypt: .decrypt
        case .keyExchange: .keyExchange
        }
    }

    /// The key's usage flag that allows it (`kSecAttrCan…`), and what it allows, for messages.
    public var flag: (name: String, verb: String) {
        switch self {
        case .sign: ("canSign", "sign")
        case .verify: ("canVerify", "verify")
        case .encrypt: ("canEncrypt", "encrypt")
        case .decrypt: ("canDecrypt", "decrypt")
        case .keyExchange: ("canDerive", "derive")
        }
    }

    /// The access object's authorization it needs (`AccessTag`): verifying is encrypting's.
    var tag: AccessTag {
        switch self {
        case .sign: .sign
        case .verify, .encrypt: .encrypt
        case .decrypt: .decrypt
        case .keyExchange: .derive
        }
    }

    /// Whether it needs the private key: verifying and encrypting take the public one.
    var usesPrivateKey: Bool {
        switch self {
        case .sign, .decrypt, .keyExchange: true
        case .verify, .encrypt: false
        }
    }

    /// The request's key whose bytes the operation reads, for messages.
    public var input: String {
        switch self {
        case .sign, .verify: "data"
        case .encrypt: "plaintext"
        case .decrypt: "ciphertext"
        case .keyExchange: "peerPublicKey"
        }
    }
}

/// What a key's use answers: bytes (a signature, a ciphertext, a plaintext, a shared secret),
/// or whether a signature verified.
public enum KeyUseResult: Sendable {
    case data([UInt8])
    case verified(Bool)
}

/// Keys used in place: SecKeyCreateRandomKey, which makes a key pair and keeps it, and the SecKey
/// operations on a key item, whose private key is opened into `sodium_malloc` memory for the
/// operation alone and never answered. Using a key takes the `use` capability and the key's
/// group; `read` alone does not allow it, and `use` alone reveals nothing of the key but its
/// public half.
extension Keychain {
    /// SecKeyCreateRandomKey. `privateQuery` and `publicQuery` are the two keys' add queries
    /// (class key, their `keyClass` and `keyType` set, no `valueData`). A key whose `isPermanent`
    /// is true is stored, both in one transaction; a private key that is not is answered, so it
    /// must be extractable. Storing takes `write`, generating alone `use`.
    public func generateKeyPair(
        type: KeyMaterial.Algorithm, bits: Int, privateQuery: ItemQuery, publicQuery: ItemQuery, token: AccessToken
    ) throws(KeychainError) -> GeneratedKeyPair {
        let storesPrivate = Self.flag(privateQuery, "isPermanent") == true
        let storesPublic = Self.flag(publicQuery, "isPermanent") == true
        if storesPrivate || storesPublic {
            try require(.write, token, for: "store a generated key")
        } else {
            try require(.use, token, for: "generate a key")
        }
        if !storesPrivate, Self.flag(privateQuery, "isExtractable") == false {
            throw .param("isExtractable: a private key that is not permanent is answered, so it must be extractable")
        }
        // The query, the group and the lock before the generation, which may take a second (RSA).
        for (query, stored) in [(privateQuery, storesPrivate), (publicQuery, storesPublic)] where stored {
            try query.check(for: .add)
            let group = query.accessGroup ?? token.defaultGroup
            guard token.grants(group: group) else { throw Self.lacksGroup(group) }
            _ = try barrier()
        }
        let secret: SecureBytes
        let publicKey: [UInt8]
        do { (secret, publicKey) = try KeyOperations.generate(type, bits: bits) } catch {
            throw .param("\(error.isMismatch ? "keyType" : "keySizeInBits"): \(error.message)")
        }
        var items: [DecodedItem] = []
        var barrier: Barrier?
        if storesPrivate {
            let generated = GeneratedPrivateKey(secret: secret, type: type, publicKey: publicKey)
            let (item, opened) = try addedItem(privateQuery, token: token, generated: generated)
            items.append(item)
            barrier = opened
        }
        if storesPublic {
            var query = publicQuery
            query.valueData = publicKey
            let (item, opened) = try addedItem(query, token: token)
            items.append(item)
            barrier = opened
        }
        if !items.isEmpty {
            let records = items.map(\.record)
            do {
                try transaction { writer in for record in records { _ = try writer.insert(record) } }
            } catch {
                // Either key may be the one already there: the error names the first that is.
                let failures = records.map { duplicateOrFailure(error, $0) }
                throw failures.first { $0.persistentRef != nil } ?? failures[0]
            }
        }
        for item in items { publish(.add, item: item) }
        let answers = try items.map { (item) throws(KeychainError) in
            try shape(item.record, query: ItemQuery(), barrier: barrier!, secret: nil, decoded: item, token: nil)
        }
        return GeneratedKeyPair(
            privateItem: storesPrivate ? answers.first : nil, publicItem: storesPublic ? answers.last : nil,
            publicKey: publicKey, privateKey: storesPrivate ? nil : secret)
    }

    /// Uses the key `query` selects (the first match among the token's groups, as
    /// SecItemCopyMatching with `returnRef` would give it), with `algorithm`. Checks, in order:
    /// the `use` capability, the key's usage flag (errSecParam naming it), that the algorithm fits
    /// the key (SecKeyIsAlgorithmSupported; errSecParam naming `algorithm`), and the lock (423).
    /// Answers the key's persistent reference beside the result.
    public func useKey(_ query: ItemQuery, _ use: KeyUse, algorithm: KeyAlgorithm, token: AccessToken) throws(KeychainError)
        -> (result: KeyUseResult, ref: [UInt8])
    {
        try require(.use, token, for: use.flag.verb + " with a key")
        try verifyPrompt(token)
        let (item, barrier) = try keyItem(query, token: token)
        let (type, role) = try Self.keyKind(item)
        let allowed: Bool
        switch item.attributes.first(where: { $0.key.name == use.flag.name })?.value {
        case .bool(let flag)?: allowed = flag
        default: allowed = Self.usageDefaults(role).first { $0.0 == use.flag.name }?.1 ?? false
        }
        guard allowed else { throw .param("\(use.flag.name): the key may not \(use.flag.verb)") }
        guard algorithm.isSupported(use.operation, type: type, role: role) else {
            throw .param("algorithm: \(algorithm.rawValue) does not fit a \(role.rawValue) \(type.rawValue) key")
        }
        // An RSA or EC private key is loaded into OpenSSL once and kept while unlocked: loading
        // one costs more than using it.
        let loaded = role == .private && (type == .rsa || type == .ec) && use.usesPrivateKey
        if loaded {
            return (try useLoadedKey(item, type, use, algorithm: algorithm, barrier: barrier, token: token), item.record.ref)
        }
        let key = try openKey(item, barrier: barrier, for: use.tag, token: token)
        defer { SecureBytesPool.shared.recycle(key) }
        let result: KeyUseResult
        do {
            switch use {
            case .sign(let data):
                let publicKey = type == .ed25519 ? try knownPublicKey(item, key) : nil
                result = .data(
                    try KeyOperations.sign(data, algorithm: algorithm, privateKey: key, type: type, publicKey: publicKey))
            case .verify(let data, let signature):
                let publicKey = try Self.publicKey(of: key, type: type, role: role)
                result = .verified(
                    try KeyOperations.verify(data, signature: signature, algorithm: algorithm, publicKey: publicKey, type: type))
            case .encrypt(let plaintext):
                let publicKey = try Self.publicKey(of: key, type: type, role: role)
                result = .data(try KeyOperations.encrypt(plaintext, algorithm: algorithm, publicKey: publicKey, type: type))
            case .decrypt(let ciphertext):
                result = .data(try KeyOperations.decrypt(ciphertext, algorithm: algorithm, privateKey: key, type: type))
            case .keyExchange(let peer, let size, let sharedInfo):
                result = .data(
                    try KeyOperations.keyExchange(
                        privateKey: key, type: type, peerPublicKey: peer, algorithm: algorithm, requestedSize: size,
                        sharedInfo: sharedInfo))
            }
        } catch {
            throw Self.useError(error, use)
        }
        return (result, item.record.ref)
    }

    /// `use` with the item's RSA or EC private key, loaded into OpenSSL: the one the barrier
    /// keeps for this item's sealed key, or loaded now and kept (while unlocked). The lock and
    /// the access object are checked first, every time.
    private func useLoadedKey(
        _ item: DecodedItem, _ type: KeyMaterial.Algorithm, _ use: KeyUse, algorithm: KeyAlgorithm, barrier: Barrier,
        token: AccessToken
    ) throws(KeychainError) -> KeyUseResult {
        let classKey = try admitKeyUse(item, barrier: barrier, for: use.tag, token: token)
        // Every input of the sealed key's authentication, and its nonce: a row changed in any of
        // them finds nothing kept, and is opened (and authenticated) again.
        let id = item.secretAD + [UInt8(item.protection.rawValue)] + Array((item.record.secret ?? []).prefix(25))
        let key: LoadedPrivateKey
        if let kept = barrier.kept(id) as? LoadedPrivateKey {
            key = kept
        } else {
            let bytes = try unsealKey(item, barrier: barrier, classKey: classKey)
            defer { SecureBytesPool.shared.recycle(bytes) }
            do { key = try KeyOperations.load(bytes, type: type) } catch {
                throw .decode("valueData: the stored key is not a private \(type.rawValue) key")
            }
            barrier.keep(key, as: id)
        }
        do throws(CertificateError) {
            switch use {
            case .sign(let data): return .data(try KeyOperations.sign(data, algorithm: algorithm, key: key))
            case .decrypt(let ciphertext): return .data(try KeyOperations.decrypt(ciphertext, algorithm: algorithm, key: key))
            case .keyExchange(let peer, let size, let sharedInfo):
                return .data(
                    try KeyOperations.keyExchange(
                        key: key, peerPublicKey: peer, algorithm: algorithm, requestedSize: size, sharedInfo: sharedInfo))
            case .verify, .encrypt: throw CertificateError.mismatch("algorithm: verifying and encrypting use a public key")
            }
        } catch {
            throw Self.useError(error, use)
        }
    }

    /// Drops the private keys the barrier keeps loaded when `records` hold a key item: a key
    /// deleted or changed here leaves no loaded copy behind.
    func forgetLoadedKeys(of records: [ItemRecord], barrier: Barrier) {
        if records.contains(where: { $0.itemClass == ItemClass.key.rawValue }) { barrier.forgetKept() }
    }

    /// A key operation's failure as the client sees it: messages that name their key
    /// (`algorithm: …`, `requestedSize: …`) keep it; others are about the input.
    private static func useError(_ error: CertificateError, _ use: KeyUse) -> KeychainError {
        let named = ["algorithm:", "requestedSize:", "sharedInfo:"].contains { error.message.hasPrefix($0) }
        return .param(named ? error.message : "\(use.input): \(error.message)")
    }

    /// SecKeyCopyPublicKey of the key `query` selects: its type and its public key in Apple's
    /// external representation, with the key's persistent reference. Takes `use` or `read`: a
    /// public key is no secret, but a private key's item is still opened to compute it (423 when
    /// its protection class is locked).
    public func copyPublicKey(_ query: ItemQuery, token: AccessToken) throws(KeychainError)
        -> (type: KeyMaterial.Algorithm, publicKey: [UInt8], ref: [UInt8])
    {
        guard token.has(.use) || token.has(.read) else {
            throw .missingEntitlement("token: the token lacks the use or read capability needed to copy a public key")
        }
        let (item, barrier) = try keyItem(query, token: token)
        let (type, role) = try Self.keyKind(item)
        guard role != .symmetric else { throw .param("keyClass: a symmetric key has no public key") }
        // A public key is no secret: no access object is asked.
        let key = try openKey(item, barrier: barrier, for: nil, token: token)
        defer { SecureBytesPool.shared.recycle(key) }
        do {
            return (type, try Self.publicKey(of: key, type: type, role: role), item.record.ref)
        } catch {
            throw .decode("valueData: the stored key is not a \(role.rawValue) \(type.rawValue) key")
        }
    }

    // MARK: helpers

    /// The first key item `query` selects in the token's groups, opened. The query names a key
    /// and asks for nothing: return keys, `matchLimit` and paging are errSecParam.
    private func keyItem(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> (DecodedItem, Barrier) {
        var query = query
        guard query.itemClass == nil || query.itemClass == .key else { throw .param("class: only a key item is used") }
        query.itemClass = .key
        if query.hasReturnKey { throw .param("return: a key's query names the key and asks for nothing back") }
        if query.matchLimit != nil { throw .param("matchLimit: a key operation uses one key, the first the query selects") }
        if query.pageAfter != nil { throw .param("pageAfter: a key operation's query has no pages") }
        try query.check(for: .search)
        let barrier = try barrier()
        var selection = try filter(for: query, token: token, barrier: barrier)
        selection.filter.readsAttributes = true
        var found: DecodedItem?
        let read: (ItemFilter) throws -> [ItemRecord] = { try self.store.items(matching: $0) }
        try scanItems(query, selection, token: token, barrier: barrier, read: read) { (record) throws(KeychainError) in
            found = try DecodedItem(record, barrier: barrier, logger: logger)
            return false
        }
        guard let found else { throw .itemNotFound }
        return (found, barrier)
    }

    /// A key item's type and class.
    private static func keyKind(_ item: DecodedItem) throws(KeychainError) -> (KeyMaterial.Algorithm, KeyMaterial.Role) {
        func value(_ key: SchemaKey) -> String? {
            if case .string(let text)? = item.attributes.first(where: { $0.key == key })?.value { return text }
            return nil
        }
        guard let type = value(keyKeys.keyType).flatMap(KeyMaterial.Algorithm.init(rawValue:)),
            let role = value(keyKeys.keyClass).flatMap(KeyMaterial.Role.init(rawValue:))
        else { throw .decode("keyType: a stored key item lacks its type or class") }
        return (type, role)
    }

    /// Opens a key item's bytes into `sodium_malloc` memory (the pool's: the caller recycles
    /// them); 423 while its protection class is locked, then its access object's check of `tag`
    /// (none for `nil`). Counts as reading a secret for the auto-lock.
    private func openKey(_ item: DecodedItem, barrier: Barrier, for tag: AccessTag?, token: AccessToken) throws(KeychainError)
        -> SecureBytes
    {
        let classKey = try admitKeyUse(item, barrier: barrier, for: tag, token: token)
        return try unsealKey(item, barrier: barrier, classKey: classKey)
    }

    /// What every use of a key item checks, whether its key is opened or kept: it has a key, its
    /// protection class is unlocked (423), its access object allows `tag`. Counts as reading a
    /// secret for the auto-lock. The class key.
    private func admitKeyUse(_ item: DecodedItem, barrier: Barrier, for tag: AccessTag?, token: AccessToken)
        throws(KeychainError) -> SecureBytes
    {
        guard item.record.secret != nil else { throw .decode("valueData: a stored key item has no key") }
        guard let classKey = barrier.classKey(for: item.protection) else { throw Self.locked("key") }
        if let tag { try checkAccess(item, tag, token: token) }
        if item.protection.keyClass == .whenUnlocked { noteSecretUse() }
        return classKey
    }

    /// A key item's bytes, opened into `sodium_malloc` memory (the pool's).
    private func unsealKey(_ item: DecodedItem, barrier: Barrier, classKey: SecureBytes) throws(KeychainError) -> SecureBytes {
        let sealed = item.record.secret ?? []
        let ad = item.secretAD
        do { return try barrier.openSecretSecure(sealed, key: classKey, ad: ad) } catch {
            logger.error(
                "item secret failed authentication",
                metadata: ["item.ref": "\(PersistentRef.encode(item.record.ref, keychain: name))"])
            throw .decode("valueData: the stored secret failed authentication")
        }
    }

    /// An Ed25519 private key's public key, derived from it once and then kept by the nonce of
    /// its sealed bytes (a public key is no secret; a changed key is sealed anew, with a new nonce).
    private func knownPublicKey(_ item: DecodedItem, _ key: SecureBytes) throws(CertificateError) -> [UInt8] {
        let nonce = Array((item.record.secret ?? []).prefix(25))
        if let known = ed25519PublicKeys.withLock({ $0[nonce] }) { return known }
        let derived = try KeyOperations.publicKey(of: key, type: .ed25519)
        ed25519PublicKeys.withLock { keys in
            if keys.count >= Self.maxKnownPublicKeys { keys.removeAll(keepingCapacity: true) }
            keys[nonce] = derived
        }
        return derived
    }

    /// Beyond this many Ed25519 keys in use, the public keys kept are forgotten and derived again.
    static let maxKnownPublicKeys = 1024

    /// The public half of a key item's bytes: the bytes themselves for a public key.
    private static func publicKey(of key: SecureBytes, type: KeyMaterial.Algorithm, role: KeyMaterial.Role)
        throws(CertificateError) -> [UInt8]
    {
        if role == .public { return key.withUnsafeBytes { Array($0) } }
        return try KeyOperations.publicKey(of: key, type: type)
    }

    /// A boolean attribute of a query, when it has one.
    static func flag(_ query: ItemQuery, _ name: String) -> Bool? {
        if case .bool(let value)? = query.attributes.first(where: { $0.key.name == name })?.value { return value }
        return nil
    }
}

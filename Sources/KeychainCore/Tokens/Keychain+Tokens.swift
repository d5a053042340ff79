import ExtrasBase64
import KeychainBarrier
import KeychainCrypto
import KeychainJSON
import KeychainStorage
import Logging
import Synchronization

extension Keychain {
    /// Resolves a bearer secret to its grant: errSecAuthFailed when unknown, revoked or expired.
    ///
    /// Tokens are found by their keyed BLAKE2b hash (the secret is never stored) and the hash is
    /// compared in constant time.
    public func authenticate(bearer secret: String) throws(KeychainError) -> AccessToken {
        var secret = secret
        let outcome = secret.withUTF8 { bytes in Result { () throws(KeychainError) in try authenticate(bearer: bytes) } }
        return try outcome.get()
    }

    /// `authenticate(bearer:)` for a secret's UTF-8 bytes as they lie in a request, never copied.
    public func authenticate(bearer secret: UnsafeBufferPointer<UInt8>) throws(KeychainError) -> AccessToken {
        let barrier = try barrier()
        let now = clock.uptime()
        let (cached, slot) = tokenCache.lookup(secret, now: now)
        let token: AccessToken
        if let cached {
            token = cached
        } else {
            // Hashed where it lies: a `String` of it could not be wiped. (A token is ASCII; bytes
            // that are not UTF-8 name no token, hashed as they are or as U+FFFD.)
            let hash = barrier.tokenHash(UnsafeRawBufferPointer(secret))
            let record = try snapshot { try $0.token(hash: hash) }
            guard let record, Sodium.constantTimeEquals(record.hash, hash) else { throw Self.invalidToken }
            token = try openToken(record, barrier: barrier)
            tokenCache.insert(token, at: slot, now: now)
        }
        if let expiresAt = token.expiresAt, expiresAt <= clock.now() { throw Self.invalidToken }
        return token
    }

    /// The one answer for a missing, unknown, expired or revoked token.
    public static let invalidToken = KeychainError.authFailed("token: missing, invalid, expired or revoked bearer token")

    /// Creates a token. `caller` must hold `admin` (`nil`: local administration of the data
    /// directory), and grants only what it holds: groups within its own, capabilities it has,
    /// and an expiry no later than its own.
    /// `keychains` `nil`: the caller's default keychain alone (`default` for local administration).
    public func createToken(
        name: String, accessGroups: [String], keychains: [String]? = nil, capabilities: Set<Capability>, expiresAt: Int64?,
        caller: AccessToken?
    ) throws(KeychainError) -> IssuedToken {
        try requireAdmin(caller)
        guard !name.isEmpty, name.utf8.count <= 256 else { throw .param("name: expected 1…256 bytes") }
        guard !accessGroups.isEmpty, accessGroups.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 }) else {
            throw .param("accessGroups: expected a non-empty list of non-empty group names")
        }
        guard accessGroups.count <= AccessToken.maxGroups else {
            throw .param("accessGroups: \(accessGroups.count) groups; a token holds at most \(AccessToken.maxGroups)")
        }
        let keychains = keychains ?? [caller?.keychains.first.flatMap { $0 == "*" ? nil : $0 } ?? KeychainName.default]
        guard !keychains.isEmpty, keychains.count <= AccessToken.maxGroups else {
            throw .param("keychains: expected a list of 1…\(AccessToken.maxGroups) keychain names or \"*\"")
        }
        for keychain in keychains where !keychain.isSameBytes(as: "*") { try KeychainName.check(keychain, key: "keychains") }
        guard !capabilities.isEmpty else { throw .param("capabilities: expected at least one capability") }
        if let expiresAt, expiresAt <= clock.now() { throw .param("expiresAt: already in the past") }
        if let caller {
            if !caller.allGroups, let group = accessGroups.first(where: { $0.isSameBytes(as: "*") || !caller.grants(group: $0) })
            {
                throw .missingEntitlement("accessGroups: the calling token lacks group \"\(group)\"")
            }
            if !caller.covers(keychains: keychains) {
                throw .missingEntitlement("keychains: the calling token may not use every keychain it names")
            }
            if let capability = capabilities.sorted().first(where: { !caller.has($0) }) {
                throw .missingEntitlement("capabilities: the calling token lacks the \(capability.rawValue) capability")
            }
            if let limit = caller.expiresAt, (expiresAt ?? .max) > limit {
                throw .missingEntitlement("expiresAt: the new token would outlive the calling token, which expires first")
            }
        }
        let made = try makeToken(
            barrier: barrier(), name: name, accessGroups: accessGroups, keychains: keychains, capabilities: capabilities,
            expiresAt: expiresAt)
        try transaction { try $0.insert(made.record) }
        logger.info("token created", metadata: ["token.id": "\(made.issued.token.id)"])
        return made.issued
    }

    /// The public description (never a secret) of every token whose groups and keychains are
    /// within the caller's: an admin of some groups sees neither the tokens of other groups nor
    /// a `*` token, and an admin of some keychains none of another keychain's.
    public func listTokens(caller: AccessToken?) throws(KeychainError) -> [AccessToken] {
        try requireAdmin(caller)
        let barrier = try barrier()
        let records = try snapshot { try $0.tokens() }
        var tokens: [AccessToken] = []
        for record in records {
            let token = try openToken(record, barrier: barrier)
            if caller.map({ $0.covers(groups: token.accessGroups) && $0.covers(keychains: token.keychains) }) ?? true {
                tokens.append(token)
            }
        }
        return tokens
    }

    /// Revokes the token `id`; errSecItemNotFound when there is none, or when its groups are
    /// not within the caller's (the same answer: a token the caller may not see is missing).
    public func revokeToken(id: String, caller: AccessToken?) throws(KeychainError) {
        try requireAdmin(caller)
        let barrier = try barrier()
        let removed = try transaction { [self] writer in
            guard let record = try writer.tokens().first(where: { $0.id.isSameBytes(as: id) }) else { return false }
            if let caller {
                let token = try openToken(record, barrier: barrier)
                guard caller.covers(groups: token.accessGroups), caller.covers(keychains: token.keychains) else { return false }
            }
            guard try writer.deleteToken(id: id) else { return false }
            try Self.countRevocation(in: writer)
            try log(.tokenRevoked, tokenID: id, barrier: barrier, in: writer)
            return true
        }
        guard removed else { throw .itemNotFound }
        tokenCache.revoke(id: id)
        logger.info("token revoked", metadata: ["token.id": "\(id)"])
        publish(.tokenRevoked, tokenID: id)
    }

    /// errSecMissingEntitlement unless `caller` holds `admin` over every group (`*`): for what
    /// changes the whole keychain (its passphrase, its settings), which an admin of some groups may not.
    public func requireKeychainAdmin(_ caller: AccessToken?, for operation: String) throws(KeychainError) {
        try requireAdmin(caller)
        if let caller, !caller.allGroups {
            throw .missingEntitlement("token: \(operation) needs an admin token for every group (\"*\")")
        }
    }

    /// errSecMissingEntitlement unless `caller` holds `admin` (`nil`: local administration).
    public func requireAdmin(_ caller: AccessToken?) throws(KeychainError) {
        if let caller, !caller.has(.admin) { throw .missingEntitlement("token: the token lacks the admin capability") }
    }

    func makeToken(
        barrier: Barrier, name: String, accessGroups: [String], keychains: [String], capabilities: Set<Capability>,
        expiresAt: Int64?
    ) throws(KeychainError) -> (issued: IssuedToken, record: TokenRecord) {
        let id = "tok_" + Sodium.randomBytes(8).map { String($0, radix: 16).leftPadded(2) }.joined()
        let secret =
            "kcd_" + Base64.encodeToString(bytes: Sodium.randomBytes(32), options: [.base64UrlAlphabet, .omitPaddingCharacter])
        let now = clock.now()
        let token = AccessToken(
            id: id, name: name, accessGroups: accessGroups, keychains: keychains, capabilities: capabilities,
            expiresAt: expiresAt, createdAt: now)
        let description = TokenDescription.encode(
            name: name, accessGroups: accessGroups, keychains: keychains, capabilities: capabilities)
        let sealed = try Self.crypto { () throws(CryptoError) in try barrier.sealToken(description, id: id) }
        let record = TokenRecord(id: id, hash: barrier.tokenHash(secret), sealed: sealed, expires: expiresAt, created: now)
        return (IssuedToken(token: token, secret: secret), record)
    }

    func openToken(_ record: TokenRecord, barrier: Barrier) throws(KeychainError) -> AccessToken {
        guard let plaintext = try? barrier.openToken(record.sealed, id: record.id),
            let (name, groups, keychains, capabilities) = TokenDescription.decode(plaintext)
        else {
            logger.error("token record failed to open", metadata: ["token.id": "\(record.id)"])
            throw .decode("a stored token failed authentication")
        }
        let digests = groups.contains("*") ? nil : groups.map(barrier.groupDigest)
        // A token's groups are names the barrier may now know by digest (`GroupKeys`).
        for (group, digest) in zip(groups, digests ?? []) { barrier.learnGroupName(group, digest: digest) }
        return AccessToken(
            id: record.id, name: name, accessGroups: groups, keychains: keychains, capabilities: capabilities,
            expiresAt: record.expires, createdAt: record.created, groupDigests: digests)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// A token's sealed description: its name, groups, capabilities and keychains (`SealedEncoding`).
/// A description without keychains was sealed before keychains had names (`AccessToken.init`).
enum TokenDescription {
    typealias Fields = (name: String, accessGroups: [String], keychains: [String]?, capabilities: Set<Capability>)

    static func encode(name: String, accessGroups: [String], keychains: [String], capabilities: Set<Capability>) -> [UInt8] {
        var writer = SealedEncoding.Writer()
        writer.append(name)
        writer.append(UInt32(accessGroups.count))
        for group in accessGroups { writer.append(group) }
        writer.append(byte: capabilities.reduce(0) { $0 | $1.bit })
        writer.append(UInt32(keychains.count))
        for keychain in keychains { writer.append(keychain) }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) -> Fields? {
        if bytes.first == SealedEncoding.legacyJSON {
            // Version 0: {"name": …, "accessGroups": […], "capabilities": […]}.
            guard let object = try? JSON.parse(bytes).objectValue, let name = object["name"]?.stringValue,
                let groups = object["accessGroups"]?.arrayValue?.compactMap(\.stringValue),
                let names = object["capabilities"]?.arrayValue?.compactMap(\.stringValue)
            else { return nil }
            return (name, groups, nil, Set(names.compactMap(Capability.init(rawValue:))))
        }
        guard var reader = SealedEncoding.Reader(bytes), let name = reader.string(), let count = reader.uint32() else {
            return nil
        }
        var groups: [String] = []
        for _ in 0..<count {
            guard let group = reader.string() else { return nil }
            groups.append(group)
        }
        guard let bits = reader.byte() else { return nil }
        let capabilities = Set(Capability.allCases.filter { bits & $0.bit != 0 })
        if reader.isAtEnd { return (name, groups, nil, capabilities) }
        guard let keychainCount = reader.uint32(), keychainCount <= AccessToken.maxGroups else { return nil }
        var keychains: [String] = []
        for _ in 0..<keychainCount {
            guard let keychain = reader.string() else { return nil }
            keychains.append(keychain)
        }
        guard reader.isAtEnd else { return nil }
        return (name, groups, keychains, capabilities)
    }
}

import KeychainX509

/// Key items: the bytes in `valueData` checked against `keyType`, `keyClass` and the sizes,
/// and what Apple fills in when the caller gives none.
extension Keychain {
    static let keyKeys = (
        keyClass: Schema.key(canonical: "keyClass")!, keyType: Schema.key(canonical: "keyType")!,
        size: Schema.key(canonical: "keySizeInBits")!, effectiveSize: Schema.key(canonical: "effectiveKeySize")!,
        label: Schema.key(canonical: "applicationLabel")!, extractable: Schema.key(canonical: "isExtractable")!
    )

    /// The attributes a key's bytes decide: `keyClass`, `keyType` and the two sizes.
    static func isKeyShape(_ key: SchemaKey) -> Bool {
        let k = keyKeys
        return key == k.keyClass || key == k.keyType || key == k.size || key == k.effectiveSize
    }

    /// `attributes` of a key item whose key is `bytes`, checked and completed: `keyClass` and
    /// `keyType` must name what the bytes are, given sizes must equal the key's (each
    /// mismatch errSecParam naming the attribute); bytes that are no key of the type are
    /// errSecUnknownFormat naming `valueData`, as a certificate's. The sizes are filled, and
    /// for a public or private key `applicationLabel` (SecKeyCopyPublicKeyHash) when absent;
    /// `defaults` adds `isExtractable` and the usage flags when absent (an add).
    static func keyAttributes(
        _ attributes: [(key: SchemaKey, value: AttributeValue)], bytes: [UInt8], defaults: Bool
    ) throws(KeychainError) -> [(key: SchemaKey, value: AttributeValue)] {
        let k = keyKeys
        func value(_ key: SchemaKey) -> AttributeValue? { attributes.first { $0.key == key }?.value }
        guard case .string(let roleName)? = value(k.keyClass), let role = KeyMaterial.Role(rawValue: roleName) else {
            throw .param("keyClass: a key item needs its key class (public, private or symmetric)")
        }
        guard case .string(let typeName)? = value(k.keyType), let algorithm = KeyMaterial.Algorithm(rawValue: typeName) else {
            throw .param("keyType: a key item needs its key type (rsa, ec, ed25519, x25519 or aes)")
        }
        let key = try parseKey(bytes, algorithm: algorithm, role: role)
        return try completeKeyAttributes(
            attributes, role: role, sizeInBits: key.sizeInBits, publicKeyHash: key.publicKeyHash,
            defaults: defaults)
    }

    /// A generated private key's attributes: `keyClass` and `keyType` must name what it is, and
    /// the rest is completed from its public key as `keyAttributes` does.
    static func generatedKeyAttributes(
        _ attributes: [(key: SchemaKey, value: AttributeValue)], type: KeyMaterial.Algorithm, publicKey: [UInt8]
    ) throws(KeychainError) -> [(key: SchemaKey, value: AttributeValue)] {
        let k = keyKeys
        func value(_ key: SchemaKey) -> AttributeValue? { attributes.first { $0.key == key }?.value }
        guard value(k.keyClass) == .string("private") else { throw .param("keyClass: a generated key pair stores a private key") }
        guard value(k.keyType) == .string(type.rawValue) else { throw .param("keyType: the key generated is \(type.rawValue)") }
        let key = try parseKey(publicKey, algorithm: type, role: .public)
        return try completeKeyAttributes(
            attributes, role: .private, sizeInBits: key.sizeInBits, publicKeyHash: key.publicKeyHash,
            defaults: true)
    }

    /// `attributes` with the sizes checked and filled, `applicationLabel` filled when absent and
    /// there is a public key hash, and with `defaults`, Apple's usage flags where absent.
    private static func completeKeyAttributes(
        _ attributes: [(key: SchemaKey, value: AttributeValue)], role: KeyMaterial.Role, sizeInBits: Int,
        publicKeyHash: [UInt8]?, defaults: Bool
    ) throws(KeychainError) -> [(key: SchemaKey, value: AttributeValue)] {
        let k = keyKeys
        func value(_ key: SchemaKey) -> AttributeValue? { attributes.first { $0.key == key }?.value }
        let key = (sizeInBits: sizeInBits, publicKeyHash: publicKeyHash)
        let size = AttributeValue.int(Int64(key.sizeInBits))
        for sizeKey in [k.size, k.effectiveSize] {
            if let given = value(sizeKey), given != size {
                throw .param("\(sizeKey.name): the key in valueData has \(key.sizeInBits) bits")
            }
        }
        var out = attributes.filter { $0.key != k.size && $0.key != k.effectiveSize }
        out += [(k.size, size), (k.effectiveSize, size)]
        if let hash = key.publicKeyHash, value(k.label) == nil { out.append((k.label, .bytes(hash))) }
        if defaults {
            for (name, flag) in usageDefaults(role) where !out.contains(where: { $0.key.name == name }) {
                out.append((Schema.key(canonical: name)!, .bool(flag)))
            }
        }
        return out
    }

    /// Apple's defaults (SecItem.h on each `kSecAttrCan…`; SecKey's generated keys): a public
    /// key encrypts, verifies, wraps and derives; a private one decrypts, signs, unwraps and
    /// derives; a symmetric one all but sign and verify. Every key is extractable unless the
    /// caller says otherwise, and not sensitive.
    static func usageDefaults(_ role: KeyMaterial.Role) -> [(String, Bool)] {
        let isPublic = role == .public
        let isPrivate = role == .private
        return [
            ("isExtractable", true), ("isSensitive", false),
            ("canEncrypt", !isPrivate), ("canDecrypt", !isPublic), ("canDerive", true),
            ("canSign", isPrivate), ("canVerify", isPublic), ("canWrap", !isPrivate), ("canUnwrap", !isPublic),
        ]
    }

    /// Parses `bytes` as `algorithm` and `role`; when they are not, names what is wrong: the
    /// class when the bytes are that type's key of another class, the type when they are
    /// another type's key, else `valueData`.
    static func parseKey(_ bytes: [UInt8], algorithm: KeyMaterial.Algorithm, role: KeyMaterial.Role) throws(KeychainError)
        -> KeyMaterial
    {
        do { return try KeyMaterial(bytes, algorithm: algorithm, role: role) } catch {
            if error.isMismatch { throw .param("keyType: \(error.message)") }
            let others = KeyMaterial.alternatives(of: bytes, besides: algorithm, role)
            if let other = others.first(where: { $0.0 == algorithm }) {
                throw .param("keyClass: the key in valueData is a \(other.1.rawValue) \(algorithm.rawValue) key")
            }
            if let other = others.first(where: { $0.1 == role }) ?? others.first {
                throw .param("keyType: the key in valueData is a \(other.1.rawValue) \(other.0.rawValue) key")
            }
            throw .unknownFormat(
                "valueData: not a \(role.rawValue) \(algorithm.rawValue) key in Apple's external representation (\(error.message))"
            )
        }
    }

    /// Whether a key item's bytes may leave in an answer: `isExtractable` is not false.
    static func isExtractable(_ item: DecodedItem) -> Bool {
        item.itemClass != .key || item.attributes.first(where: { $0.key == keyKeys.extractable })?.value != .bool(false)
    }
}

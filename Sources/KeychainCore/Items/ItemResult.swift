/// An item's attributes as an answer carries them.
public struct ItemAttributes: Sendable {
    public let itemClass: ItemClass
    public let accessGroup: String
    public let accessible: Protection
    public let synchronizable: Bool
    /// Milliseconds since 1970.
    public let creationDate: Int64
    public let modificationDate: Int64
    /// The other attributes, in the order they were given.
    public let values: [(key: SchemaKey, value: AttributeValue)]

    /// The value of attribute `name` (canonical), if the item has it.
    public func value(_ name: String) -> AttributeValue? { values.first { $0.key.name == name }?.value }
}

/// One item in an answer: what the query asked for, plus the ref and version for HTTP headers.
public struct ItemResult: Sendable {
    /// The persistent reference's 16 bytes.
    public let ref: [UInt8]
    /// Grows by one on every update: the ETag.
    public let version: Int64
    /// The attributes, when asked for.
    public let attributes: ItemAttributes?
    /// Whether the persistent reference was asked for.
    public let includesRef: Bool
    /// The secret, when asked for.
    public let secret: [UInt8]?
    /// An identity's certificate (DER), with its key's bytes in `secret`, when the data was asked for.
    public var certificateData: [UInt8]?
    /// What `returnRef` asked for: the certificate and the key the item holds.
    public var reference: ItemReference?
    /// An identity's private key's persistent reference: the answer reads that item too.
    public var keyRef: [UInt8]?
    /// The keychain that holds the item, which its persistent reference names.
    public var keychain: String = KeychainName.default

    /// Whether the answer carries secret bytes: a secret, or a key's in its reference.
    public var carriesSecret: Bool { secret != nil || reference?.key != nil }

    /// The items the answer read: its own, and an identity's key.
    public var touchedRefs: [[UInt8]] { keyRef.map { [ref, $0] } ?? [ref] }

    /// The persistent reference, encoded (a search answer rarely needs it outside the body).
    public var persistentRef: String { PersistentRef.encode(ref, keychain: keychain) }
}

extension ItemResult {
    /// Through the memberwise initializer (docs/performance.md#fewer-struct-copies); their
    /// labels differ, which the compiler checks.
    public init(
        ref: [UInt8], version: Int64, attributes: ItemAttributes?, secret: [UInt8]?, includesRef: Bool,
        certificateData: [UInt8]? = nil, reference: ItemReference? = nil, keyRef: [UInt8]? = nil,
        keychain: String = KeychainName.default
    ) {
        self.init(
            ref: ref, version: version, attributes: attributes, includesRef: includesRef, secret: secret,
            certificateData: certificateData, reference: reference, keyRef: keyRef, keychain: keychain)
    }
}

/// What `kSecReturnRef` gives over HTTP for Apple's SecCertificate, SecKey and SecIdentity
/// objects: a certificate's DER and a key's external representation (only when the key is
/// extractable). A password item has none.
public struct ItemReference: Sendable {
    public let certificate: [UInt8]?
    public let key: [UInt8]?
    /// The key's type and class, which its bytes alone do not tell (a PEM needs them).
    public let keyType: String?
    public let keyClass: String?

    public init(certificate: [UInt8]?, key: [UInt8]?, keyType: String?, keyClass: String?) {
        self.certificate = certificate
        self.key = key
        self.keyType = keyType
        self.keyClass = keyClass
    }
}

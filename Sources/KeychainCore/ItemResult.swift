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
    /// The secret, when asked for.
    public let secret: [UInt8]?
    /// Whether the persistent reference was asked for.
    public let includesRef: Bool

    /// The persistent reference, encoded (a search answer rarely needs it outside the body).
    public var persistentRef: String { PersistentRef.encode(ref) }
}

/// One item as storage sees it: opaque ids, ciphertext and keyed digests, nothing in clear but
/// its class, group id, protection class, synchronizable flag and dates.
///
/// Its public initializer (below) calls the memberwise one, made once per row a search reads
/// (docs/performance.md#fewer-struct-copies); their labels differ, which the compiler checks.
public struct ItemRecord: Sendable, Equatable {
    /// The persistent reference's 16 random bytes.
    public var ref: [UInt8]
    /// The item class code (see `KeychainCore.ItemClass`).
    public var itemClass: Int
    /// Keyed digest of the access group name.
    public var group: [UInt8]
    /// Protection class code.
    public var protection: Int
    public var synchronizable: Bool
    /// Milliseconds since 1970.
    public var created: Int64
    public var modified: Int64
    /// Starts at 1, grows by one on every update: the ETag.
    public var version: Int64
    /// Keyed digest of the class's primary key; unique across the store.
    public var primaryKey: [UInt8]
    /// Sealed attributes.
    public var attributes: [UInt8]
    /// Sealed secret, if any.
    public var secret: [UInt8]?
    /// Keyed lookup digests of every searchable attribute value.
    public var lookups: [[UInt8]]
    /// Storage's row id; `0` before insertion.
    public var rowID: Int64
    /// The item's `add` event, appended with it on a store that shares its events
    /// (`SharedEventLog`); other stores ignore it.
    public var event: StoredEvent? = nil
}

extension ItemRecord {
    public init(
        rowID: Int64 = 0, ref: [UInt8], itemClass: Int, group: [UInt8], protection: Int, synchronizable: Bool,
        created: Int64, modified: Int64, version: Int64, primaryKey: [UInt8], attributes: [UInt8],
        secret: [UInt8]?, lookups: [[UInt8]]
    ) {
        self.init(
            ref: ref, itemClass: itemClass, group: group, protection: protection, synchronizable: synchronizable,
            created: created, modified: modified, version: version, primaryKey: primaryKey, attributes: attributes,
            secret: secret, lookups: lookups, rowID: rowID)
    }
}

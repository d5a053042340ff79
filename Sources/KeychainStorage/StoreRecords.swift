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

/// Which items a read or delete selects. Every non-nil field is ANDed.
public struct ItemFilter: Sendable, Equatable {
    /// Class codes to include; `nil` means every class.
    public var classes: [Int]?
    /// Group digests to include; `nil` means every group.
    public var groups: [[UInt8]]?
    /// `nil` means both.
    public var synchronizable: Bool?
    public var ref: [UInt8]?
    /// Creation and modification dates the item must have (milliseconds since 1970).
    public var created: Int64?
    public var modified: Int64?
    /// Primary-key digests, one of which the item must have; `nil` means any.
    public var primaryKeys: [[UInt8]]?
    /// Lookup digests the item must all carry.
    public var lookups: [[UInt8]]
    /// At most this many items, in insertion order.
    public var limit: Int?
    /// Only items inserted after the item with this row id (a page of a longer answer).
    public var afterID: Int64?
    /// Whether to read each item's sealed attributes and primary key; when `false` they come
    /// back empty, which spares reading them for a search that returns neither.
    public var readsAttributes = true
    /// A primary key named whole but for its group, when the store lists groups
    /// (`GroupListingStore`): the store reads `byPrimaryKeys(groups:)` or `byLookups()`.
    /// A store that does not list groups is never handed one.
    public var groupKeys: GroupKeys?

    /// Field by field; group keys by identity (an object a search makes for itself).
    public static func == (a: ItemFilter, b: ItemFilter) -> Bool {
        a.classes == b.classes && a.groups == b.groups && a.synchronizable == b.synchronizable && a.ref == b.ref
            && a.created == b.created && a.modified == b.modified && a.primaryKeys == b.primaryKeys
            && a.lookups == b.lookups && a.limit == b.limit && a.afterID == b.afterID
            && a.readsAttributes == b.readsAttributes && a.groupKeys === b.groupKeys
    }
}

extension ItemFilter {
    /// Through the memberwise initializer, which also takes `afterID` and `readsAttributes`
    /// (docs/performance.md#fewer-struct-copies).
    public init(
        classes: [Int]? = nil, groups: [[UInt8]]? = nil, synchronizable: Bool? = nil, ref: [UInt8]? = nil,
        created: Int64? = nil, modified: Int64? = nil, primaryKeys: [[UInt8]]? = nil, lookups: [[UInt8]] = [],
        limit: Int? = nil, groupKeys: GroupKeys? = nil
    ) {
        self.init(
            classes: classes, groups: groups, synchronizable: synchronizable, ref: ref, created: created, modified: modified,
            primaryKeys: primaryKeys, lookups: lookups, limit: limit, afterID: nil, readsAttributes: true, groupKeys: groupKeys)
    }
}

/// A token as storage sees it: a public id, a keyed hash of the secret, a sealed description.
public struct TokenRecord: Sendable, Equatable {
    public var id: String
    public var hash: [UInt8]
    public var sealed: [UInt8]
    /// Milliseconds since 1970; `nil` never expires.
    public var expires: Int64?
    public var created: Int64

    public init(id: String, hash: [UInt8], sealed: [UInt8], expires: Int64?, created: Int64) {
        self.id = id
        self.hash = hash
        self.sealed = sealed
        self.expires = expires
        self.created = created
    }
}

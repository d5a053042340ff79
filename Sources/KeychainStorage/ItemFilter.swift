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

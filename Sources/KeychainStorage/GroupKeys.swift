import Synchronization

/// A primary key that a search names whole but for its group: a token of every group asks for
/// service and account, say, without an access group. A store that can list the groups holding
/// items of a class (`GroupListingStore`) then reads each group's item by its
/// primary-key digest, as it would for a token of those groups, instead of intersecting lookup
/// digests; when a group's name is unknown, or there are more than `maxGroups`, it reads by
/// the lookups instead (`ItemFilter.byLookups`). Either way it reads the same items, in the
/// same order, and the keychain still checks each item's primary key: a store that ignored the
/// group keys would read every item of the class, and answer the same.
///
/// Digests are made by the keychain, which knows the names (a subclass: `digest(group:)` and
/// `primaryKeyLookups()`); the store knows only group digests. Each is made at most once a
/// search, and kept: the keychain's check of the items read (`knownPrimaryKey`) then compares
/// bytes instead of hashing again.
open class GroupKeys: @unchecked Sendable {
    /// The class the primary key is of.
    public let itemClass: Int
    /// Past this many groups of the class, the store reads by the lookups.
    public let maxGroups: Int
    /// The synchronizable state the digests are made for (the filter's).
    public let synchronizable: Bool
    /// Group digests and their primary-key digests made so far; then the groups whose names
    /// were unknown. A few groups: compared in turn rather than hashed.
    private let made = Mutex<(known: [(group: [UInt8], key: [UInt8])], unknown: [[UInt8]])>(([], []))

    public init(itemClass: Int, synchronizable: Bool, maxGroups: Int) {
        self.itemClass = itemClass
        self.synchronizable = synchronizable
        self.maxGroups = maxGroups
    }

    /// A group digest's primary-key digest; `nil` when the group's name is unknown.
    open func digest(group: [UInt8]) -> [UInt8]? { nil }

    /// The lookup digests of the primary key's values.
    open func primaryKeyLookups() -> [[UInt8]] { [] }

    /// The primary-key digest of the group with digest `group`; `nil` when its name is unknown
    /// (then noted in `unknownGroups`).
    public final func primaryKey(group: [UInt8]) -> [UInt8]? {
        if let key = made.withLock({ $0.known.first { $0.group == group }?.key }) { return key }
        guard let key = digest(group: group) else {
            made.withLock { if !$0.unknown.contains(group) { $0.unknown.append(group) } }
            return nil
        }
        made.withLock { $0.known.append((group, key)) }
        return key
    }

    /// The digest `primaryKey(group:)` made for `group`, for an item of `synchronizable`.
    public final func knownPrimaryKey(group: [UInt8], synchronizable: Bool) -> [UInt8]? {
        guard synchronizable == self.synchronizable else { return nil }
        return made.withLock { $0.known.first { $0.group == group }?.key }
    }

    /// The groups whose names `primaryKey(group:)` did not know.
    public final var unknownGroups: [[UInt8]] { made.withLock { $0.unknown } }
}

extension ItemFilter {
    /// This filter read by lookup digests alone: the primary key's lookups first (as a filter
    /// without group keys has them), then its own.
    public func byLookups() -> ItemFilter {
        guard let groupKeys else { return self }
        var filter = self
        filter.groupKeys = nil
        filter.lookups = groupKeys.primaryKeyLookups() + lookups
        return filter
    }

    /// This filter read by the primary-key digest of each of `groups` (the group digests of its
    /// class's items, every one of them): `nil` when there are more than its `maxGroups` or one
    /// group's name is unknown.
    public func byPrimaryKeys(groups: [[UInt8]]) -> ItemFilter? {
        guard let groupKeys, groups.count <= groupKeys.maxGroups else { return nil }
        var keys: [[UInt8]] = []
        keys.reserveCapacity(groups.count)
        // Every group, even past an unknown one: each unknown is noted, and each known digest
        // made serves the check of the items read by lookups instead.
        for group in groups {
            if let key = groupKeys.primaryKey(group: group) { keys.append(key) }
        }
        guard keys.count == groups.count else { return nil }
        var filter = self
        filter.groupKeys = nil
        filter.primaryKeys = keys
        return filter
    }
}

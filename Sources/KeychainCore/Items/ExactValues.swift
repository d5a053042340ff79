import KeychainBarrier
import KeychainStorage

/// The string values a query matches exactly. Their lookup digests are of folded strings
/// (`Barrier.lookup`), which an item of the same value in another case also carries: a record
/// the store selects through them matches only when its opened attributes hold each of these
/// byte for byte.
public struct ExactValues: Sendable {
    var values: [(key: SchemaKey, value: String)] = []
    /// The primary key the query names whole but for its group: checked on each item's
    /// primary-key digest, and its string values are then not among `values`.
    var key: KeyCheck?
    /// The digests of `key` the store made for the groups it read by primary key
    /// (`ItemFilter.groupKeys`): an item of one of them is checked against the digest made.
    var groupKeys: GroupKeys?

    public init(values: [(key: SchemaKey, value: String)] = []) {
        self.values = values
    }

    /// A class and the values of each of its primary-key attributes, in `primaryKey` order.
    struct KeyCheck: Sendable {
        let itemClass: ItemClass
        let keys: [SchemaKey]
        let values: [AttributeValue]
    }

    var isEmpty: Bool { values.isEmpty && key == nil }

    func accepts(_ attributes: [(key: SchemaKey, value: AttributeValue)]) -> Bool {
        values.allSatisfy { wanted in
            attributes.contains { key, value in
                guard key == wanted.key, case .string(let string) = value else { return false }
                return string.utf8.elementsEqual(wanted.value.utf8)
            }
        }
    }
}

/// What a query selects: the store's filter, and the values the records it reads must then hold.
struct ItemSelection: Sendable {
    var filter: ItemFilter
    var exact: ExactValues
}

extension Keychain {
    /// The records that hold `exact`'s values: all of them when it has none. A key check
    /// compares the record's primary-key digest with the one its group and the query's values
    /// make, once an opened item of that group has shown the group's name.
    func matching(_ records: [ItemRecord], _ exact: ExactValues, barrier: Barrier) throws(KeychainError) -> [ItemRecord] {
        guard !exact.isEmpty else { return records }
        // Records are read in place, and copied only once one is left out: when every record
        // holds the values (as all read by primary key do), the answer is `records` itself.
        var kept: [ItemRecord]?
        for n in records.indices {
            if try holds(records[n], exact, barrier: barrier) {
                kept?.append(records[n])
            } else if kept == nil {
                kept = Array(records[..<n])
            }
        }
        return kept ?? records
    }

    /// Whether `record` holds `exact`'s values (`matching`).
    private func holds(_ record: ItemRecord, _ exact: ExactValues, barrier: Barrier) throws(KeychainError) -> Bool {
        // Opened only to learn its group's name; its values are then compared on it too.
        var opened: DecodedItem?
        if let made = exact.groupKeys?.knownPrimaryKey(group: record.group, synchronizable: record.synchronizable) {
            guard made == record.primaryKey else { return false }
        } else if let key = exact.key {
            var group = barrier.groupName(digest: record.group)
            if group == nil {
                let item = try openLearningGroup(record, barrier: barrier)
                group = item.group
                opened = item
            }
            let digest = barrier.primaryKey(
                itemClass: key.itemClass, group: group!, sync: record.synchronizable, values: key.values)
            guard digest == record.primaryKey else { return false }
        }
        guard !exact.values.isEmpty else { return true }
        if let opened { return exact.accepts(opened.attributes) }
        return try DecodedItem.holds(record, exact, barrier: barrier, logger: logger)
    }

    /// Opens `record`, and notes its group's name for the group digest of its row.
    func openLearningGroup(_ record: ItemRecord, barrier: Barrier) throws(KeychainError) -> DecodedItem {
        let item = try DecodedItem(record, barrier: barrier, logger: logger)
        barrier.learnGroupName(item.group, digest: record.group)
        return item
    }
}

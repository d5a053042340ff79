import KeychainStorage

/// The string values a query matches exactly. Their lookup digests are of folded strings
/// (`Barrier.lookup`), which an item of the same value in another case also carries: a record
/// the store selects through them matches only when its opened attributes hold each of these
/// byte for byte.
struct ExactValues: Sendable {
    var values: [(key: SchemaKey, value: String)] = []

    var isEmpty: Bool { values.isEmpty }

    func accepts(_ item: DecodedItem) -> Bool {
        values.allSatisfy { wanted in
            item.attributes.contains { key, value in
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
    /// The records whose opened attributes hold `exact`'s values: all of them when it has none.
    func matching(_ records: [ItemRecord], _ exact: ExactValues, barrier: Barrier) throws(KeychainError) -> [ItemRecord] {
        guard !exact.isEmpty else { return records }
        var kept: [ItemRecord] = []
        for record in records where try DecodedItem.holds(record, exact, barrier: barrier, logger: logger) {
            kept.append(record)
        }
        return kept
    }
}

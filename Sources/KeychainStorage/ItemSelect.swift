/// The SELECT of the items an `ItemFilter` names, shared by the SQL stores: the same tables,
/// the same plan, each store's own placeholders.
///
/// Tables: `items i` (id, ref, class, grp, pdmn, sync, cdat, mdat, version, pk, attrs, secret)
/// and `lookups` (digest, item_id). Driven by the primary-key index when the filter has primary
/// keys, else by the first lookup digest's index when there is one; insertion order.
package enum ItemSelect {
    /// The item columns, in the order stores read them.
    package static let columns = "i.id, i.ref, i.class, i.grp, i.pdmn, i.sync, i.cdat, i.mdat, i.version, i.pk, i.attrs, i.secret"
    /// `columns` with NULL for the primary key and the sealed attributes (read as empty).
    package static let columnsWithoutAttributes =
        "i.id, i.ref, i.class, i.grp, i.pdmn, i.sync, i.cdat, i.mdat, i.version, NULL, NULL, i.secret"

    /// A value `sql` has a placeholder for.
    package enum Binding {
        case int(Int64)
        case blob([UInt8])
    }

    /// The SELECT for `filter`, of the item columns (or of `count(*)` when `count`); its n-th
    /// placeholder is `placeholder(n)` (from 1) and takes the n-th value `forEachBinding` visits.
    ///
    /// `materializeDrivingLookup` reads the first lookup digest's rows first, in a materialized
    /// CTE, then each of their items by id, whatever the planner's statistics say: PostgreSQL's
    /// generic plan for tables it has not analyzed yet would otherwise scan every item of the
    /// class (0.5 ms at 500 items, against 0.08 ms).
    package static func sql(
        _ filter: ItemFilter, count: Bool, materializeDrivingLookup: Bool = false, placeholder: (Int) -> String
    ) -> String {
        var next = 0
        func value() -> String {
            next += 1
            return placeholder(next)
        }
        func values(_ n: Int) -> String { n == 0 ? "NULL" : (0..<n).map { _ in value() }.joined(separator: ", ") }

        let columns = count ? "count(*)" : filter.readsAttributes ? columns : columnsWithoutAttributes
        var sql = "SELECT \(columns) FROM "
        var conditions: [String] = []
        let drivenByLookup = filter.primaryKeys == nil && !filter.lookups.isEmpty
        if let primaryKeys = filter.primaryKeys { conditions.append("i.pk IN (\(values(primaryKeys.count)))") }
        if drivenByLookup, materializeDrivingLookup {
            sql = "WITH l0 AS MATERIALIZED (SELECT item_id FROM lookups WHERE digest = \(value())) " + sql
            // Each item by its primary key, in a subquery the planner may not flatten (OFFSET 0):
            // a join would let it scan the items of a class instead.
            sql += "l0 CROSS JOIN LATERAL (SELECT * FROM items WHERE id = l0.item_id OFFSET 0) i"
        } else if drivenByLookup {
            sql += "lookups l0 JOIN items i ON i.id = l0.item_id"
            conditions.append("l0.digest = \(value())")
        } else {
            sql += "items i"
        }
        for n in (drivenByLookup ? 1 : 0)..<filter.lookups.count {
            conditions.append("EXISTS (SELECT 1 FROM lookups l\(n) WHERE l\(n).digest = \(value()) AND l\(n).item_id = i.id)")
        }
        if filter.ref != nil { conditions.append("i.ref = \(value())") }
        if filter.created != nil { conditions.append("i.cdat = \(value())") }
        if filter.modified != nil { conditions.append("i.mdat = \(value())") }
        if let classes = filter.classes { conditions.append("i.class IN (\(values(classes.count)))") }
        if let groups = filter.groups { conditions.append("i.grp IN (\(values(groups.count)))") }
        if filter.synchronizable != nil { conditions.append("i.sync = \(value())") }
        if filter.afterID != nil { conditions.append((drivenByLookup ? "l0.item_id > " : "i.id > ") + value()) }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if !count {
            // Insertion order. Through the lookup index, (digest, item_id) already yields item ids
            // in order: naming l0.item_id spares a sort by i.id.
            sql += drivenByLookup ? " ORDER BY l0.item_id" : " ORDER BY i.id"
            if filter.limit != nil { sql += " LIMIT \(value())" }
        }
        return sql
    }

    /// Visits `filter`'s values in the order of `sql`'s placeholders (one by one: an array of
    /// them would cost allocations on every search).
    package static func forEachBinding<E: Error>(_ filter: ItemFilter, _ visit: (Binding) throws(E) -> Void) throws(E) {
        // By index: a `for … in` loop holds its own reference to each array (a retain and a
        // release of each, on every search).
        if let keys = filter.primaryKeys { for n in keys.indices { try visit(.blob(keys[n])) } }
        for n in filter.lookups.indices { try visit(.blob(filter.lookups[n])) }
        if let ref = filter.ref { try visit(.blob(ref)) }
        if let created = filter.created { try visit(.int(created)) }
        if let modified = filter.modified { try visit(.int(modified)) }
        if let classes = filter.classes { for n in classes.indices { try visit(.int(Int64(classes[n]))) } }
        if let groups = filter.groups { for n in groups.indices { try visit(.blob(groups[n])) } }
        if let sync = filter.synchronizable { try visit(.int(sync ? 1 : 0)) }
        if let afterID = filter.afterID { try visit(.int(afterID)) }
        if let limit = filter.limit { try visit(.int(Int64(limit))) }
    }
}

/// What decides the SQL text of a filtered SELECT: which conditions it has and how many values
/// each binds. The key of a connection's cache of generated statements.
package struct FilterShape: Hashable {
    var lookups: Int
    /// `nil`: no such condition; else how many values it binds.
    var primaryKeys: Int?
    var classes: Int?
    var groups: Int?
    var ref: Bool
    /// Bit 0: a creation date; bit 1: a modification date.
    var dates: Int
    var synchronizable: Bool
    var afterID: Bool
    var limit: Bool
    var readsAttributes: Bool
    /// `count(*)` rather than the item columns.
    var count: Bool

    /// `borrowing`: an initializer owns its parameters by default, and the filter was copied
    /// (a retain and a release per field) on every search to make its statement's key.
    package init(_ filter: borrowing ItemFilter, count: Bool) {
        lookups = filter.lookups.count
        primaryKeys = filter.primaryKeys?.count
        classes = filter.classes?.count
        groups = filter.groups?.count
        ref = filter.ref != nil
        dates = (filter.created != nil ? 1 : 0) | (filter.modified != nil ? 2 : 0)
        synchronizable = filter.synchronizable != nil
        afterID = filter.afterID != nil
        limit = filter.limit != nil
        readsAttributes = filter.readsAttributes
        self.count = count
    }

    /// One word for the hasher rather than ten fields: this runs on every search. Lossy past
    /// 2¹² values per count, which only costs a collision; equality still compares every field.
    package func hash(into hasher: inout Hasher) {
        func field(_ count: Int?) -> UInt64 { count.map { UInt64(truncatingIfNeeded: $0 + 1) & 0x1FFF } ?? 0 }
        func bit(_ flag: Bool) -> UInt64 { flag ? 1 : 0 }
        var packed = UInt64(truncatingIfNeeded: lookups) & 0xFFF
        packed = packed << 13 | field(primaryKeys)
        packed = packed << 13 | field(classes)
        packed = packed << 13 | field(groups)
        packed = packed << 5 | bit(ref) << 4 | bit(synchronizable) << 3 | bit(limit) << 2 | bit(readsAttributes) << 1 | bit(count)
        packed = packed << 3 | bit(afterID) << 2 | UInt64(truncatingIfNeeded: dates) & 3
        hasher.combine(packed)
    }
}

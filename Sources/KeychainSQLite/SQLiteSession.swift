import KeychainStorage

/// Reads and writes on one connection inside the transaction its store opened.
final class SQLiteSession: StoreWriter {
    private let connection: SQLiteConnection
    /// Whether this transaction deleted anything (the store then checkpoints).
    private(set) var deleted = false

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    private static let itemColumns = "i.id, i.ref, i.class, i.grp, i.pdmn, i.sync, i.cdat, i.mdat, i.version, i.pk, i.attrs, i.secret"
    /// `itemColumns` with NULL for the primary key and the sealed attributes (read as empty).
    private static let itemColumnsWithoutAttributes =
        "i.id, i.ref, i.class, i.grp, i.pdmn, i.sync, i.cdat, i.mdat, i.version, NULL, NULL, i.secret"

    // MARK: reading

    func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord] {
        let columns = filter.readsAttributes ? Self.itemColumns : Self.itemColumnsWithoutAttributes
        let stmt = try connection.statement(shape: Self.shape(filter, count: false)) { Self.select(columns, filter) }
        try Self.bind(filter, to: stmt)
        var result: [ItemRecord] = []
        while try stmt.step() {
            result.append(Self.item(from: stmt))
        }
        stmt.reset()
        return result
    }

    func countItems(matching filter: ItemFilter) throws(StorageError) -> Int {
        let stmt = try connection.statement(shape: Self.shape(filter, count: true)) { Self.select("count(*)", filter) }
        try Self.bind(filter, to: stmt)
        defer { stmt.reset() }
        return try stmt.step() ? Int(stmt.int64(0)) : 0
    }

    func item(primaryKey: [UInt8]) throws(StorageError) -> ItemRecord? {
        let stmt = try connection.statement("SELECT \(Self.itemColumns) FROM items i WHERE i.pk = ?")
        try stmt.bind([.blob(primaryKey)])
        defer { stmt.reset() }
        return try stmt.step() ? Self.item(from: stmt) : nil
    }

    func meta(_ key: String) throws(StorageError) -> [UInt8]? {
        let stmt = try connection.statement("SELECT value FROM meta WHERE key = ?")
        try stmt.bind([.text(key)])
        defer { stmt.reset() }
        return try stmt.step() ? stmt.blob(0) : nil
    }

    func token(hash: [UInt8]) throws(StorageError) -> TokenRecord? {
        let stmt = try connection.statement("SELECT id, hash, sealed, expires, created FROM tokens WHERE hash = ?")
        try stmt.bind([.blob(hash)])
        defer { stmt.reset() }
        return try stmt.step() ? Self.token(from: stmt) : nil
    }

    func tokens() throws(StorageError) -> [TokenRecord] {
        let stmt = try connection.statement("SELECT id, hash, sealed, expires, created FROM tokens ORDER BY created, id")
        var result: [TokenRecord] = []
        while try stmt.step() { result.append(Self.token(from: stmt)) }
        stmt.reset()
        return result
    }

    // MARK: writing

    func insert(_ item: ItemRecord) throws(StorageError) -> Int64 {
        let stmt = try connection.statement(
            """
            INSERT INTO items (ref, class, grp, pdmn, sync, cdat, mdat, version, pk, attrs, secret)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
            """)
        try stmt.bind(Self.bindings(item))
        guard try stmt.step() else { throw .failed("insert returned no row id") }
        let rowID = stmt.int64(0)
        stmt.reset()
        try insertLookups(item.lookups, rowID: rowID)
        return rowID
    }

    func replace(_ item: ItemRecord) throws(StorageError) {
        try connection.statement(
            """
            UPDATE items SET ref = ?, class = ?, grp = ?, pdmn = ?, sync = ?, cdat = ?, mdat = ?, version = ?,
                pk = ?, attrs = ?, secret = ? WHERE id = ?
            """
        ).run(Self.bindings(item) + [.int(item.rowID)])
        try connection.statement("DELETE FROM lookups WHERE item_id = ?").run([.int(item.rowID)])
        try insertLookups(item.lookups, rowID: item.rowID)
    }

    func delete(rowIDs: [Int64]) throws(StorageError) {
        guard !rowIDs.isEmpty else { return }
        let deleteItem = try connection.statement("DELETE FROM items WHERE id = ?")
        let deleteLookups = try connection.statement("DELETE FROM lookups WHERE item_id = ?")
        for rowID in rowIDs {
            try deleteItem.run([.int(rowID)])
            try deleteLookups.run([.int(rowID)])
        }
        deleted = true
    }

    func setMeta(_ key: String, _ value: [UInt8]?) throws(StorageError) {
        if let value {
            try connection.statement("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run([.text(key), .blob(value)])
        } else {
            try connection.statement("DELETE FROM meta WHERE key = ?").run([.text(key)])
            deleted = true
        }
    }

    func insertMeta(_ key: String, _ value: [UInt8]) throws(StorageError) -> Bool {
        try connection.statement("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING")
            .run([.text(key), .blob(value)])
        return connection.changes > 0
    }

    func insert(_ token: TokenRecord) throws(StorageError) {
        try connection.statement("INSERT INTO tokens (id, hash, sealed, expires, created) VALUES (?, ?, ?, ?, ?)").run([
            .text(token.id), .blob(token.hash), .blob(token.sealed), token.expires.map { .int($0) } ?? .null,
            .int(token.created),
        ])
    }

    func deleteToken(id: String) throws(StorageError) -> Bool {
        try connection.statement("DELETE FROM tokens WHERE id = ?").run([.text(id)])
        let removed = connection.changes > 0
        deleted = deleted || removed
        return removed
    }

    // MARK: helpers

    private func insertLookups(_ lookups: [[UInt8]], rowID: Int64) throws(StorageError) {
        let stmt = try connection.statement("INSERT OR IGNORE INTO lookups (digest, item_id) VALUES (?, ?)")
        for digest in lookups {
            try stmt.run([.blob(digest), .int(rowID)])
        }
    }

    /// The shape of the SQL text `select` builds for `filter`: equal shapes share one prepared statement.
    private static func shape(_ filter: ItemFilter, count: Bool) -> FilterShape {
        FilterShape(
            lookups: filter.lookups.count, primaryKeys: filter.primaryKeys?.count, classes: filter.classes?.count,
            groups: filter.groups?.count, ref: filter.ref != nil,
            dates: (filter.created != nil ? 1 : 0) | (filter.modified != nil ? 2 : 0),
            synchronizable: filter.synchronizable != nil,
            limit: filter.limit != nil, readsAttributes: filter.readsAttributes, count: count)
    }

    /// The SELECT for `filter`: driven by the primary-key index when the filter has primary keys,
    /// else by the first lookup digest's index when there is one.
    /// Its placeholders are bound, in order, by `bind(_:to:)`.
    private static func select(_ columns: String, _ filter: ItemFilter) -> String {
        var sql = "SELECT \(columns) FROM "
        var conditions: [String] = []
        let drivenByLookup = filter.primaryKeys == nil && !filter.lookups.isEmpty
        if drivenByLookup {
            sql += "lookups l0 JOIN items i ON i.id = l0.item_id"
            conditions.append("l0.digest = ?")
        } else {
            sql += "items i"
        }
        if let primaryKeys = filter.primaryKeys { conditions.append("i.pk IN (\(placeholders(primaryKeys.count)))") }
        for n in (drivenByLookup ? 1 : 0)..<filter.lookups.count {
            conditions.append("EXISTS (SELECT 1 FROM lookups l\(n) WHERE l\(n).digest = ? AND l\(n).item_id = i.id)")
        }
        if filter.ref != nil { conditions.append("i.ref = ?") }
        if filter.created != nil { conditions.append("i.cdat = ?") }
        if filter.modified != nil { conditions.append("i.mdat = ?") }
        if let classes = filter.classes { conditions.append("i.class IN (\(placeholders(classes.count)))") }
        if let groups = filter.groups { conditions.append("i.grp IN (\(placeholders(groups.count)))") }
        if filter.synchronizable != nil { conditions.append("i.sync = ?") }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if columns != "count(*)" {
            // Insertion order. Through the lookup index, (digest, item_id) already yields item ids
            // in order: naming l0.item_id spares SQLite a temporary B-tree to sort by i.id.
            sql += drivenByLookup ? " ORDER BY l0.item_id" : " ORDER BY i.id"
            if filter.limit != nil { sql += " LIMIT ?" }
        }
        return sql
    }

    /// Binds `filter`'s values to `select`'s placeholders, in their order, one by one (an array
    /// of `SQLiteValue`s would cost allocations on every search).
    private static func bind(_ filter: ItemFilter, to stmt: SQLiteStatement) throws(StorageError) {
        var index: Int32 = 0
        func next() -> Int32 {
            index += 1
            return index
        }
        for digest in filter.primaryKeys ?? [] { try stmt.bind(blob: digest, at: next()) }
        for digest in filter.lookups { try stmt.bind(blob: digest, at: next()) }
        if let ref = filter.ref { try stmt.bind(blob: ref, at: next()) }
        if let created = filter.created { try stmt.bind(int: created, at: next()) }
        if let modified = filter.modified { try stmt.bind(int: modified, at: next()) }
        for code in filter.classes ?? [] { try stmt.bind(int: Int64(code), at: next()) }
        for group in filter.groups ?? [] { try stmt.bind(blob: group, at: next()) }
        if let sync = filter.synchronizable { try stmt.bind(int: sync ? 1 : 0, at: next()) }
        if let limit = filter.limit { try stmt.bind(int: Int64(limit), at: next()) }
    }

    private static func placeholders(_ count: Int) -> String {
        count == 0 ? "NULL" : Array(repeating: "?", count: count).joined(separator: ", ")
    }

    private static func bindings(_ item: ItemRecord) -> [SQLiteValue] {
        [
            .blob(item.ref), .int(Int64(item.itemClass)), .blob(item.group), .int(Int64(item.protection)),
            .int(item.synchronizable ? 1 : 0), .int(item.created), .int(item.modified), .int(item.version),
            .blob(item.primaryKey), .blob(item.attributes), item.secret.map { .blob($0) } ?? .null,
        ]
    }

    private static func item(from stmt: SQLiteStatement) -> ItemRecord {
        ItemRecord(
            rowID: stmt.int64(0), ref: stmt.blob(1), itemClass: Int(stmt.int64(2)), group: stmt.blob(3),
            protection: Int(stmt.int64(4)), synchronizable: stmt.int64(5) != 0, created: stmt.int64(6),
            modified: stmt.int64(7), version: stmt.int64(8), primaryKey: stmt.blob(9), attributes: stmt.blob(10),
            secret: stmt.isNull(11) ? nil : stmt.blob(11), lookups: [])
    }

    private static func token(from stmt: SQLiteStatement) -> TokenRecord {
        TokenRecord(
            id: stmt.text(0) ?? "", hash: stmt.blob(1), sealed: stmt.blob(2),
            expires: stmt.isNull(3) ? nil : stmt.int64(3), created: stmt.int64(4))
    }
}

/// What decides the SQL text of a filtered SELECT: which conditions it has and how many values
/// each binds. The key of a connection's cache of generated statements.
struct FilterShape: Hashable {
    var lookups: Int
    /// `nil`: no such condition; else how many values it binds.
    var primaryKeys: Int?
    var classes: Int?
    var groups: Int?
    var ref: Bool
    /// Bit 0: a creation date; bit 1: a modification date.
    var dates: Int
    var synchronizable: Bool
    var limit: Bool
    var readsAttributes: Bool
    /// `count(*)` rather than the item columns.
    var count: Bool

    /// One word for the hasher rather than nine fields: this runs on every search. Lossy past
    /// 2¹² values per count, which only costs a collision; equality still compares every field.
    func hash(into hasher: inout Hasher) {
        func field(_ count: Int?) -> UInt64 { count.map { UInt64(truncatingIfNeeded: $0 + 1) & 0x1FFF } ?? 0 }
        func bit(_ flag: Bool) -> UInt64 { flag ? 1 : 0 }
        var packed = UInt64(truncatingIfNeeded: lookups) & 0xFFF
        packed = packed << 13 | field(primaryKeys)
        packed = packed << 13 | field(classes)
        packed = packed << 13 | field(groups)
        packed = packed << 5 | bit(ref) << 4 | bit(synchronizable) << 3 | bit(limit) << 2 | bit(readsAttributes) << 1 | bit(count)
        packed = packed << 2 | UInt64(truncatingIfNeeded: dates) & 3
        hasher.combine(packed)
    }
}

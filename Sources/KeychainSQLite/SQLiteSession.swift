import KeychainStorage

/// Reads and writes on one connection inside the transaction its store opened.
final class SQLiteSession: StoreWriter {
    fileprivate let connection: SQLiteConnection
    /// Whether this transaction deleted anything (the store then checkpoints).
    private(set) var deleted = false

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    // MARK: reading

    func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord] {
        if filter.groupKeys != nil { return try items(matching: resolved(filter)) }
        let stmt = try connection.statement(shape: FilterShape(filter, count: false)) { Self.select(filter, count: false) }
        try Self.bind(filter, to: stmt)
        var result: [ItemRecord] = []
        // One primary key names one item at most (`pk` is UNIQUE): no step past its row.
        let atMostOne = filter.primaryKeys?.count == 1
        while try stmt.step() {
            result.append(Self.item(from: stmt))
            if atMostOne { break }
        }
        stmt.reset()
        return result
    }

    func countItems(matching filter: ItemFilter) throws(StorageError) -> Int {
        if filter.groupKeys != nil { return try countItems(matching: resolved(filter)) }
        let stmt = try connection.statement(shape: FilterShape(filter, count: true)) { Self.select(filter, count: true) }
        try Self.bind(filter, to: stmt)
        defer { stmt.reset() }
        return try stmt.step() ? Int(stmt.int64(0)) : 0
    }

    /// `filter` read by primary keys, one for each group holding items of its group keys' class
    /// in this transaction's snapshot, when it can be; else by its lookups (see `GroupKeys`).
    private func resolved(_ filter: ItemFilter) throws(StorageError) -> ItemFilter {
        guard let keys = filter.groupKeys else { return filter }
        let groups: [[UInt8]]
        // A reader's read transaction outlives its searches until something is committed: the
        // groups it listed hold for as long (a writer's transaction lists them each time).
        if connection.snapshotGeneration != nil, let listed = connection.listedGroups, listed.itemClass == keys.itemClass {
            groups = listed.groups
        } else {
            groups = try listGroups(itemClass: keys.itemClass, atMost: keys.maxGroups + 1)
            if connection.snapshotGeneration != nil { connection.listedGroups = (keys.itemClass, groups) }
        }
        return filter.byPrimaryKeys(groups: groups) ?? filter.byLookups()
    }

    /// The digests of the groups holding items of `itemClass`, in order, at most `limit`: one
    /// seek of items_class_grp each, not a recursive CTE, whose queue is a temporary table
    /// (docs/performance.md#primary-key-search-path).
    private func listGroups(itemClass: Int, atMost limit: Int) throws(StorageError) -> [[UInt8]] {
        let stmt = try connection.statement("SELECT grp FROM items WHERE class = ? AND grp > ? ORDER BY grp LIMIT 1")
        var groups: [[UInt8]] = []
        var after: [UInt8] = []  // below every digest
        while groups.count < limit {
            try stmt.bind(int: Int64(itemClass), at: 1)
            try stmt.bind(blob: after, at: 2)
            guard try stmt.step() else { break }
            after = stmt.blob(0)
            groups.append(after)
            stmt.reset()
        }
        stmt.reset()
        return groups
    }

    func item(primaryKey: [UInt8]) throws(StorageError) -> ItemRecord? {
        let stmt = try connection.statement("SELECT \(ItemSelect.columns) FROM items i WHERE i.pk = ?")
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

    /// Inserts `item` in a savepoint of its own, inside the write's: its failure (a duplicate)
    /// is returned and undone alone. Throws only when the savepoint itself fails.
    func addInSavepoint(_ item: ItemRecord) throws(StorageError) -> Result<Void, StorageError> {
        try connection.statement("SAVEPOINT one_add").run([])
        do {
            _ = try insert(item)
            try connection.statement("RELEASE one_add").run([])
            return .success(())
        } catch {
            try connection.statement("ROLLBACK TO one_add").run([])
            try connection.statement("RELEASE one_add").run([])
            return .failure(error)
        }
    }

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

    private static func select(_ filter: ItemFilter, count: Bool) -> String {
        ItemSelect.sql(filter, count: count) { _ in "?" }
    }

    /// Binds `filter`'s values to the placeholders of its `ItemSelect.sql`.
    private static func bind(_ filter: ItemFilter, to stmt: SQLiteStatement) throws(StorageError) {
        var index: Int32 = 0
        try ItemSelect.forEachBinding(filter) { (value) throws(StorageError) in
            index += 1
            switch value {
            case .int(let v): try stmt.bind(int: v, at: index)
            case .blob(let b): try stmt.bind(blob: b, at: index)
            }
        }
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

extension SQLiteStore {
    /// SQLite's plan for `filter`'s SELECT (`EXPLAIN QUERY PLAN`, one line per step): what the
    /// tests read to keep a search of one class read a page at a time off a sort of the class.
    package func queryPlan(for filter: ItemFilter) throws -> [String] {
        try read { reader in
            guard let session = reader as? SQLiteSession else { return [] }
            return try session.queryPlan(for: filter)
        }
    }
}

extension SQLiteSession {
    fileprivate func queryPlan(for filter: ItemFilter) throws(StorageError) -> [String] {
        let stmt = try connection.statement("EXPLAIN QUERY PLAN " + Self.select(filter, count: false))
        try Self.bind(filter, to: stmt)
        var lines: [String] = []
        while try stmt.step() { lines.append(stmt.text(3) ?? "") }
        stmt.reset()
        return lines
    }
}

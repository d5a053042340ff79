import KeychainStorage

/// Reads and writes on one connection inside the transaction its store opened.
final class PostgresSession: StoreWriter {
    private let connection: PGConnection
    /// The events' table, by its schema-qualified name (`PostgresStore.eventsTable`).
    private let events: String

    init(connection: PGConnection, events: String) {
        self.connection = connection
        self.events = events
    }

    // MARK: events

    /// Whether this transaction appended an event: its commit wakes the readers (`EventWake`).
    private(set) var appended = false

    func append(_ event: StoredEvent) throws(StorageError) -> UInt64? {
        let result = try connection.run(
            "INSERT INTO \(events) (keychain, sealed) VALUES ($1, $2) RETURNING seq",
            [.text(event.keychain), .blob(event.sealed)])
        guard result.rows == 1 else { throw .failed("postgres: an event's insert returned no sequence") }
        appended = true
        return UInt64(result.int64(0, 0))
    }

    // MARK: reading

    func items(matching filter: ItemFilter) throws(StorageError) -> [ItemRecord] {
        Self.items(try select(filter, count: false))
    }

    func countItems(matching filter: ItemFilter) throws(StorageError) -> Int {
        let result = try select(filter, count: true)
        return result.rows > 0 ? Int(result.int64(0, 0)) : 0
    }

    func item(primaryKey: [UInt8]) throws(StorageError) -> ItemRecord? {
        let result = try connection.run("SELECT \(ItemSelect.columns) FROM items i WHERE i.pk = $1", [.blob(primaryKey)])
        return result.rows > 0 ? Self.item(result, 0) : nil
    }

    func meta(_ key: String) throws(StorageError) -> [UInt8]? {
        let result = try connection.run("SELECT value FROM meta WHERE key = $1", [.text(key)])
        return result.rows > 0 ? result.blob(0, 0) : nil
    }

    func token(hash: [UInt8]) throws(StorageError) -> TokenRecord? {
        let result = try connection.run("SELECT id, hash, sealed, expires, created FROM tokens WHERE hash = $1", [.blob(hash)])
        return result.rows > 0 ? Self.token(result, 0) : nil
    }

    func tokens() throws(StorageError) -> [TokenRecord] {
        let result = try connection.run("SELECT id, hash, sealed, expires, created FROM tokens ORDER BY created, id")
        return (0..<result.rows).map { Self.token(result, $0) }
    }

    // MARK: writing

    /// The item and its lookup digests in one statement: one round trip.
    /// The item's event (`ItemRecord.event`) is appended with it.
    func insert(_ item: ItemRecord) throws(StorageError) -> Int64 {
        let result = try connection.run(Self.insertSQL(onConflict: ""), Self.insertBindings(item))
        guard result.rows == 1 else { throw .failed("postgres: insert returned no row id") }
        if let event = item.event { _ = try append(event) }
        return result.int64(0, 0)
    }

    /// `insert`'s statement, which answers no row (and inserts nothing) for an item whose primary
    /// key exists, instead of failing the transaction.
    static let insertSkippingDuplicateSQL = insertSQL(onConflict: "ON CONFLICT (pk) DO NOTHING")

    /// The item (and its lookup digests, for a row inserted) in one statement; its parameters are
    /// `insertBindings`.
    private static func insertSQL(onConflict: String, events: String? = nil) -> String {
        // The item's event ($13, $14: its keychain and sealed bytes) only with a row inserted.
        let event = events.map { ", e AS (INSERT INTO \($0) (keychain, sealed) SELECT $13, $14 FROM i)" } ?? ""
        return """
            WITH i AS (
                INSERT INTO items (ref, class, grp, pdmn, sync, cdat, mdat, version, pk, attrs, secret, digests)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \(onConflict) RETURNING id
            ), l AS (
                INSERT INTO lookups (digest, item_id) SELECT d, i.id FROM i, unnest($12::bytea[]) AS d
            )\(event)
            SELECT id FROM i
            """
    }

    /// `insertSkippingDuplicateSQL` that appends the item's event to `events` when it inserts
    /// the item; its parameters are `insertBindings` and the event's.
    static func insertSkippingDuplicateSQL(events: String) -> String {
        insertSQL(onConflict: "ON CONFLICT (pk) DO NOTHING", events: events)
    }

    /// The item's columns, then its lookup digests, each once: the new item has none yet, so
    /// they go in without `ON CONFLICT`, whose check is an index probe per digest.
    static func insertBindings(_ item: ItemRecord) -> [PGValue] {
        bindings(item) + [.byteaArray(distinct(item.lookups))]
    }

    /// The digests, each once (a folded value can equal the value itself). An item has a handful:
    /// comparing each with those before it costs less than hashing them.
    static func distinct(_ digests: [[UInt8]]) -> [[UInt8]] {
        var kept: [[UInt8]] = []
        kept.reserveCapacity(digests.count)
        for digest in digests where !kept.contains(digest) { kept.append(digest) }
        return kept
    }

    /// The item and its lookup digests in one statement. Its parts see one snapshot, so the old
    /// digests they read are the item's before the update: those it drops are deleted, and those
    /// it adds are inserted.
    func replace(_ item: ItemRecord) throws(StorageError) {
        try connection.run(
            """
            WITH old AS (
                SELECT unnest(digests) AS d FROM items WHERE id = $12
            ), u AS (
                UPDATE items SET ref = $1, class = $2, grp = $3, pdmn = $4, sync = $5, cdat = $6, mdat = $7,
                    version = $8, pk = $9, attrs = $10, secret = $11, digests = $13 WHERE id = $12
            ), gone AS (
                DELETE FROM lookups WHERE item_id = $12 AND digest IN (SELECT d FROM old) AND digest <> ALL($13::bytea[])
            )
            INSERT INTO lookups (digest, item_id)
                SELECT d, $12 FROM unnest($13::bytea[]) AS d WHERE d NOT IN (SELECT d FROM old)
            """, Self.bindings(item) + [.int(item.rowID), .byteaArray(Self.distinct(item.lookups))])
    }

    /// The items and their lookup digests, found by their primary key (digest, item_id).
    func delete(rowIDs: [Int64]) throws(StorageError) {
        guard !rowIDs.isEmpty else { return }
        try connection.run(
            """
            WITH l AS (
                DELETE FROM lookups USING (SELECT id, unnest(digests) AS d FROM items WHERE id = ANY($1::int8[])) x
                WHERE lookups.digest = x.d AND lookups.item_id = x.id
            )
            DELETE FROM items WHERE id = ANY($1::int8[])
            """, [.int8Array(rowIDs)])
    }

    func setMeta(_ key: String, _ value: [UInt8]?) throws(StorageError) {
        if let value {
            try connection.run(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [.text(key), .blob(value)])
        } else {
            try connection.run("DELETE FROM meta WHERE key = $1", [.text(key)])
        }
    }

    func insertMeta(_ key: String, _ value: [UInt8]) throws(StorageError) -> Bool {
        try connection.run(
            "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", [.text(key), .blob(value)]
        )
        .changes > 0
    }

    func insert(_ token: TokenRecord) throws(StorageError) {
        try connection.run(
            "INSERT INTO tokens (id, hash, sealed, expires, created) VALUES ($1, $2, $3, $4, $5)",
            [
                .text(token.id), .blob(token.hash), .blob(token.sealed), token.expires.map { .int($0) } ?? .null,
                .int(token.created),
            ])
    }

    func deleteToken(id: String) throws(StorageError) -> Bool {
        try connection.run("DELETE FROM tokens WHERE id = $1", [.text(id)]).changes > 0
    }

    // MARK: helpers

    private func select(_ filter: ItemFilter, count: Bool) throws(StorageError) -> PGResult {
        let (shape, sql, parameters) = Self.select(filter, count: count)
        return try connection.run(shape: shape, sql: sql, parameters)
    }

    /// The SELECT for `filter`: its shape, its SQL (built only when the shape is not prepared
    /// yet) and its parameters.
    static func select(_ filter: ItemFilter, count: Bool) -> (FilterShape, () -> String, [PGValue]) {
        var parameters: [PGValue] = []
        ItemSelect.forEachBinding(filter) { value in
            switch value {
            case .int(let v): parameters.append(.int(v))
            case .blob(let b): parameters.append(.blob(b))
            }
        }
        return (
            FilterShape(filter, count: count),
            { ItemSelect.sql(filter, count: count, materializeDrivingLookup: true) { "$\($0)" } }, parameters
        )
    }

    /// The items of a result of `select`.
    static func items(_ result: PGResult) -> [ItemRecord] {
        (0..<result.rows).map { item(result, $0) }
    }

    private static func bindings(_ item: ItemRecord) -> [PGValue] {
        [
            .blob(item.ref), .int(Int64(item.itemClass)), .blob(item.group), .int(Int64(item.protection)),
            .int(item.synchronizable ? 1 : 0), .int(item.created), .int(item.modified), .int(item.version),
            .blob(item.primaryKey), .blob(item.attributes), item.secret.map { .blob($0) } ?? .null,
        ]
    }

    /// The item in `row`, its columns from `first` on (in `ItemSelect.columns` order).
    static func item(_ result: PGResult, _ row: Int32, from first: Int32 = 0) -> ItemRecord {
        let c = first
        return ItemRecord(
            rowID: result.int64(row, c), ref: result.blob(row, c + 1), itemClass: Int(result.int64(row, c + 2)),
            group: result.blob(row, c + 3), protection: Int(result.int64(row, c + 4)),
            synchronizable: result.int64(row, c + 5) != 0,
            created: result.int64(row, c + 6), modified: result.int64(row, c + 7), version: result.int64(row, c + 8),
            primaryKey: result.blob(row, c + 9), attributes: result.blob(row, c + 10),
            secret: result.isNull(row, c + 11) ? nil : result.blob(row, c + 11), lookups: [])
    }

    private static func token(_ result: PGResult, _ row: Int32) -> TokenRecord {
        TokenRecord(
            id: result.blob(row, 0).withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }, hash: result.blob(row, 1),
            sealed: result.blob(row, 2), expires: result.isNull(row, 3) ? nil : result.int64(row, 3),
            created: result.int64(row, 4))
    }
}

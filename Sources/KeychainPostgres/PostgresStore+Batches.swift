import KeychainStorage

/// The searches and adds of many requests, each kind sent in batches by a thread of its own
/// (`BatchingThreads`): one round trip for a batch, in libpq's pipeline mode.
extension PostgresStore {
    /// A queued search and where its answer goes.
    struct Search: Sendable {
        let filter: ItemFilter
        let completion: @Sendable (Result<[ItemRecord], StorageError>) -> Void
    }

    /// A queued add and where its outcome goes.
    struct Add: Sendable {
        let item: ItemRecord
        let completion: @Sendable (Result<Void, StorageError>) -> Void
    }

    /// The batch's SELECTs, then one sync. Each SELECT takes its own snapshot (READ COMMITTED)
    /// after its searches were queued, so it sees every write acknowledged before they were asked.
    /// Searches by primary key alone (`Fold`) share one SELECT when there are several of them.
    /// Returns the searches the server skipped after a failed statement.
    static func answer(_ batch: [Search], on connection: inout PGConnection?, connect: () throws(StorageError) -> PGConnection)
        -> [Search]
    {
        // Each statement and the searches it answers: one, or a fold's (their indices in `batch`).
        var statements: [PGConnection.PipelinedStatement] = []
        var answers: [Answer] = []
        // The searches to fold, without and with their attributes read (two statements' columns).
        var folds: [[Int]] = [[], []]
        for (n, search) in batch.enumerated() {
            if Fold.takes(search.filter) {
                folds[search.filter.readsAttributes ? 1 : 0].append(n)
            } else {
                let (shape, sql, parameters) = PostgresSession.select(search.filter, count: false)
                statements.append(.shape(shape, sql: sql, parameters))
                answers.append(.one(n))
            }
        }
        for (readsAttributes, members) in zip([false, true], folds) where !members.isEmpty {
            if members.count == 1 {
                let (shape, sql, parameters) = PostgresSession.select(batch[members[0]].filter, count: false)
                statements.append(.shape(shape, sql: sql, parameters))
                answers.append(.one(members[0]))
            } else {
                statements.append(
                    .prepared(Fold.sql(readsAttributes: readsAttributes), Fold.parameters(members.map { batch[$0].filter })))
                answers.append(.fold(members))
            }
        }
        let results: [Result<PGResult, StorageError>?]
        do throws(StorageError) {
            let open: PGConnection
            if let connection, connection.isHealthy { open = connection } else { open = try connect() }
            connection = open
            results = try open.pipeline(statements)
        } catch {
            // The connection failed (or could not be made): the next batch connects again.
            connection = nil
            for search in batch { search.completion(.failure(error)) }
            return []
        }
        if connection?.isHealthy == false { connection = nil }
        var skipped: [Search] = []
        for (answer, result) in zip(answers, results) {
            switch (answer, result) {
            case (.one(let n), nil): skipped.append(batch[n])
            case (.one(let n), let result?): batch[n].completion(result.map(PostgresSession.items))
            case (.fold(let members), nil): skipped += members.map { batch[$0] }
            case (.fold(let members), .failure(let error)?): for n in members { batch[n].completion(.failure(error)) }
            case (.fold(let members), .success(let rows)?):
                for (n, items) in zip(members, Fold.items(rows, filters: members.map { batch[$0].filter })) {
                    batch[n].completion(.success(items))
                }
            }
        }
        return skipped
    }

    /// Which searches of a batch a statement answers.
    private enum Answer {
        case one(Int)
        case fold([Int])
    }

    /// Searches that name their items by primary key and otherwise filter only by class, group,
    /// synchronizable and a limit (a token's read of its own credentials): one SELECT reads every
    /// such search's items through the primary-key index, each row tagged with its search, and the
    /// other conditions are applied here. PostgreSQL then starts one executor for the batch, not
    /// one per search.
    enum Fold {
        static func takes(_ filter: ItemFilter) -> Bool {
            filter.primaryKeys != nil && filter.lookups.isEmpty && filter.ref == nil && filter.created == nil
                && filter.modified == nil
                && filter.afterID == nil
        }

        /// `$1`: every search's primary keys; `$2`: the search (from 0) each key belongs to. Each
        /// key is read through the index in a subquery the planner may not flatten (OFFSET 0), as
        /// for a search driven by a lookup digest; rows come in search order, then insertion order.
        static func sql(readsAttributes: Bool) -> String { readsAttributes ? withAttributes : withoutAttributes }
        private static let withAttributes = sql(columns: ItemSelect.columns)
        private static let withoutAttributes = sql(columns: ItemSelect.columnsWithoutAttributes)
        private static func sql(columns: String) -> String {
            """
            SELECT k.n, \(columns)
            FROM unnest($1::bytea[], $2::int8[]) AS k (pk, n)
            CROSS JOIN LATERAL (SELECT * FROM items WHERE pk = k.pk OFFSET 0) i
            ORDER BY k.n, i.id
            """
        }

        static func parameters(_ filters: [ItemFilter]) -> [PGValue] {
            var keys: [[UInt8]] = []
            var owners: [Int64] = []
            for (n, filter) in filters.enumerated() {
                for key in filter.primaryKeys ?? [] {
                    keys.append(key)
                    owners.append(Int64(n))
                }
            }
            return [.byteaArray(keys), .int8Array(owners)]
        }

        /// Each search's items: the rows tagged with it that meet its other conditions, at most its limit.
        static func items(_ result: PGResult, filters: [ItemFilter]) -> [[ItemRecord]] {
            var found = [[ItemRecord]](repeating: [], count: filters.count)
            for row in 0..<result.rows {
                let n = Int(result.int64(row, 0))
                let filter = filters[n]
                if let limit = filter.limit, found[n].count >= limit { continue }
                let item = PostgresSession.item(result, row, from: 1)
                if let classes = filter.classes, !classes.contains(item.itemClass) { continue }
                if let groups = filter.groups, !groups.contains(item.group) { continue }
                if let synchronizable = filter.synchronizable, item.synchronizable != synchronizable { continue }
                found[n].append(item)
            }
            return found
        }
    }

    /// The batch in one transaction and one round trip: BEGIN, each add (`ON CONFLICT (pk) DO
    /// NOTHING`: no row back is a duplicate), COMMIT. Adds take no write lock: an add reads
    /// nothing it could overwrite, and the unique index orders it against every other writer
    /// (a concurrent add of the same key waits for the first to end, then inserts nothing).
    /// When the database refuses an add otherwise, the batch is rolled back and each add is
    /// sent again in a transaction of its own, for its own outcome.
    /// An item's event (`ItemRecord.event`) is appended to `events` with it.
    static func commit(
        _ batch: [Add], events: String, on connection: inout PGConnection?, connect: () throws(StorageError) -> PGConnection
    )
        -> [Add]
    {
        do throws(StorageError) {
            let open: PGConnection
            if let connection, connection.isHealthy { open = connection } else { open = try connect() }
            connection = open
            let outcomes: [Result<Void, StorageError>]
            switch try insert(batch.map(\.item), events: events, on: open) {
            case .success(let all):
                outcomes = all
            case .failure:
                outcomes = try batch.map { add throws(StorageError) in
                    switch try insert([add.item], events: events, on: open) {
                    case .success(let one): one[0]
                    case .failure(let error): .failure(error)
                    }
                }
            }
            for (add, outcome) in zip(batch, outcomes) { add.completion(outcome) }
        } catch {
            connection = nil
            for add in batch { add.completion(.failure(error)) }
        }
        if connection?.isHealthy == false { connection = nil }
        return []
    }

    /// The items in one transaction: each one's outcome (added, or `uniqueViolation` for an
    /// existing primary key), or the error of a statement that failed, the transaction rolled back.
    ///
    /// One INSERT per item: a single INSERT of every item from arrays (`unnest`) was measured too,
    /// and PostgreSQL spent as much per add (the rows and index entries cost, not the statements).
    private static func insert(_ items: [ItemRecord], events: String, on connection: PGConnection) throws(StorageError)
        -> Result<[Result<Void, StorageError>], StorageError>
    {
        // An item's event goes in with it, in the same statement: none for a duplicate.
        let withEvent = PostgresSession.insertSkippingDuplicateSQL(events: events)
        let statements: [PGConnection.PipelinedStatement] =
            [.unprepared("BEGIN")]
            + items.map { item in
                guard let event = item.event else {
                    return .prepared(PostgresSession.insertSkippingDuplicateSQL, PostgresSession.insertBindings(item))
                }
                return .prepared(withEvent, PostgresSession.insertBindings(item) + [.text(event.keychain), .blob(event.sealed)])
            } + [.unprepared("COMMIT")]
        let results = try connection.pipeline(statements)
        if case .failure(let error)? = results.first { throw error }
        var outcomes: [Result<Void, StorageError>] = []
        for (n, result) in results.dropFirst().dropLast().enumerated() {
            switch result {
            case .success(let rows)? where n < items.count:
                outcomes.append(rows.rows == 1 ? .success(()) : .failure(.uniqueViolation))
            case .success?: break
            case .failure(let error)?:
                // A failed statement leaves the transaction BEGIN opened aborted, not ended.
                guard connection.isHealthy else { throw error }
                try connection.execute("ROLLBACK")
                return .failure(error)
            case nil: break
            }
        }
        switch results.last {
        case .success?:
            if items.contains(where: { $0.event != nil }) { EventWake.signal(table: events) }
            return .success(outcomes)
        case .failure(let error)?: throw error  // a COMMIT that failed: nothing is known to be written
        default: throw .unavailable("postgres: the COMMIT of a batch of adds was skipped")
        }
    }
}

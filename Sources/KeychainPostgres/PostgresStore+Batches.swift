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

    /// Every search's SELECT, then one sync. Each SELECT takes its own snapshot (READ COMMITTED)
    /// after the search was queued, so it sees every write acknowledged before it was asked.
    /// Returns the searches the server skipped after a failed one.
    static func answer(_ batch: [Search], on connection: inout PGConnection?, connect: () throws(StorageError) -> PGConnection)
        -> [Search]
    {
        let results: [Result<PGResult, StorageError>?]
        do throws(StorageError) {
            let open: PGConnection
            if let connection { open = connection } else { open = try connect() }
            connection = open
            results = try open.pipeline(
                batch.map { search in
                    let (shape, sql, parameters) = PostgresSession.select(search.filter, count: false)
                    return .shape(shape, sql: sql, parameters)
                })
        } catch {
            // The connection failed (or could not be made): the next batch connects again.
            connection = nil
            for search in batch { search.completion(.failure(error)) }
            return []
        }
        if connection?.isHealthy == false { connection = nil }
        var skipped: [Search] = []
        for (search, result) in zip(batch, results) {
            guard let result else {
                skipped.append(search)
                continue
            }
            search.completion(result.map(PostgresSession.items))
        }
        return skipped
    }

    /// The batch in one transaction and one round trip: BEGIN, each add (`ON CONFLICT (pk) DO
    /// NOTHING`: no row back is a duplicate), COMMIT. Adds take no write lock: an add reads
    /// nothing it could overwrite, and the unique index orders it against every other writer
    /// (a concurrent add of the same key waits for the first to end, then inserts nothing).
    /// When the database refuses an add otherwise, the batch is rolled back and each add is
    /// sent again in a transaction of its own, for its own outcome.
    static func commit(_ batch: [Add], on connection: inout PGConnection?, connect: () throws(StorageError) -> PGConnection) -> [Add] {
        do throws(StorageError) {
            let open: PGConnection
            if let connection { open = connection } else { open = try connect() }
            connection = open
            let outcomes: [Result<Void, StorageError>]
            switch try insert(batch.map(\.item), on: open) {
            case .success(let all):
                outcomes = all
            case .failure:
                outcomes = try batch.map { add throws(StorageError) in
                    switch try insert([add.item], on: open) {
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
    private static func insert(_ items: [ItemRecord], on connection: PGConnection) throws(StorageError)
        -> Result<[Result<Void, StorageError>], StorageError>
    {
        let statements: [PGConnection.PipelinedStatement] =
            [.unprepared("BEGIN")]
            + items.map { .prepared(PostgresSession.insertSkippingDuplicateSQL, PostgresSession.insertBindings($0)) }
            + [.unprepared("COMMIT")]
        let results = try connection.pipeline(statements)
        if case .failure(let error)? = results.first { throw error }
        var outcomes: [Result<Void, StorageError>] = []
        for result in results.dropFirst().dropLast() {
            switch result {
            case .success(let rows)?: outcomes.append(rows.rows == 1 ? .success(()) : .failure(.uniqueViolation))
            case .failure(let error)?:
                // A failed statement leaves the transaction BEGIN opened aborted, not ended.
                guard connection.isHealthy else { throw error }
                try connection.execute("ROLLBACK")
                return .failure(error)
            case nil: break
            }
        }
        switch results.last {
        case .success?: return .success(outcomes)
        case .failure(let error)?: throw error  // a COMMIT that failed: nothing is known to be written
        default: throw .unavailable("postgres: the COMMIT of a batch of adds was skipped")
        }
    }
}

internal import CPostgres
import KeychainStorage

// MARK: pipeline mode

extension PGConnection {
    /// One statement of a pipeline: prepared on first use (a filter's SELECT found by its shape,
    /// as `run(shape:sql:_:)`, or SQL by its text, as `run(_:_:)`), or SQL sent unprepared
    /// (transaction control), each with its parameters in binary.
    enum PipelinedStatement {
        case shape(FilterShape, sql: () -> String, [PGValue])
        case prepared(String, [PGValue])
        case unprepared(String, [PGValue] = [])
    }

    /// Sends `statements` in libpq's pipeline mode, then one sync and one flush, and reads every
    /// result: one round trip for all of them.
    ///
    /// "If a command in a pipeline fails, every subsequent command up to and including the result
    /// to the Sync message … gets set to PGRES_PIPELINE_ABORTED" (fe-exec.c): a failed statement
    /// comes back as its error, those the server skipped after it as `nil`, to be sent again.
    /// Statements between two syncs share an implicit transaction, as between BEGIN and COMMIT.
    /// - Throws: `unavailable` when the connection failed (it is then not to be used again).
    func pipeline(_ statements: [PipelinedStatement]) throws(StorageError) -> [Result<PGResult, StorageError>?] {
        guard PQenterPipelineMode(handle) == 1 else {
            throw .unavailable("postgres: pipeline: \(Self.firstLine(PQerrorMessage(handle)))")
        }
        defer { _ = PQexitPipelineMode(handle) }
        // What comes back, in order: a prepare's result (for the statement it names) or a statement's.
        enum Sent {
            case prepare(PreparedKey, String)
            case statement
        }
        var sent: [Sent] = []
        sent.reserveCapacity(statements.count)
        var preparing: [PreparedKey: String] = [:]
        /// The name of the statement `key`, sent for preparing first when it has none yet.
        func name(_ key: PreparedKey, _ sql: () -> String) throws(StorageError) -> String {
            if let known = preparedName(key) ?? preparing[key] { return known }
            let fresh = "s\(preparedCount + preparing.count)"
            guard PQsendPrepare(handle, fresh, sql(), 0, nil) == 1 else { throw sendFailure() }
            preparing[key] = fresh
            sent.append(.prepare(key, fresh))
            return fresh
        }
        for statement in statements {
            let accepted: Int32
            switch statement {
            case .shape(let shape, let sql, let parameters):
                let named = try name(.shape(shape), sql)
                accepted = Self.withParameters(parameters) { count, values, lengths, formats in
                    PQsendQueryPrepared(handle, named, count, values, lengths, formats, 1)
                }
            case .prepared(let sql, let parameters):
                let named = try name(.text(sql)) { sql }
                accepted = Self.withParameters(parameters) { count, values, lengths, formats in
                    PQsendQueryPrepared(handle, named, count, values, lengths, formats, 1)
                }
            case .unprepared(let sql, let parameters):
                accepted = Self.withParameters(parameters) { count, values, lengths, formats in
                    PQsendQueryParams(handle, sql, count, nil, values, lengths, formats, 1)
                }
            }
            guard accepted == 1 else { throw sendFailure() }
            sent.append(.statement)
        }
        guard PQpipelineSync(handle) == 1 else { throw sendFailure() }
        var results: [Result<PGResult, StorageError>?] = []
        results.reserveCapacity(statements.count)
        // A prepare that failed: the statement sent right after it, which needed it, fails with its error.
        var failedPrepare: StorageError?
        for item in sent {
            // Each statement's results end with a NULL.
            var first: OpaquePointer?
            while let result = PQgetResult(handle) {
                if first == nil { first = result } else { PQclear(result) }
            }
            guard let first else { throw sendFailure() }
            let outcome: Result<PGResult, StorageError>?
            if PQresultStatus(first) == PGRES_PIPELINE_ABORTED {
                PQclear(first)
                outcome = nil
            } else {
                outcome = Result { () throws(StorageError) in try check(first, "pipeline") }
            }
            switch item {
            case .prepare(let key, let name):
                switch outcome {
                case .success?: remember(key, name)
                case .failure(let error)?: failedPrepare = error
                case nil: break
                }
            case .statement:
                results.append(failedPrepare.map { .failure($0) } ?? outcome)
                failedPrepare = nil
            }
        }
        // The sync's own result, which no NULL follows.
        guard let sync = PQgetResult(handle) else { throw sendFailure() }
        defer { PQclear(sync) }
        guard PQresultStatus(sync) == PGRES_PIPELINE_SYNC else { throw sendFailure() }
        // The server reports a change of its settings before it is ready again: after every result.
        guard serverIsWritable else { throw left("postgres: pipeline: \(Self.readOnlyMessage)") }
        return results
    }

    private func sendFailure() -> StorageError {
        left("postgres: pipeline: \(Self.firstLine(PQerrorMessage(handle)))")
    }
}

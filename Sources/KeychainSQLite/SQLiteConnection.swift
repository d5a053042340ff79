internal import CSQLite
import KeychainStorage

/// One SQLite connection, used by one thread at a time (opened with `SQLITE_OPEN_NOMUTEX`).
///
/// Owns its handle and its cache of prepared statements; `deinit` finalizes and closes.
final class SQLiteConnection {
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    private var shapedStatements: [FilterShape: SQLiteStatement] = [:]
    /// On a reader: the store's write generation its open read transaction was begun at, or
    /// `nil` when it has none (see `SQLiteStore.beginSnapshot`).
    var snapshotGeneration: UInt64?
    /// On a reader: the groups holding items of one class, as its open read transaction sees
    /// them (`SQLiteSession.resolved`); ended with that transaction.
    var listedGroups: (itemClass: Int, groups: [[UInt8]])?

    /// Process-wide settings, made once before the first connection initialises SQLite.
    private static let configured: Bool = {
        _ = kcd_sqlite_disable_memstatus()
        return true
    }()

    init(path: String, readOnly: Bool) throws(StorageError) {
        precondition(Self.configured)
        var db: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        let rc = sqlite3_open_v2(path, &db, flags, Self.vfs)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw .unavailable("cannot open database: \(message) (\(rc))")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    /// SQLite's `unix-excl` VFS: the first access takes an exclusive lock on the database file
    /// for the whole process, which keeps it until its last connection closes. Connections
    /// within the process share that lock and a WAL index in heap memory, so reads take no
    /// file lock of their own (two `fcntl` calls per read transaction otherwise), no `-shm`
    /// file exists, and a second process (another server, or the CLI) is refused instead of
    /// sharing the files.
    static let vfs = "unix-excl"

    deinit {
        statements.removeAll()
        shapedStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that bind nothing (schema, pragmas).
    func execute(_ sql: String) throws(StorageError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, "exec") }
    }

    /// A cached prepared statement for `sql`, reset and cleared of bindings.
    func statement(_ sql: String) throws(StorageError) -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.resetIfUsed()
            return cached
        }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, "prepare") }
        let statement = SQLiteStatement(stmt, connection: self)
        statements[sql] = statement
        return statement
    }

    /// A cached statement for generated SQL, found by its filter's `shape` so that the SQL
    /// text is built only the first time a shape is seen on this connection.
    func statement(shape: FilterShape, sql: () -> String) throws(StorageError) -> SQLiteStatement {
        if let cached = shapedStatements[shape] {
            cached.resetIfUsed()
            return cached
        }
        let statement = try statement(sql())
        shapedStatements[shape] = statement
        return statement
    }

    /// The integer a single-value query returns (pragmas, counts).
    func scalarInt(_ sql: String, _ bindings: [SQLiteValue] = []) throws(StorageError) -> Int64? {
        let stmt = try statement(sql)
        try stmt.bind(bindings)
        defer { stmt.reset() }
        guard try stmt.step() else { return nil }
        return stmt.int64(0)
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    func error(_ rc: Int32, _ operation: String) -> StorageError {
        let message = "\(operation): \(String(cString: sqlite3_errmsg(handle))) (\(rc))"
        switch rc & 0xff {
        // SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY: function-like macros Swift cannot import.
        case SQLITE_CONSTRAINT where rc == (SQLITE_CONSTRAINT | (8 << 8)) || rc == (SQLITE_CONSTRAINT | (6 << 8)):
            return .uniqueViolation
        case SQLITE_BUSY, SQLITE_LOCKED:
            return .busy(message)
        case SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_READONLY:
            return .unavailable(message)
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return .corrupt(message)
        default:
            return .failed(message)
        }
    }
}

/// A value to bind or read.
enum SQLiteValue {
    case null
    case int(Int64)
    case blob([UInt8])
    case text(String)
}

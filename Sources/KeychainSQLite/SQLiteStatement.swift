internal import CSQLite
import KeychainStorage

/// A prepared statement owned by its connection; finalized in `deinit`.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    /// Bound or stepped since `reset()`: a statement its last user reset (every search does,
    /// once its rows are read) is handed out again without a second reset and clearing.
    private var used = false

    deinit { sqlite3_finalize(handle) }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        used = false
    }

    /// `reset()`, unless nothing was bound or stepped since the last one.
    func resetIfUsed() {
        if used { reset() }
    }

    func bind(_ values: [SQLiteValue]) throws(StorageError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .null: try check(sqlite3_bind_null(handle, index))
            case .int(let v): try bind(int: v, at: index)
            case .text(let s): try check(sqlite3_bind_text(handle, index, s, -1, kcd_sqlite_transient()))
            case .blob(let b): try bind(blob: b, at: index)
            }
        }
    }

    /// Binds `value` to the placeholder numbered `index` (from 1).
    func bind(int value: Int64, at index: Int32) throws(StorageError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds a copy of `bytes` to the placeholder numbered `index` (from 1).
    func bind(blob bytes: [UInt8], at index: Int32) throws(StorageError) {
        try check(
            bytes.withUnsafeBytes { p in
                sqlite3_bind_blob(
                    handle, index, p.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(p.count), kcd_sqlite_transient())
            })
    }

    /// Every bind goes through here: the statement is `used` from its first bind on.
    private func check(_ rc: Int32) throws(StorageError) {
        used = true
        guard rc == SQLITE_OK else { throw connection.error(rc, "bind") }
    }

    /// Advances; `true` when a row is available.
    @discardableResult
    func step() throws(StorageError) -> Bool {
        used = true
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let failure = connection.error(rc, "step")
            sqlite3_reset(handle)
            throw failure
        }
    }

    /// Binds, runs to completion, and resets.
    func run(_ values: [SQLiteValue]) throws(StorageError) {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func text(_ column: Int32) -> String? {
        guard let p = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: p)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let p = sqlite3_column_blob(handle, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: p, count: count))
    }
}

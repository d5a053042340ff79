internal import CPostgres
import KeychainStorage

/// A query's result, cleared when it goes. Binary columns: `int8` and `bytea`; text columns
/// (from `execute`) read with `text`.
final class PGResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { PQclear(handle) }

    var rows: Int32 { PQntuples(handle) }
    /// Rows a command changed (`INSERT`, `UPDATE`, `DELETE`).
    var changes: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    func isNull(_ row: Int32, _ column: Int32) -> Bool { PQgetisnull(handle, row, column) != 0 }

    func int64(_ row: Int32, _ column: Int32) -> Int64 {
        guard PQgetlength(handle, row, column) == 8, let p = PQgetvalue(handle, row, column) else { return 0 }
        return Int64(bigEndian: UnsafeRawPointer(p).loadUnaligned(as: Int64.self))
    }

    func blob(_ row: Int32, _ column: Int32) -> [UInt8] {
        let count = Int(PQgetlength(handle, row, column))
        guard count > 0, let p = PQgetvalue(handle, row, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: p, count: count))
    }

    func text(_ row: Int32, _ column: Int32) -> String? {
        isNull(row, column) ? nil : PQgetvalue(handle, row, column).map { String(cString: $0) }
    }
}

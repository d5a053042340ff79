internal import CSQLite
internal import Foundation
import KeychainStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Online backup, and what `keychaind restore` needs to put a backup in place.
///
/// The store holds its database exclusively (`SQLiteConnection.vfs`), so no other process can
/// copy it, and copying the file by hand while it serves would miss what is still in the
/// `-wal` file. A backup is made inside the process instead, through SQLite's backup API, from
/// a read connection of its own.
extension SQLiteStore {
    /// Writes a consistent copy of the database into the new, empty file at `path` while the
    /// store serves: what was committed when the copy began, nothing after, whatever is written
    /// meanwhile. The copy is a single file in rollback-journal mode (no `-wal` beside it), and
    /// fsynced when this returns. The data stays sealed: the copy is the same pages.
    ///
    /// One `sqlite3_backup_step(-1)` copies every page under one read transaction. SQLite:
    /// "If N is negative, all remaining source pages are copied", and a read transaction in WAL
    /// mode sees one snapshot while writers go on; a backup in several steps would instead
    /// restart from the first page each time another connection wrote between two steps, and
    /// under steady writes might never finish.
    public func backup(to path: String) throws(StorageError) {
        guard !closed.load(ordering: .acquiring) else { throw .unavailable("store is closed") }
        // In this process, so it shares the exclusive lock with the store's own connections.
        let source = try SQLiteConnection(path: self.path, readOnly: true)
        try source.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
        try Self.copy(from: source, to: path)
    }

    /// Copies the database `source` is connected to into the file at `path` (see `backup(to:)`).
    static func copy(from source: SQLiteConnection, to path: String) throws(StorageError) {
        let destination = try SQLiteConnection(path: path, readOnly: false)
        // The copy is one transaction on a file nobody else has: no journal beside it.
        try destination.execute("PRAGMA journal_mode = OFF")
        guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            throw destination.error(sqlite3_errcode(destination.handle), "backup")
        }
        var rc = sqlite3_backup_step(backup, -1)
        // SQLite: "If SQLITE_BUSY or SQLITE_LOCKED is returned, the call may be retried later";
        // the source's busy timeout has already waited, so a few more tries at most.
        var tries = 0
        while rc == SQLITE_BUSY || rc == SQLITE_LOCKED, tries < 20 {
            usleep(50_000)
            tries += 1
            rc = sqlite3_backup_step(backup, -1)
        }
        let finished = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else { throw destination.error(rc, "backup") }
        guard finished == SQLITE_OK else { throw destination.error(finished, "backup") }
        // The pages came with the source's WAL flag in the header: made a rollback-journal
        // database again, a single file that opens anywhere, read-only too.
        try destination.execute("PRAGMA journal_mode = DELETE")
        try Self.fsync(path)
    }

    /// What `inspect` found in a database file.
    public struct Inspection: Sendable, Equatable {
        /// The schema version (`PRAGMA user_version`): 1 … this build's latest.
        public let schemaVersion: Int
    }

    /// Checks that the file at `path`, which no one else has open, is a keychaind database this
    /// build can open: SQLite's `integrity_check` passes, its schema version is one this build
    /// knows, and it has keychaind's tables. Throws `corrupt` saying which check failed; the
    /// file is only read.
    public static func inspect(path: String) throws(StorageError) -> Inspection {
        guard FileManager.default.fileExists(atPath: path) else { throw .unavailable("\(path): no such file") }
        let connection = try SQLiteConnection(path: path, readOnly: false)
        let check: String
        do throws(StorageError) {
            let statement = try connection.statement("PRAGMA integrity_check")
            guard try statement.step() else { throw StorageError.corrupt("integrity_check returned nothing") }
            check = statement.text(0) ?? ""
            statement.reset()
        } catch  where error.code == .corrupt || error.code == .failed {
            throw .corrupt("not a SQLite database, or a damaged one (\(error.message))")
        }
        guard check == "ok" else { throw .corrupt("integrity_check failed: \(check.prefix(200))") }
        let version = Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
        guard version <= Migrations.steps.count else {
            throw .corrupt("database schema version \(version) is newer than this build (\(Migrations.steps.count))")
        }
        let tables = try connection.scalarInt(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'items', 'lookups', 'tokens')")
        guard version >= 1, tables == 4 else {
            throw .corrupt("not a keychaind database (schema version \(version), \(tables ?? 0) of its 4 tables)")
        }
        return Inspection(schemaVersion: version)
    }

    /// Puts the database file `replacement` (in the same directory) in place of `path`,
    /// atomically: fsynced, renamed over `path`, the old database's `-wal` and `-shm` removed,
    /// the directory fsynced. Throws `busy`, changing nothing, when a running server holds the
    /// database at `path`; its exclusive lock is held from that check until the rename is done,
    /// so no server can start on the old file meanwhile.
    public static func replace(databaseAt path: String, with replacement: String) throws(StorageError) {
        var holder: SQLiteConnection?
        if FileManager.default.fileExists(atPath: path) {
            let old = try SQLiteConnection(path: path, readOnly: false)
            do {
                // The first access takes the process's exclusive lock, or finds a server's.
                try old.execute("PRAGMA busy_timeout = 0; BEGIN IMMEDIATE; COMMIT;")
            } catch  where error.code == .busy {
                throw .busy("\(path) is in use by another process (stop the keychaind that serves it first)")
            }
            holder = old
        }
        try fsync(replacement)
        try withExtendedLifetime(holder) { () throws(StorageError) in
            guard rename(replacement, path) == 0 else {
                throw .unavailable("cannot rename \(replacement) to \(path): \(String(cString: strerror(errno)))")
            }
        }
        // Closing the old database's last connection checkpoints into the old, now unlinked,
        // file and removes its -wal by name; whatever is left of it goes next.
        holder = nil
        for suffix in ["-wal", "-shm", "-journal"] { unlink(path + suffix) }
        try fsync((path as NSString).deletingLastPathComponent, directory: true)
    }

    /// `fsync(2)` of the file (or directory) at `path`.
    static func fsync(_ path: String, directory: Bool = false) throws(StorageError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0))
        guard fd >= 0 else { throw .unavailable("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        guard Glibc.fsync(fd) == 0 else { throw .unavailable("cannot fsync \(path): \(String(cString: strerror(errno)))") }
    }
}

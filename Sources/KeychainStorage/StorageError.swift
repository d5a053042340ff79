/// An error from the storage layer. Messages never carry bound arguments (they may be ciphertext
/// or digests of secrets), only SQLite's own text and the operation.
public struct StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: Equatable, Sendable {
        case uniqueViolation
        case unavailable
        case busy
        case corrupt
        case failed
        case unsupported
    }

    package let code: Code
    /// What failed, for logs: SQLite's message and result code, never a bound value.
    public let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A unique index refused a row (an item's primary key already exists).
    public static let uniqueViolation = StorageError(.uniqueViolation, "unique constraint violated")
    /// The database could not be opened, or the disk failed.
    public static func unavailable(_ message: String) -> StorageError { StorageError(.unavailable, message) }
    /// The database stayed locked past the busy timeout: another process holds it.
    public static func busy(_ message: String) -> StorageError { StorageError(.busy, message) }
    /// The database file or a stored value is not what this build wrote.
    public static func corrupt(_ message: String) -> StorageError { StorageError(.corrupt, message) }
    /// Any other failure.
    public static func failed(_ message: String) -> StorageError { StorageError(.failed, message) }
    /// The store does not do this (a backup of a PostgreSQL store: `pg_dump` does it).
    public static func unsupported(_ message: String) -> StorageError { StorageError(.unsupported, message) }

    /// Whether the store does not do what was asked (`unsupported`).
    public var isUnsupported: Bool { code == .unsupported }

    public var description: String { message }

    public static func == (lhs: StorageError, rhs: StorageError) -> Bool { lhs.code == rhs.code }
}

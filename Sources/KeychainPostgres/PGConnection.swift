internal import CPostgres
import Glibc
import KeychainStorage

/// One libpq connection, used by one thread at a time, with blocking calls (they fit
/// libmicrohttpd's threads). Statements are prepared once per connection, by name; parameters
/// and results travel in binary.
///
/// Error messages carry PostgreSQL's SQLSTATE and primary message only: never a DETAIL line
/// (which quotes the values of a violated key) and never the connection string.
final class PGConnection {
    let handle: OpaquePointer
    /// Prepared statements by SQL text: their names.
    private var prepared: [String: String] = [:]
    private var preparedShapes: [FilterShape: String] = [:]
    /// Statements prepared so far, which numbers the next one's name.
    var preparedCount: Int { prepared.count + preparedShapes.count }

    /// What a prepared statement is found by: its SQL text, or the shape of the filter it reads.
    enum PreparedKey: Hashable {
        case text(String)
        case shape(FilterShape)
    }

    func preparedName(_ key: PreparedKey) -> String? {
        switch key {
        case .text(let sql): prepared[sql]
        case .shape(let shape): preparedShapes[shape]
        }
    }

    func remember(_ key: PreparedKey, _ name: String) {
        switch key {
        case .text(let sql): prepared[sql] = name
        case .shape(let shape): preparedShapes[shape] = name
        }
    }

    /// The connect timeout, in seconds, unless the URL sets its own.
    static let connectTimeoutSeconds = 2

    /// Settings put before the caller's, which may override them: a server that vanished is left
    /// within seconds rather than after the kernel's TCP timeouts (a connect gives up after 2 s;
    /// an idle or waiting connection after 2 s of silence and two unanswered probes 1 s apart;
    /// data unacknowledged for 4 s ends it), and only a writable server is accepted.
    private static let defaults: [(String, String)] = [
        ("connect_timeout", String(connectTimeoutSeconds)),
        ("keepalives", "1"),
        ("keepalives_idle", "2"),
        ("keepalives_interval", "1"),
        ("keepalives_count", "2"),
        ("tcp_user_timeout", "4000"),
        ("target_session_attrs", "read-write"),
        ("application_name", "keychaind"),
    ]

    /// The generation this connection was made in (`PGGeneration`); nil: outside a store.
    private let generation: PGGeneration?
    private let born: Int

    /// Connects to `url` (a `postgres://` URL or a `key=value` connection string) with
    /// `password`, or, without one, what libpq's password file (`PGPASSFILE`) gives. With
    /// `schema` (`PostgresStore.isSchemaName`), its tables are that schema's: the session's
    /// `search_path` is it alone, set by the server as the connection starts. `host` chooses one
    /// of the URL's hosts (`PGConnector.hosts`).
    convenience init(
        url: String, password: String?, schema: String? = nil, host: [(String, String)] = [],
        generation: PGGeneration? = nil
    ) throws(StorageError) {
        let (keywords, values) = Self.parameters(url: url, password: password, schema: schema, host: host)
        let connection = withCStrings(keywords) { k in withCStrings(values) { v in PQconnectdbParams(k, v, 1) } }
        guard let connection else { throw .unavailable("postgres: out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.firstLine(PQerrorMessage(connection))
            PQfinish(connection)
            throw .unavailable("postgres: cannot connect: \(message)")
        }
        self.init(handle: connection, generation: generation)
    }

    /// A connection `start` began and `PQconnectPoll` completed; this object now owns it.
    init(handle: OpaquePointer, generation: PGGeneration?) {
        self.handle = handle
        self.generation = generation
        born = generation?.current ?? 0
    }

    /// Begins connecting without waiting (`PQconnectStartParams`): see `init(url:password:schema:host:generation:)`.
    static func start(url: String, password: String?, schema: String?, host: [(String, String)]) -> OpaquePointer? {
        let (keywords, values) = parameters(url: url, password: password, schema: schema, host: host)
        return withCStrings(keywords) { k in withCStrings(values) { v in PQconnectStartParams(k, v, 1) } }
    }

    /// Libpq's keywords and values: the defaults, the URL (which overrides them), then the
    /// password, the schema's search path and the host chosen.
    private static func parameters(url: String, password: String?, schema: String?, host: [(String, String)])
        -> ([String], [String])
    {
        var keywords = defaults.map(\.0) + ["dbname"] + (password == nil ? [] : ["password"])
        var values = defaults.map(\.1) + [url] + (password.map { [$0] } ?? [])
        if let schema {
            keywords.append("options")
            values.append("-c search_path=\(schema)")
        }
        keywords += host.map(\.0)
        values += host.map(\.1)
        return (keywords, values)
    }

    deinit { PQfinish(handle) }

    /// Waits until a notification of a channel this connection listens to arrives, `other`
    /// becomes readable, or `timeoutMilliseconds` pass, then consumes every notification that
    /// arrived; throws when the connection is lost.
    func awaitNotification(timeoutMilliseconds: Int, orReadable other: Int32 = -1) throws(StorageError) {
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw .unavailable("postgres: the listening connection is lost") }
        var descriptors = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: other, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&descriptors, other >= 0 ? 2 : 1, Int32(clamping: timeoutMilliseconds))
        guard ready >= 0 || errno == EINTR else { throw .unavailable("postgres: waiting for events failed") }
        guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
            throw .unavailable("postgres: the listening connection is lost")
        }
        while let notification = PQnotifies(handle) { PQfreemem(notification) }
    }

    /// Refuses a connection string that carries a password (in a URL's user part, a parameter
    /// or a `password=` keyword): a command line and an environment are readable by others. The
    /// message never repeats the string.
    static func refusePassword(in url: String) throws(StorageError) {
        if try options(of: url)["password"] != nil {
            throw .failed("the database URL carries a password: put it in a password file instead")
        }
    }

    /// The settings `url` gives, by keyword; the message of a failure never repeats the URL.
    static func options(of url: String) throws(StorageError) -> [String: String] {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            error.map { PQfreemem($0) }
            throw .failed("the database URL cannot be parsed as a PostgreSQL URL or connection string")
        }
        defer { PQconninfoFree(options) }
        var found: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { found[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return found
    }

    /// Whether the connection is still usable: a failed one is dropped, never reused, and so is
    /// one whose server turned read-only or that an earlier generation made (`PGGeneration`).
    var isHealthy: Bool {
        PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) != PQTRANS_UNKNOWN && serverIsWritable
            && (generation.map { $0.current == born } ?? true)
    }

    /// Whether the server, as it last reported itself, accepts writes: not a standby, and not
    /// fenced with `default_transaction_read_only` (both reported by PostgreSQL 14 and later
    /// with every answer after a change, so reading them costs no round trip).
    var serverIsWritable: Bool {
        !Self.isOn(PQparameterStatus(handle, "in_hot_standby"))
            && !Self.isOn(PQparameterStatus(handle, "default_transaction_read_only"))
    }

    private static func isOn(_ value: UnsafePointer<CChar>?) -> Bool { value.map { strcmp($0, "on") == 0 } ?? false }

    /// The error for a server found gone or read-only: every connection of this generation is
    /// left with this one.
    func left(_ message: String) -> StorageError {
        generation?.leave(born)
        return .unavailable(message)
    }

    /// Runs SQL without parameters (transaction control, schema); text results.
    @discardableResult
    func execute(_ sql: String) throws(StorageError) -> PGResult {
        try check(PQexec(handle, sql), "exec")
    }

    /// Runs the statement `sql`, prepared on first use, with `parameters` bound in binary.
    @discardableResult
    func run(_ sql: String, _ parameters: [PGValue] = []) throws(StorageError) -> PGResult {
        try run(.text(sql), sql: { sql }, parameters)
    }

    /// Runs generated SQL found by its filter's `shape`, so the text is built once per shape.
    func run(shape: FilterShape, sql: () -> String, _ parameters: [PGValue]) throws(StorageError) -> PGResult {
        try run(.shape(shape), sql: sql, parameters)
    }

    private func run(_ key: PreparedKey, sql: () -> String, _ parameters: [PGValue]) throws(StorageError) -> PGResult {
        let name: String
        if let known = preparedName(key) {
            name = known
        } else {
            name = "s\(preparedCount)"
            _ = try check(PQprepare(handle, name, sql(), 0, nil), "prepare")
            remember(key, name)
        }
        return try runPrepared(name, parameters)
    }

    private func runPrepared(_ name: String, _ parameters: [PGValue]) throws(StorageError) -> PGResult {
        let result = Self.withParameters(parameters) { count, values, lengths, formats in
            PQexecPrepared(handle, name, count, values, lengths, formats, 1)
        }
        return try check(result, "execute")
    }

    /// Calls `body` with libpq's parameter arrays for `parameters`, all in binary: their count,
    /// values, lengths and formats. Each value's bytes stay alive and unmoved for the call.
    static func withParameters<R>(
        _ parameters: [PGValue],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>, UnsafePointer<Int32>) -> R
    ) -> R {
        let lengths = parameters.map { Int32($0.bytes?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        return withPointers(parameters.map(\.bytes)) { values in
            body(Int32(parameters.count), values, lengths, formats)
        }
    }

    /// `result`, unless it failed, or the server reported itself read-only with it: what a
    /// read-only server answers may be older than what its successor acknowledged.
    func check(_ result: OpaquePointer?, _ operation: String) throws(StorageError) -> PGResult {
        guard let result else { throw left("postgres: \(operation): \(Self.firstLine(PQerrorMessage(handle)))") }
        let wrapped = PGResult(result)
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            guard serverIsWritable else { throw left("postgres: \(operation): \(Self.readOnlyMessage)") }
            return wrapped
        default: throw error(of: result, operation)
        }
    }

    static let readOnlyMessage = "the server is read-only (a standby, or fenced): leaving it"

    /// The storage error for a failed result: by SQLSTATE class, else by the connection's state.
    private func error(of result: OpaquePointer, _ operation: String) -> StorageError {
        let field = { (code: Character) in PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) } }
        let state = field("C") ?? ""
        let message = "postgres: \(operation): \(field("M") ?? Self.firstLine(PQerrorMessage(handle))) (\(state))"
        switch state {
        case "23505": return .uniqueViolation
        case "40001", "40P01", "55P03": return .busy(message)
        // A read-only transaction refused a write: the server is a standby or fenced.
        case "25006": return left(message)
        case _ where state.hasPrefix("08") || state.hasPrefix("57P"): return left(message)
        case _ where state.hasPrefix("53"): return .unavailable(message)
        case "XX001", "XX002": return .corrupt(message)
        case _ where !isHealthy: return left(message)
        default: return .failed(message)
        }
    }

    static func firstLine(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return String(cString: text).split(separator: "\n").first.map(String.init) ?? "unknown error"
    }
}

/// Calls `body` with a C array of C strings for `strings`, ending in NULL.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { string in
        let utf8 = string.utf8CString
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        _ = UnsafeMutableBufferPointer(start: copy, count: utf8.count).initialize(from: utf8)
        return copy
    }
    defer { for copy in copies { copy.deallocate() } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// Calls `body` with a C array of pointers to each value's bytes (NULL for a SQL NULL).
private func withPointers<R>(_ values: [[UInt8]?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    // One buffer for every value's bytes (a statement binds a dozen: one allocation, not twelve).
    let total = values.reduce(0) { $0 + max($1?.count ?? 0, 1) }
    let storage = UnsafeMutableRawPointer.allocate(byteCount: max(total, 1), alignment: 1)
    defer { storage.deallocate() }
    var offset = 0
    let pointers: [UnsafePointer<CChar>?] = values.map { bytes in
        guard let bytes else { return nil }
        let start = storage + offset
        bytes.withUnsafeBytes { if let base = $0.baseAddress { start.copyMemory(from: base, byteCount: $0.count) } }
        offset += max(bytes.count, 1)
        return UnsafePointer(start.assumingMemoryBound(to: CChar.self))
    }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}

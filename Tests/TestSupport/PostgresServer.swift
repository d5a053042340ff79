import CPostgres
import Foundation
import Synchronization
public import Testing

/// A real PostgreSQL server for the tests, started once per test process on 127.0.0.1 and a free
/// port, in a temporary directory: `initdb` and `pg_ctl` from Debian's `postgresql` (or the
/// directory `KEYCHAIND_PG_BIN` names), as `nobody` when the tests run as root (initdb refuses
/// root). Each test asks for a database of its own (`createDatabase`).
///
/// It stops when the test process goes, however it goes: a shell started with it waits on a
/// pipe from this process and stops the server (and removes its directory) when the pipe closes.
public final class PostgresServer: Sendable {
    public let port: Int
    private let directory: String
    /// The write end of the pipe the server's shell waits on; never written, never closed.
    private let lifeline: FileHandle
    private let databases = Atomic<Int>(0)

    /// The server, started when first asked for; every later call answers the same one.
    public static var shared: PostgresServer {
        get throws { try started.get() }
    }

    private static let started = Result { try PostgresServer() }

    private init() throws {
        let bin = try Self.binaries()
        var template = Array("/tmp/kcd-pg-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ServerError("mkdtemp failed")
        }
        directory = String(cString: made)
        port = try freeLoopbackPort()

        let script = """
            set -e
            "$1/initdb" -D "$2/data" -A trust -U postgres --no-sync >"$2/initdb.log" 2>&1
            "$1/pg_ctl" -D "$2/data" -l "$2/postgres.log" -w -o "-p $3 -k $2 -c listen_addresses=127.0.0.1" start >/dev/null
            echo ready
            read _ || true
            "$1/pg_ctl" -D "$2/data" -m immediate stop >/dev/null 2>&1 || true
            rm -rf "$2"
            """
        let process = Process()
        var arguments = ["sh", "-c", script, "sh", bin, directory, String(port)]
        if getuid() == 0 {
            guard chown(directory, 65534, 65534) == 0 else { throw ServerError("chown \(directory) failed") }
            arguments = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + arguments
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        lifeline = stdin.fileHandleForWriting
        let line = String(decoding: stdout.fileHandleForReading.readDataToEndOfLine(), as: UTF8.self)
        guard line == "ready" else {
            let log = (try? String(contentsOfFile: directory + "/initdb.log", encoding: .utf8)) ?? ""
            throw ServerError("PostgreSQL did not start in \(directory): \(log.suffix(2000))")
        }
    }

    /// A new, empty database; its connection URL.
    public func createDatabase() throws -> String {
        let name = "kcd_\(databases.add(1, ordering: .relaxed).newValue)"
        try execute("CREATE DATABASE \(name)")
        return url(database: name)
    }

    public func url(database: String) -> String { "postgresql://postgres@127.0.0.1:\(port)/\(database)" }

    /// Runs `sql` on `database` as the superuser; the first row's first column, if any.
    @discardableResult
    public func execute(_ sql: String, database: String = "postgres") throws -> String? {
        guard let connection = PQconnectdb("host=127.0.0.1 port=\(port) user=postgres dbname=\(database)") else {
            throw ServerError("out of memory")
        }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else { throw ServerError(String(cString: PQerrorMessage(connection))) }
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard [PGRES_COMMAND_OK, PGRES_TUPLES_OK].contains(PQresultStatus(result)) else {
            throw ServerError(String(cString: PQerrorMessage(connection)))
        }
        guard PQntuples(result) > 0, PQgetisnull(result, 0, 0) == 0 else { return nil }
        return String(cString: PQgetvalue(result, 0, 0))
    }

    /// Whether this machine has PostgreSQL's server binaries (`binaries()`): the tests that need
    /// it are skipped, saying why (`notInstalled`), when it has not.
    public static let isInstalled: Bool = {
        guard let bin = try? binaries() else { return false }
        return FileManager.default.isExecutableFile(atPath: bin + "/initdb")
    }()

    /// Why the PostgreSQL tests are skipped when `isInstalled` is false.
    public static let notInstalled: Comment =
        "PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or KEYCHAIND_PG_BIN): `make deps-test` installs it"

    /// Debian's newest PostgreSQL, or `KEYCHAIND_PG_BIN`.
    private static func binaries() throws -> String {
        if let bin = ProcessInfo.processInfo.environment["KEYCHAIND_PG_BIN"] { return bin }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        guard let newest = versions.compactMap(Int.init).max() else {
            throw ServerError("no PostgreSQL in \(root): `make deps-test` installs Debian's postgresql")
        }
        return "\(root)/\(newest)/bin"
    }

    struct ServerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

extension FileHandle {
    /// Bytes up to the first newline (not included) or the end of the stream.
    fileprivate func readDataToEndOfLine() -> Data {
        var line = Data()
        while let byte = try? read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        return line
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick for port 0).
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw PostgresServer.ServerError("socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw PostgresServer.ServerError("bind failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

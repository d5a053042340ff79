import Foundation
import KeychainAudit
import KeychainCrypto
import KeychainSQLite
import Logging
import MicroHTTP
import Synchronization
import TestSupport
import Testing

@testable import KeychainAPI
@testable import KeychainCore

/// `POST /v1/keychain/backup`: the whole keychain, still sealed, to an admin of
/// every group only; a copy that opens with the instance key file and the passphrase, and with
/// nothing less.
@Suite struct BackupRouteTests {
    /// Writes `bytes` as `keychain.db` in a new data directory, with `keyFile` as its instance key.
    static func restore(_ bytes: [UInt8], keyFile: String) throws -> TemporaryDirectory {
        let directory = TemporaryDirectory(prefix: "kcd-restored")
        FileManager.default.createFile(atPath: directory.path + "/" + SQLiteStore.fileName, contents: Data(bytes))
        try FileManager.default.copyItem(atPath: keyFile, toPath: directory.path + "/instance.key")
        return directory
    }

    static func temporaryFiles(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.contains("backup") }
    }

    /// The answer is a SQLite database that opens, with the instance key file and the
    /// passphrase, as the same keychain: items with their secrets, tokens, settings.
    @Test func aStarAdminGetsTheWholeKeychainAsASQLiteFile() throws {
        let f = try APIFixture()
        try f.add(service: "db", account: "appaccount-alpha", secret: "aHVudGVyMg==")
        try f.add(service: "mailserver-beta", account: "ops", secret: "czNjcjN0", group: "team")
        #expect(try f.call("PUT", "/v1/keychain/settings", json: #"{"lockInterval":77}"#).status == 200)
        let response = try f.call("POST", "/v1/keychain/backup")
        #expect(response.status == 200, "\(response.text)")
        #expect(response.header("Content-Type") == "application/vnd.sqlite3")
        #expect(response.header("Content-Disposition")?.hasPrefix("attachment; filename=\"keychain-") == true)
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.body.starts(with: Array("SQLite format 3\u{0}".utf8)))
        #expect(
            !response.text.contains("hunter2") && !response.text.contains("appaccount-alpha")
                && !response.text.contains("mailserver-beta"), "sealed")
        #expect(Self.temporaryFiles(in: f.directory.path).isEmpty, "the temporary copy is gone")

        let restored = try Self.restore(response.body, keyFile: f.directory.path + "/instance.key")
        let keychain = try Keychain.open(.testing(restored.path))
        defer { keychain.close() }
        #expect(keychain.state == .locked)
        #expect(keychain.lockInterval == 77)
        try keychain.unlock(passphrase: SecureBytes(utf8: testPassphrase))
        let client = InProcessClient(
            KeychainResponder(keychain: keychain, configuration: APIConfiguration(), logger: Logger(label: "test")))
        let found = client.request(
            "GET", "/v1/items?matchLimit=all&returnData=true&returnAttributes=true", headers: f.auth)
        #expect(found.status == 200, "the admin token's hash came along: \(found.text)")
        let secrets = Set(found.items.compactMap { $0["valueData"]?.stringValue })
        #expect(secrets == ["aHVudGVyMg==", "czNjcjN0"])
    }

    /// Without the instance key file the copy gives nothing: another key file does not open
    /// its keys (errSecDecode), so no attribute, token or secret.
    @Test func aBackupDoesNotOpenWithAnotherInstanceKeyFile() throws {
        let f = try APIFixture()
        try f.add(service: "db")
        let response = try f.call("POST", "/v1/keychain/backup")
        #expect(response.status == 200)
        let other = try APIFixture()
        let restored = try Self.restore(response.body, keyFile: other.directory.path + "/instance.key")
        #expect(throws: KeychainError.decode("")) { _ = try Keychain.open(.testing(restored.path)) }
    }

    /// The same refusals as the other keychain-wide routes: a token without `admin`, and an
    /// admin of some groups only, are 403 errSecMissingEntitlement; no copy is made.
    @Test func aBackupNeedsAnAdminOfEveryGroup() throws {
        let f = try APIFixture()
        let reader = try f.token(groups: ["*"])
        try f.call("POST", "/v1/keychain/backup", headers: [("Authorization", "Bearer \(reader)")])
            .expectError(403, -34018, naming: "admin")
        let scoped = try f.token(groups: ["team"], capabilities: ["admin", "read"])
        try f.call("POST", "/v1/keychain/backup", headers: [("Authorization", "Bearer \(scoped)")])
            .expectError(403, -34018, naming: "*")
        try f.call("POST", "/v1/keychain/backup", headers: []).expectError(401, -25293)
        #expect(Self.temporaryFiles(in: f.directory.path).isEmpty)
        try f.call("GET", "/v1/keychain/backup").expectError(405, -4)
        try f.call("POST", "/v1/keychain/backup", json: #"{"to":"/etc/passwd"}"#).expectError(400, -50, naming: "to")
        #expect(try f.call("POST", "/v1/keychain/backup", json: "{}").status == 200)
        for line in f.logs.all {
            #expect(!line.contains(f.adminToken) && !line.contains(reader) && !line.contains(scoped), "\(line)")
        }
    }

    /// Over a socket the body comes from the file (`sendfile`), whole, with its length, and the
    /// connection serves the next request.
    @Test func overASocketTheCopyIsSentWholeFromTheFile() throws {
        let f = try APIFixture()
        for n in 0..<300 { try f.add(service: "svc-\(n)") }
        let client = try f.client()
        let response = try client.request("POST", "/v1/keychain/backup", headers: f.auth)
        #expect(response.status == 200)
        #expect(response.header("Content-Length") == String(response.body.count))
        #expect(response.body.count > 300 * 100)
        let directory = TemporaryDirectory()
        let path = directory.path + "/copy.db"
        FileManager.default.createFile(atPath: path, contents: Data(response.body))
        #expect(try SQLiteStore.inspect(path: path).schemaVersion >= 1)
        #expect(try client.request("GET", "/v1/keychain", headers: f.auth).status == 200, "keep-alive")
        #expect(Self.temporaryFiles(in: f.directory.path).isEmpty)
    }

    /// One backup at a time: each writes a whole copy to the data directory's disk. Another
    /// asked while one is taken is errSecNotAvailable naming `backup`, and leaves no file.
    @Test func aSecondBackupWhileOneIsTakenIsRefused() throws {
        let f = try APIFixture()
        try f.add(service: "db")
        let responder = try #require(f.responder as? KeychainResponder)
        let taken = responder.backupInProgress.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        #expect(taken)
        try f.call("POST", "/v1/keychain/backup").expectError(503, -25291, naming: "backup")
        #expect(Self.temporaryFiles(in: f.directory.path).isEmpty)
        responder.backupInProgress.store(false, ordering: .relaxed)
        #expect(try f.call("POST", "/v1/keychain/backup").status == 200)
        let held = responder.backupInProgress.load(ordering: .relaxed)
        #expect(!held, "the slot is given back")
    }

    /// Copies an interrupted backup left in the data directory (and SQLite's files beside them)
    /// are removed when `serve` opens the keychain; nothing else in the directory is touched.
    @Test func copiesAnInterruptedBackupLeftAreRemoved() throws {
        let f = try APIFixture()
        try f.add(service: "db")
        let left = [".keychain-backup-0a1b2c3d.db", ".keychain-backup-0a1b2c3d.db-journal", ".keychain-backup-ffee.db"]
        for name in left { FileManager.default.createFile(atPath: f.directory.path + "/" + name, contents: Data("x".utf8)) }
        FileManager.default.createFile(atPath: f.directory.path + "/keychain-backup-mine.db", contents: Data("x".utf8))
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: f.directory.path))
        #expect(f.keychain.removeLeftBackupCopies() == 3)
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: f.directory.path))
        #expect(before.subtracting(after) == Set(left))
        #expect(after.contains("keychain-backup-mine.db") && after.contains(SQLiteStore.fileName))
        #expect(f.keychain.removeLeftBackupCopies() == 0)
        #expect(try f.call("POST", "/v1/keychain/backup").status == 200, "backups still work")
    }

    /// The copy may take seconds: it runs on the worker pool, never on a polling thread.
    @Test func aBackupRunsOnTheWorkerPool() throws {
        let f = try APIFixture()
        let head = HTTPRequestHead(
            method: "POST", path: "/v1/keychain/backup",
            headers: HTTPHeaders([(name: "Authorization", value: "Bearer \(f.adminToken)")]))
        guard case .proceed(let execution, _, _) = f.responder.preflight(head) else {
            Issue.record("preflight refused the backup")
            return
        }
        #expect(execution == .workerPool)
    }

    /// The audit line names the operation `backup` and who took it; refused attempts get theirs.
    /// With the log unwritable, the copy is not sent (it holds every sealed secret).
    @Test func theAuditLineSaysBackupAndTheCopyWaitsForIt() throws {
        let f = try APIFixture()
        let keys = try AuditKeys(instanceKey: KeychainConfiguration.testing(f.directory.path).readInstanceKey())
        let path = f.directory.path + "/audit.log"
        let log = try AuditLog(destination: .file(path), keys: keys)
        var api = APIConfiguration()
        api.auditLog = log
        let client = InProcessClient(KeychainResponder(keychain: f.keychain, configuration: api, logger: Logger(label: "test")))
        let reader = try f.token(groups: ["*"])
        #expect(client.request("POST", "/v1/keychain/backup", headers: f.auth).status == 200)
        #expect(client.request("POST", "/v1/keychain/backup", headers: [("Authorization", "Bearer \(reader)")]).status == 403)
        log.close()
        let bytes = Array(FileManager.default.contents(atPath: path) ?? Data())
        let lines = try bytes.split(separator: 0x0A).map { try #require(JSON.parse(Array($0)).objectValue) }
        #expect(lines.map { $0["operation"]?.stringValue } == ["backup", "backup"])
        #expect(lines.map { $0["route"]?.stringValue } == ["/v1/keychain/backup", "/v1/keychain/backup"])
        #expect(lines.map { $0["httpStatus"]?.intValue } == [200, 403])
        let adminID = try f.keychain.authenticate(bearer: f.adminToken).id
        #expect(lines[0]["token"]?.objectValue?["id"]?.stringValue == adminID)
        #expect(!String(decoding: bytes, as: UTF8.self).contains(f.adminToken))

        let full = try AuditLog(destination: .file("/dev/full"), keys: keys)
        defer { full.close() }
        var failing = APIConfiguration()
        failing.auditLog = full
        let refused = InProcessClient(
            KeychainResponder(keychain: f.keychain, configuration: failing, logger: Logger(label: "test")))
        refused.request("POST", "/v1/keychain/backup", headers: f.auth).expectError(503, -25291, naming: "audit")
        #expect(Self.temporaryFiles(in: f.directory.path).isEmpty)
    }

    /// On PostgreSQL keychaind makes no copy itself: errSecUnimplemented (501) naming `store`
    /// and pointing at pg_dump.
    @Test(.enabled(if: PostgresServer.isInstalled, PostgresServer.notInstalled))
    func onPostgreSQLABackupIsUnimplementedNamingStoreAndPgDump() throws {
        let directory = TemporaryDirectory()
        let keychain = try Keychain.open(.testing(directory.path), backend: .postgres)
        defer { keychain.close() }
        let admin = try keychain.initialize(passphrase: SecureBytes(utf8: testPassphrase)).secret
        let client = InProcessClient(
            KeychainResponder(keychain: keychain, configuration: APIConfiguration(), logger: Logger(label: "test")))
        let response = client.request("POST", "/v1/keychain/backup", headers: [("Authorization", "Bearer \(admin)")])
        response.expectError(501, -4, naming: "store")
        #expect(response.text.contains("pg_dump"))
        #expect(Self.temporaryFiles(in: directory.path).isEmpty)
        // The failed copy gave its slot back: the next one fails the same way, not as busy.
        client.request("POST", "/v1/keychain/backup", headers: [("Authorization", "Bearer \(admin)")])
            .expectError(501, -4, naming: "store")
    }
}

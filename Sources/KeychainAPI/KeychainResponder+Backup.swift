internal import Foundation
import KeychainCore
import KeychainCrypto
import KeychainJSON
import MicroHTTP

extension KeychainResponder {
    /// `POST /v1/keychain/backup` (an `admin` token of `*`): the whole keychain as a SQLite
    /// database file, still sealed, in the answer's body.
    ///
    /// The copy is made on the worker pool through SQLite's backup API into a private file in
    /// the data directory (0600, created exclusively), which is unlinked before the answer is
    /// sent: the body goes out from its open descriptor (`HTTPFileBody`, `sendfile`), never
    /// through memory, and the disk space returns when the answer is done. The answer counts
    /// as one carrying secrets, so with an audit log it is sent only once its line is written.
    func backup(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        try keychain.requireKeychainAdmin(token, for: "taking a backup")
        for key in try Self.bodyObject(request, allowEmpty: true).keys { throw .param("\(key): unknown key") }
        let file = try Self.takeBackup(keychain, caller: token)
        let stamp = RFC3339.format(milliseconds: clock.now()).filter { $0 != "-" && $0 != ":" }.prefix(15) + "Z"
        var response = HTTPResponse(
            status: 200,
            headers: [
                (name: "Content-Type", value: "application/vnd.sqlite3"),
                (name: "Content-Disposition", value: "attachment; filename=\"keychain-\(stamp).db\""),
                (name: "Cache-Control", value: "no-store"),
            ])
        response.bodyFile = file
        response.carriesSecret = true
        return response
    }

    /// A backup of `keychain` in a file of the data directory that is already unlinked: open
    /// for reading, of its final size.
    static func takeBackup(_ keychain: Keychain, caller: AccessToken) throws(KeychainError) -> HTTPFileBody {
        let name = ".keychain-backup-" + Sodium.randomBytes(8).map { String($0, radix: 16) }.joined() + ".db"
        let path = keychain.dataDirectory + "/" + name
        // Created here, exclusively and never through a link, so that SQLite opens our own file.
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            throw .notAvailable("backup: a temporary file cannot be created in the data directory: \(String(cString: strerror(errno)))")
        }
        close(created)
        defer { unlink(path) }
        try keychain.backup(to: path, caller: caller)
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0 else {
            if fd >= 0 { close(fd) }
            throw .notAvailable("backup: the copy cannot be read back: \(String(cString: strerror(errno)))")
        }
        return HTTPFileBody(descriptor: fd, size: UInt64(info.st_size))
    }
}

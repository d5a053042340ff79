internal import Foundation
import KeychainCore
import KeychainCrypto
import KeychainJSON
import MicroHTTP
import Synchronization

extension KeychainResponder {
    /// `POST /v1/keychain/backup` (an `admin` token of `*`): the whole keychain as a SQLite
    /// database file, still sealed, in the answer's body.
    ///
    /// The copy is made on the worker pool through SQLite's backup API into a private file in
    /// the data directory (0600, created exclusively), which is unlinked before the answer is
    /// sent: the body goes out from its open descriptor (`HTTPFileBody`, `sendfile`), never
    /// through memory, and the disk space returns when the answer is done. One backup is taken
    /// at a time; another asked meanwhile is errSecNotAvailable (503). The answer counts
    /// as one carrying secrets, so with an audit log it is sent only once its line is written.
    func backup(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        try keychain.requireKeychainAdmin(token, for: "taking a backup")
        for key in try Self.bodyObject(request, allowEmpty: true).keys { throw .param("\(key): unknown key") }
        // One at a time: each writes a whole copy of the database to the data directory's disk.
        guard backupInProgress.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw .notAvailable("backup: another backup is being taken; try again when it is done")
        }
        defer { backupInProgress.store(false, ordering: .releasing) }
        for item in request.head.queryItems where item.name != Self.keychainParameter {
            throw .param("\(item.name): unknown parameter")
        }
        let file = try Self.takeBackup(targetKeychain(request.head, token: token), caller: token)
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
        // Created first, exclusively and never through a link, so that SQLite opens our own file.
        let path = try keychain.newBackupCopy()
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

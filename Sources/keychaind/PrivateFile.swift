import Foundation
import KeychainCrypto

/// A new file this process creates for a secret (a token, a passphrase): mode 0600, opened with
/// `O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC`, so never an existing file, never another user's
/// file and never the target of a symbolic link planted at the path (`O_EXCL` fails on any link,
/// dangling or not, and `O_NOFOLLOW` says so twice).
///
/// Two ways to use it: `init(creating:purpose:)` when an existing file is a mistake to report
/// (`init --admin-token-file`), `replace(_:with:purpose:)` when a rerun rewrites the same path
/// (`serve --dev`'s files): a temporary file beside it, written and fsynced, then `rename(2)`d
/// over the path, which replaces a link itself and never writes through it.
final class PrivateFile {
    let path: String
    private let fd: Int32
    private var closed = false

    /// Creates `path`; refuses with a message naming it when anything is there already.
    init(creating path: String, purpose: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason =
                errno == EEXIST || errno == ELOOP
                ? "it already exists (a file or a symbolic link); keychaind writes only into a file it creates: "
                    + "remove it or name a new one"
                : String(cString: strerror(errno))
            throw FileError("cannot create the \(purpose) \(path): \(reason)")
        }
        self.path = path
        self.fd = fd
        // Exactly 0600 whatever the umask (which can only narrow it).
        fchmod(fd, 0o600)
    }

    deinit { if !closed { close(fd) } }

    /// Writes `text` whole, fsyncs and closes the file.
    func finish(_ text: String) throws {
        try Array(text.utf8).withUnsafeBytes { try append($0) }
        try finish()
    }

    /// Writes `bytes` whole, fsyncs and closes the file.
    func finish(bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
        try finish()
    }

    /// Writes `bytes` whole at the end of what was written so far.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw FileError("cannot write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// Fsyncs and closes the file.
    func finish() throws {
        guard fsync(fd) == 0 else { throw FileError("cannot write \(path): \(String(cString: strerror(errno)))") }
        closed = true
        close(fd)
    }

    /// Removes the file this value created (when what it was for failed).
    func discard() {
        if !closed {
            closed = true
            close(fd)
        }
        unlink(path)
    }

    /// Puts a new 0600 file holding `text` at `path`, replacing whatever is there (a link is
    /// replaced, its target untouched), through a temporary file in the same directory.
    static func replace(_ path: String, with text: String, purpose: String) throws {
        try replace(path, purpose: purpose) { try $0.finish(text) }
    }

    /// Puts a new 0600 file at `path` that `write` fills (and finishes) through the file it is
    /// handed: a temporary file in the same directory, renamed over `path` only once `write`
    /// returned, so that `path` is either what it was or the whole new file. Whatever `write`
    /// throws leaves `path` untouched and removes the temporary file.
    static func replace(_ path: String, purpose: String, write: (PrivateFile) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let file = try PrivateFile(creating: temporaryPath(beside: path), purpose: purpose)
        do { try write(file) } catch {
            file.discard()
            throw error
        }
        guard rename(file.path, path) == 0 else {
            let reason = String(cString: strerror(errno))
            file.discard()
            throw FileError("cannot write the \(purpose) \(path): \(reason)")
        }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    /// A new hidden name in the directory of `path`: `.name.tmp-<random>`.
    static func temporaryPath(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let suffix = Sodium.randomBytes(6).map { String($0, radix: 16) }.joined()
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".tmp-" + suffix
    }
}

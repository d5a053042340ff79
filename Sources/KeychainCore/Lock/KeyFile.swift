internal import Foundation
import KeychainCrypto

/// The instance key file: 32 random bytes, mode 0600, read straight into secure memory.
enum KeyFile {
    static let length = 32

    /// Creates the file exclusively (never overwriting a key, never through a symbolic link: an
    /// existing file or link at `path` is an error) and fsyncs it and its directory.
    static func create(_ path: String) throws(KeychainError) -> SecureBytes {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .notAvailable("instance key file cannot be created at \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let key: SecureBytes
        do { key = try SecureBytes.random(count: length) } catch { throw .notAvailable("secure memory: \(error.message)") }
        let written = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == length, fsync(fd) == 0 else {
            unlink(path)
            throw .notAvailable("instance key file cannot be written at \(path)")
        }
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
        return key
    }

    /// Removes a key file this process created for a keychain it then did not create.
    static func remove(_ path: String) {
        unlink(path)
    }

    /// Reads the key; errSecNotAvailable when missing or of the wrong size.
    static func read(_ path: String) throws(KeychainError) -> SecureBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .notAvailable("instance key file missing or unreadable: \(path)") }
        defer { close(fd) }
        let key: SecureBytes
        do { key = try SecureBytes(count: length) } catch { throw .notAvailable("secure memory: \(error.message)") }
        let count = key.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
        var extra: UInt8 = 0
        guard count == length, Foundation.read(fd, &extra, 1) == 0 else {
            throw .notAvailable("instance key file has the wrong size: \(path)")
        }
        return key
    }
}

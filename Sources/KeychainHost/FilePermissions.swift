internal import Foundation

/// Whether a file keychaind is about to trust could have been read, written or planted by
/// another user of the host.
///
/// The rule, for the data directory, the instance key file, the passphrase files, the database
/// password file and the SQLite database (with its `-wal` and `-shm`):
/// - the owner is this process's user or root (root can read everything anyway, and only root
///   can give a file to root);
/// - group and others have no access at all (no read, no write, no listing);
/// - except that a secret file root owns, for a process that is not root, may be readable by its
///   group, no more (PostgreSQL's rule for its key files): how Kubernetes mounts a secret for a
///   pod with an `fsGroup` (0440, root:fsGroup), a grant only root can make.
///
/// Symbolic links are followed: the target is checked (Docker and Kubernetes secrets are links).
/// A path that does not exist has no problem here: it is created 0600 (0700) by keychaind, or
/// its absence is reported when it is read.
public enum FilePermissions {
    /// What a path is to keychaind; names it in the problem.
    public enum Kind: Sendable, CaseIterable {
        case dataDirectory, keyFile, passphraseFile, databasePasswordFile, databaseFile

        var name: String {
            switch self {
            case .dataDirectory: "data directory"
            case .keyFile: "instance key file"
            case .passphraseFile: "passphrase file"
            case .databasePasswordFile: "database password file"
            case .databaseFile: "database file"
            }
        }

        /// A secret file root owns may be readable by its group.
        var rootMayShareWithGroup: Bool { self == .keyFile || self == .passphraseFile || self == .databasePasswordFile }
    }

    /// A file's owner, permission bits and type, as `stat(2)` reports them for the link's target.
    public struct Status: Sendable, Equatable {
        public var owner: UInt32
        /// The permission bits (`st_mode & 0o7777`).
        public var mode: UInt32
        public var isDirectory: Bool

        public init(owner: UInt32, mode: UInt32, isDirectory: Bool) {
            self.owner = owner
            self.mode = mode
            self.isDirectory = isDirectory
        }

        /// The status of what `path` names (following links); `nil` when nothing is there or it
        /// cannot be looked at (the read that follows says why).
        public init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            self.init(owner: info.st_uid, mode: UInt32(info.st_mode) & 0o7777, isDirectory: (info.st_mode & S_IFMT) == S_IFDIR)
        }
    }

    /// The problem with `path` as a `kind`, naming the path, its mode (octal) and its owner; `nil`
    /// when it is safe or absent.
    public static func check(path: String, kind: Kind) -> String? {
        guard let status = Status(path: path) else { return nil }
        return problem(status, path: path, kind: kind, user: geteuid())
    }

    /// The problem with a file of `status` for a process running as `user`; `nil` when none.
    public static func problem(_ status: Status, path: String, kind: Kind, user: UInt32) -> String? {
        let found = "\(kind.name) \(path) has mode \(octal(status.mode)), owner \(describe(status.owner))"
        if kind == .dataDirectory, !status.isDirectory { return "\(found): it is not a directory" }
        guard status.owner == user || status.owner == 0 else {
            return "\(found): it must be owned by \(describe(user))\(user == 0 ? "" : " or root") (chown it)"
        }
        let allowed: UInt32 = status.owner == 0 && user != 0 && kind.rootMayShareWithGroup ? 0o040 : 0
        guard status.mode & 0o077 & ~allowed == 0 else {
            let rule =
                allowed == 0
                ? "group and others must have no access" : "others must have no access, the group at most read"
            let fix = kind == .dataDirectory ? "0700" : allowed == 0 ? "0600" : "0640"
            return "\(found): \(rule) (chmod \(fix) it)"
        }
        return nil
    }

    /// `0644`: four octal digits.
    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// `uid 65534 (nobody)`, or `uid 4242` when the user has no name.
    static func describe(_ uid: UInt32) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 1024)
        let found = getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0 && result != nil
        return found ? "uid \(uid) (\(String(cString: entry.pw_name)))" : "uid \(uid)"
    }
}

import CLinux
import Foundation

/// Process hardening at start: no core dumps, not ptrace-able by other users' processes, and
/// every file it creates (database, WAL, key file) readable by its owner only.
enum Hardening {
    static func apply() {
        umask(0o077)
        // A file size limit then makes a write fail (EFBIG), which the audit log reports,
        // rather than kill the process.
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        _ = kcd_set_not_dumpable()
    }
}

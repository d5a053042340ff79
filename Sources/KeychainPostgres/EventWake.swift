import Glibc
import Synchronization

/// Wakes the event readers of this process (`PostgresStore.waitForEvents`) when a transaction
/// that appended to their events table commits here: a pipe per store, and a commit writes to
/// every pipe of its table. Other processes learn of events when they are placed (`NOTIFY`).
final class EventWake: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    /// The wakes of each events table, by its qualified name.
    private static let registered = Mutex<[String: [EventWake]]>([:])

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        } else {
            ends = [-1, -1]
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// The descriptor a reader polls; -1 when no pipe could be made (readers then wake on their timeout).
    var descriptor: Int32 { readEnd }

    /// Empties the pipe: the wakes so far are taken.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }

    private func signal() {
        var byte: UInt8 = 1
        // A full pipe already holds a wake.
        _ = write(writeEnd, &byte, 1)
    }

    static func register(_ wake: EventWake, table: String) {
        registered.withLock { $0[table, default: []].append(wake) }
    }

    static func unregister(_ wake: EventWake, table: String) {
        registered.withLock { $0[table]?.removeAll { $0 === wake } }
    }

    /// Wakes every reader of `table` in this process.
    static func signal(table: String) {
        for wake in registered.withLock({ $0[table] ?? [] }) { wake.signal() }
    }
}

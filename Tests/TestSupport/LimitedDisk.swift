import Foundation
import Synchronization

/// A disk with room for a set number of bytes, as a stand-in for `write(2)` (`AuditLog`'s
/// write function): a write past the room writes what fits and returns that count, and the
/// next fails with ENOSPC, as `write(2)` does when a file system fills mid-write.
public final class LimitedDisk: Sendable {
    private let room = Atomic<Int>(.max)

    public init() {}

    /// Room for `bytes` more bytes from now on.
    public func fill(leaving bytes: Int = 0) { room.store(bytes, ordering: .sequentiallyConsistent) }

    /// Room again for every write.
    public func free() { room.store(.max, ordering: .sequentiallyConsistent) }

    /// `write(2)` of `count` bytes to `fd`, within the room left.
    public func write(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        let allowed = min(count, room.load(ordering: .sequentiallyConsistent))
        guard allowed > 0 else {
            errno = ENOSPC
            return -1
        }
        let written = Foundation.write(fd, bytes, allowed)
        if written > 0 { room.wrappingSubtract(written, ordering: .sequentiallyConsistent) }
        return written
    }
}

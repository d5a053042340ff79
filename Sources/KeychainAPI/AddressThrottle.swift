import Glibc
import KeychainCore
import MicroHTTP
import Synchronization

/// Unlock attempts per client address, on Apple's ladder, in a table of fixed size.
///
/// Every attempt is counted as a failure when it is let through (`admit`) and the count is
/// cleared when it succeeds (`succeeded`): an attempt whose outcome is lost (an abort, a store
/// that cannot record it) still counts. One address's sixth attempt meets the ladder, while the
/// keychain's own budget (`UnlockThrottle.freeFailures`) is shared by every address: failures
/// from other addresses cannot make the right passphrase wait, up to that budget.
///
/// Every call is O(1): entries sit in a dictionary and on a list ordered by when their address
/// was last seen (refused attempts too, so that an address held back stays held), so the least
/// recent is dropped when the table is full and entries unseen for a day are dropped from the
/// list's tail as calls go by, never by a scan. A dropped address starts again from zero;
/// the keychain's budget bounds what an attacker gains by flooding the table.
final class AddressThrottle: Sendable {
    /// `delaySeconds`'s `free` for one address: five failures go unthrottled, the sixth attempt waits.
    static let freeFailures = 4
    /// An address's count is forgotten this long after it was last seen.
    static let forgetMilliseconds: Int64 = 24 * 3_600_000

    private let table: Mutex<Table>

    init(capacity: Int = 16_384) {
        table = Mutex(Table(capacity: capacity))
    }

    /// `nil` when `address` may try now (and the attempt is counted), else the seconds to wait.
    func admit(_ address: String, now: Int64) -> Int? {
        let key = Self.key(address)
        return table.withLock { table in
            table.forget(before: now - Self.forgetMilliseconds)
            var entry = table.entry(key) ?? Entry(failures: 0, last: now, seen: now)
            entry.seen = now
            let delay = Int64(UnlockThrottle.delaySeconds(afterFailures: entry.failures, free: Self.freeFailures)) * 1000
            if delay > 0, entry.last + delay > now {
                table.set(key, entry)
                return Int((entry.last + delay - now + 999) / 1000)
            }
            entry.failures += 1
            entry.last = now
            table.set(key, entry)
            return nil
        }
    }

    /// The address's attempt was the right passphrase: its count starts again.
    func succeeded(_ address: String) {
        let key = Self.key(address)
        table.withLock { $0.remove(key) }
    }

    var count: Int { table.withLock { $0.count } }

    /// The table's key: an IPv4 address as it is, an IPv6 address by its /64 prefix (one host
    /// usually holds a whole /64, so counting single IPv6 addresses would count nothing). An
    /// IPv4-mapped address (`::ffff:a.b.c.d`) is its IPv4 address: the IPv4 clients of a
    /// dual-stack proxy would otherwise all share `::ffff:0:0/64`.
    static func key(_ address: String) -> String {
        let address = IPAddressText.canonical(address)
        guard address.contains(":") else { return address }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        return "v6/64:" + bytes[0..<8].map { String($0, radix: 16) }.joined(separator: ".")
    }

    struct Entry {
        var failures: Int
        /// Wall-clock ms of the last attempt let through.
        var last: Int64
        /// Wall-clock ms of the last call for the address, let through or not.
        var seen: Int64
    }

    /// A dictionary of slots and a doubly linked list through them, most recent first.
    struct Table {
        private struct Slot {
            var key: String
            var entry: Entry
            var newer: Int
            var older: Int
        }

        private let capacity: Int
        private var index: [String: Int] = [:]
        private var slots: [Slot] = []
        private var free: [Int] = []
        /// Most and least recent slots; -1 when empty.
        private var newest = -1
        private var oldest = -1

        init(capacity: Int) {
            self.capacity = max(1, capacity)
        }

        var count: Int { index.count }

        func entry(_ key: String) -> Entry? { index[key].map { slots[$0].entry } }

        /// Stores `entry` as the most recent, dropping the least recent when full.
        mutating func set(_ key: String, _ entry: Entry) {
            if let slot = index[key] {
                slots[slot].entry = entry
                unlink(slot)
                pushNewest(slot)
                return
            }
            if index.count >= capacity { remove(slots[oldest].key) }
            let slot: Int
            if let reused = free.popLast() {
                slot = reused
                slots[slot] = Slot(key: key, entry: entry, newer: -1, older: -1)
            } else {
                slot = slots.count
                slots.append(Slot(key: key, entry: entry, newer: -1, older: -1))
            }
            index[key] = slot
            pushNewest(slot)
        }

        mutating func remove(_ key: String) {
            guard let slot = index.removeValue(forKey: key) else { return }
            unlink(slot)
            slots[slot].key = ""
            free.append(slot)
        }

        /// Drops entries last seen before `cutoff`, from the least recent: each entry is
        /// dropped once, so the work is paid for by the calls that added them.
        mutating func forget(before cutoff: Int64) {
            while oldest >= 0, slots[oldest].entry.seen < cutoff { remove(slots[oldest].key) }
        }

        private mutating func unlink(_ slot: Int) {
            let (newer, older) = (slots[slot].newer, slots[slot].older)
            if newer >= 0 { slots[newer].older = older } else { newest = older }
            if older >= 0 { slots[older].newer = newer } else { oldest = newer }
            slots[slot].newer = -1
            slots[slot].older = -1
        }

        private mutating func pushNewest(_ slot: Int) {
            slots[slot].older = newest
            slots[slot].newer = -1
            if newest >= 0 { slots[newest].newer = slot } else { oldest = slot }
            newest = slot
        }
    }
}

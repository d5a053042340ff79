import Dispatch
import Foundation
import KeychainStorage
import Logging
import Synchronization

/// Which keychain opens a stored event: the pump's owner by default; on a server of several
/// keychains, the one the event names (`Keychains`).
final class EventOpener: Sendable {
    private let open = CallbackSlot<StoredEvent, KeychainEvent?>()

    func set(_ body: @escaping @Sendable (StoredEvent) -> KeychainEvent?) { open.set(body) }

    func callAsFunction(_ stored: StoredEvent) -> KeychainEvent? { open(stored) ?? nil }
}

/// Reads the log every replica shares (`SharedEventLog`) into this process's history
/// (`KeychainEvents`, shared), on a thread of its own: first the newest `capacity` events, then
/// each one placed, as a commit here or a notification wakes it. It places the events it can
/// (as every replica's pump does), and trims the log to the history's size as it goes.
final class EventPump: Sendable {
    private let log: any SharedEventLog
    private let events: KeychainEvents
    private let open: @Sendable (StoredEvent) -> KeychainEvent?
    private let logger: Logger
    private let stopped = Atomic<Bool>(false)

    /// How long a wait for the next notification lasts before the log is read anyway.
    static let waitMilliseconds = 1000
    /// How often the log is trimmed, in milliseconds.
    static let trimMilliseconds: Int64 = 10_000

    init(
        log: any SharedEventLog, events: KeychainEvents, logger: Logger,
        open: @escaping @Sendable (StoredEvent) -> KeychainEvent?
    ) {
        self.log = log
        self.events = events
        self.open = open
        self.logger = logger
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "keychaind-events"
        thread.start()
    }

    /// Stops the thread at the end of its wait (its store closing ends the wait at once).
    func stop() {
        stopped.store(true, ordering: .releasing)
    }

    private func run() {
        // The log's sequence read through; nil until the history's start is known.
        var readThrough: UInt64?
        var lastTrim = DispatchTime.now().uptimeNanoseconds
        var lastWarning: UInt64 = 0
        while !stopped.load(ordering: .acquiring) {
            do {
                if readThrough == nil {
                    let newest = try log.lastEventSequence()
                    let from = newest > UInt64(events.capacity) ? newest - UInt64(events.capacity) : 0
                    events.startShared(after: from)
                    readThrough = from
                }
                try log.placeEvents()
                readThrough = try drain(after: readThrough!)
                try log.waitForEvents(timeoutMilliseconds: Self.waitMilliseconds)
                let now = DispatchTime.now().uptimeNanoseconds
                if now - lastTrim >= UInt64(Self.trimMilliseconds) * 1_000_000 {
                    lastTrim = now
                    try log.trimEvents(keeping: events.capacity)
                }
            } catch {
                if stopped.load(ordering: .acquiring) { return }
                let now = DispatchTime.now().uptimeNanoseconds
                if now - lastWarning >= 10_000_000_000 {
                    lastWarning = now
                    logger.warning("the shared events cannot be read", metadata: ["error": "\(error.message)"])
                }
                // The database is out of reach: try again in a while, not in a loop.
                Thread.sleep(forTimeInterval: Double(Self.waitMilliseconds) / 1000)
            }
        }
    }

    /// Publishes every event after `sequence`; the sequence read through.
    private func drain(after sequence: UInt64) throws(StorageError) -> UInt64 {
        let page = 1000
        var last = sequence
        while true {
            let rows = try log.events(after: last, limit: page)
            for row in rows {
                // One that does not open (its keychain deleted meanwhile) is a gap.
                if let event = open(row.event) { events.publish(event, stored: row.sequence, appended: row.appended) }
                last = row.sequence
            }
            if rows.count < page { return last }
        }
    }
}

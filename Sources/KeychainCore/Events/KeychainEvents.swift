import Dispatch
import Synchronization

/// One keychain event, named as Keychain Services names its callbacks' events.
public struct KeychainEvent: Sendable, Equatable {
    public enum Name: String, Sendable {
        case lock, unlock, add, update, delete, passwordChanged, keychainListChanged, tokenRevoked
    }

    /// Its place in the stream: `"<epoch>-<sequence>"` (see `KeychainEvents`).
    public var id: String
    public var name: Name
    /// The keychain's name.
    public var keychain: String
    /// Milliseconds since 1970.
    public var time: Int64
    /// An item event's item: its class, access group and persistent reference (16 bytes).
    public var itemClass: ItemClass?
    public var accessGroup: String?
    public var persistentRef: [UInt8]?
    /// A `tokenRevoked` event's token id: only that token's subscribers see it.
    public var tokenID: String?

    /// An event; `id` is assigned when it is published.
    public init(
        id: String = "", name: Name, keychain: String, time: Int64, itemClass: ItemClass? = nil, accessGroup: String? = nil,
        persistentRef: [UInt8]? = nil, tokenID: String? = nil
    ) {
        self.id = id
        self.name = name
        self.keychain = keychain
        self.time = time
        self.itemClass = itemClass
        self.accessGroup = accessGroup
        self.persistentRef = persistentRef
        self.tokenID = tokenID
    }

    /// Whether `token` may see it: an item event when the token may list or read in the item's
    /// group; a revocation by the token revoked; the others by any token that may use their keychain.
    public func isVisible(to token: AccessToken) -> Bool {
        if let tokenID { return tokenID == token.id }
        // A keychain the token may not use sends it nothing, as if it did not exist.
        guard token.mayUse(keychain: keychain) else { return false }
        if let group = accessGroup { return token.grants(group: group) && (token.has(.list) || token.has(.read)) }
        return true
    }
}

/// The keychain's events, kept in a bounded history that subscribers read from, each at its own
/// place: a subscriber costs its place, not a queue, and a writer never waits for one.
///
/// Events are kept only while someone subscribes: with none, nothing is recorded (an item
/// event costs nothing), and the history starts again at the next subscription. A subscriber
/// resuming from an id the history no longer covers (older than its oldest event, from before
/// a gap without subscribers, or from another process: ids carry this process's epoch) is
/// told to start over (`Batch.reset`), as is one that falls a whole history behind.
///
/// Shared (`init(capacity:sharedEpoch:)`): the events are those of the log every replica reads
/// (`SharedEventLog`), each published here under its sequence there (`publish(_:stored:)`) and
/// always recorded, so that an id of one replica's stream resumes on any other.
public final class KeychainEvents: Sendable {
    /// Events kept.
    public let capacity: Int
    /// This history's epoch: random, so that ids of another process or run never match; or
    /// the shared log's, the same on every replica.
    public let epoch: String
    /// Whether the events are the shared log's (ids are its sequences).
    public let isShared: Bool
    private let state: Mutex<State>

    private struct State {
        /// The history, oldest first: events `first ..< first + events.count`; `nil` for a
        /// sequence of the shared log that holds no event (its transaction rolled back).
        var events: [KeychainEvent?] = []
        var start = 0
        /// The sequence of the oldest event kept; the next event is `next`.
        var first: UInt64 = 1
        var next: UInt64 = 1
        /// The first sequence the history covers without a gap (events before a time without
        /// subscribers were not recorded).
        var coveredFrom: UInt64 = 1
        var subscribers: [ObjectIdentifier: Subscription] = [:]
        /// Waits for subscribers to have an event handed over (`awaitDelivery`); on a shared
        /// history, one whose event is not placed yet waits by its append sequence.
        var deliveryWaiters: [(sequence: UInt64?, appended: UInt64?, semaphore: DispatchSemaphore)] = []
        /// Shared: the sequence of each recent event, by the sequence its append answered.
        var placed: [UInt64: UInt64] = [:]
    }

    public init(capacity: Int = 10_000, sharedEpoch: String? = nil) {
        precondition(capacity > 0, "capacity must be positive")
        self.capacity = capacity
        epoch = sharedEpoch ?? String(UInt64.random(in: 1...UInt64.max) & 0xFFFF_FFFF_FFFF, radix: 36)
        isShared = sharedEpoch != nil
        state = Mutex(State())
    }

    /// Whether anyone subscribes: callers skip making an event nobody would see.
    /// One atomic load, no lock: every write asks.
    public var hasSubscribers: Bool { subscribed.load(ordering: .relaxed) > 0 }
    /// How many subscribe, kept beside `State.subscribers` (written under its lock).
    private let subscribed = Atomic<Int>(0)

    /// Records `event` (its id assigned here) and wakes every subscriber; nothing without
    /// subscribers. Returns its sequence, or nil when it was not recorded.
    @discardableResult
    public func publish(_ event: KeychainEvent) -> UInt64? {
        let (sequence, subscribers) = state.withLock { state -> (UInt64?, [Subscription]) in
            guard !state.subscribers.isEmpty else { return (nil, []) }
            let sequence = state.next
            var event = event
            event.id = Self.id(epoch, sequence)
            append(event, to: &state)
            return (sequence, Array(state.subscribers.values))
        }
        for subscriber in subscribers { subscriber.wake() }
        return sequence
    }

    /// Records the shared log's event at position `stored` (shared only), whoever subscribes: a
    /// position whose event does not open here is a gap no subscriber sees. An event older than
    /// the newest recorded is one already recorded, and ignored. `appended` is the sequence its
    /// append answered, which a delivery may be awaited by.
    public func publish(_ event: KeychainEvent, stored: UInt64, appended: UInt64? = nil) {
        precondition(isShared, "only a shared history records the log's events")
        let (subscribers, released) = state.withLock { state -> ([Subscription], [DispatchSemaphore]) in
            guard stored >= state.next else { return ([], []) }
            if let appended {
                if state.placed.count >= 2 * capacity { state.placed = state.placed.filter { $0.value >= state.first } }
                state.placed[appended] = stored
                for n in state.deliveryWaiters.indices where state.deliveryWaiters[n].appended == appended {
                    state.deliveryWaiters[n].sequence = stored
                }
            }
            if stored - state.next >= UInt64(capacity) {
                // Further on than the history holds: it starts over there.
                state.events = []
                state.start = 0
                state.first = stored
                state.next = stored
                state.coveredFrom = max(state.coveredFrom, stored)
            }
            while state.next < stored { append(nil, to: &state) }
            var event = event
            event.id = Self.id(epoch, stored)
            append(event, to: &state)
            // A waiter whose subscribers all left has nothing more to wait for.
            return (Array(state.subscribers.values), state.subscribers.isEmpty ? Self.takeReady(&state) : [])
        }
        for semaphore in released { semaphore.signal() }
        for subscriber in subscribers { subscriber.wake() }
    }

    /// Where the shared history starts (the log's sequence after which it was read): an id
    /// before it is not covered.
    public func startShared(after sequence: UInt64) {
        state.withLock { state in
            guard state.events.isEmpty else { return }
            state.first = sequence + 1
            state.next = sequence + 1
            state.coveredFrom = sequence + 1
        }
    }

    /// Appends to the ring, dropping the oldest when full.
    private func append(_ event: KeychainEvent?, to state: inout State) {
        if state.events.count < capacity {
            state.events.append(event)
        } else {
            state.events[state.start] = event
            state.start = (state.start + 1) % capacity
            state.first += 1
            state.coveredFrom = max(state.coveredFrom, state.first)
        }
        state.next += 1
    }

    /// A subscription that reads the events after `lastEventID` (a `Last-Event-ID`), or, with
    /// none, those published from now on, for the token `tokenID` (nil: none, in tests). `wake`
    /// is called whenever there may be more to read.
    public func subscribe(after lastEventID: String?, tokenID: String? = nil, wake: @escaping @Sendable () -> Void)
        -> Subscription
    {
        state.withLock { state in
            if state.subscribers.isEmpty, !isShared {
                // Nothing was recorded without subscribers: the history starts over here.
                state.events = []
                state.start = 0
                state.first = state.next
                state.coveredFrom = state.next
            }
            let resumes = lastEventID.flatMap { Self.sequence(of: $0, epoch: epoch) }
            let cursor: UInt64
            let reset: Bool
            if let lastEventID, !lastEventID.isEmpty {
                if let resumes, resumes + 1 >= max(state.first, state.coveredFrom), resumes < state.next {
                    (cursor, reset) = (resumes + 1, false)
                } else if let resumes, isShared, resumes >= state.next, resumes - state.next < UInt64(capacity) {
                    // An id another replica gave out before this one has read its event: the
                    // events up to it are skipped as they arrive.
                    (cursor, reset) = (resumes + 1, false)
                } else {
                    (cursor, reset) = (state.next, true)
                }
            } else {
                (cursor, reset) = (state.next, false)
            }
            let subscription = Subscription(events: self, cursor: cursor, reset: reset, tokenID: tokenID, wake: wake)
            state.subscribers[ObjectIdentifier(subscription)] = subscription
            subscribed.store(state.subscribers.count, ordering: .relaxed)
            return subscription
        }
    }

    /// Waits until every subscriber has handed the event of `sequence` to its client (or been
    /// cut off), at most `timeoutMilliseconds`: a lock's answer follows its event. `sequence` is
    /// what `publish` answered, or on a shared history what the event's append answered (the
    /// wait then includes its placing and reading back). Returns whether all did.
    @discardableResult
    public func awaitDelivery(of sequence: UInt64, timeoutMilliseconds: Int) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let done = state.withLock { state -> Bool in
            let position = isShared ? state.placed[sequence] : sequence
            if state.subscribers.isEmpty { return true }
            if let position, Self.allDelivered(position, state) { return true }
            state.deliveryWaiters.append((position, isShared ? sequence : nil, semaphore))
            return false
        }
        if done { return true }
        let delivered = semaphore.wait(timeout: .now() + .milliseconds(timeoutMilliseconds)) == .success
        if !delivered {
            state.withLock { state in state.deliveryWaiters.removeAll { $0.semaphore === semaphore } }
        }
        return delivered
    }

    /// Wakes every subscriber (their streams send a keep-alive when due).
    public func wakeAll() {
        for subscriber in state.withLock({ Array($0.subscribers.values) }) { subscriber.wake() }
    }

    /// How often `tick` wakes every subscriber, in milliseconds.
    public static let wakeMilliseconds: Int64 = 5_000
    private let lastWake = Atomic<Int64>(0)

    /// The server's housekeeping tick (monotonic ms): wakes every subscriber every
    /// `wakeMilliseconds`, so that an idle stream sends its keep-alive.
    public func tick(uptime: Int64) {
        guard uptime - lastWake.load(ordering: .relaxed) >= Self.wakeMilliseconds else { return }
        lastWake.store(uptime, ordering: .relaxed)
        wakeAll()
    }

    /// Tokens were revoked somewhere (another replica: a revocation is told by a count, not by
    /// name): the subscriptions of tokens not in `live` are told their token's revocation, at
    /// `time` (ms since 1970).
    public func tokensRevoked(live: Set<String>, at time: Int64) {
        let gone = state.withLock { state in state.subscribers.values.filter { $0.tokenID.map { !live.contains($0) } ?? false } }
        for subscription in gone { subscription.revoke(at: time) }
    }

    /// How many subscribe now.
    public var subscriberCount: Int { subscribed.load(ordering: .relaxed) }

    /// How many events were recorded since the start.
    public var publishedCount: UInt64 { state.withLock { $0.next - 1 } }

    // MARK: for subscriptions

    /// The events from `cursor` on (at most `limit`), with the sequence to read from next; or,
    /// when `cursor` has fallen out of the history, `.behind` with its oldest event's sequence.
    fileprivate func read(from cursor: UInt64, limit: Int) -> Read {
        state.withLock { state in
            guard cursor >= state.first else { return .behind(oldest: state.first) }
            guard cursor < state.next else { return .events([], next: cursor) }
            let available = Int(state.next - cursor)
            let count = min(available, limit)
            var events: [KeychainEvent] = []
            events.reserveCapacity(count)
            for offset in 0..<count {
                let index = Int(cursor - state.first) + offset
                if let event = state.events[(state.start + index) % state.events.count] { events.append(event) }
            }
            return .events(events, next: cursor + UInt64(count))
        }
    }

    fileprivate enum Read {
        case events([KeychainEvent], next: UInt64)
        case behind(oldest: UInt64)
    }

    fileprivate func delivered(_ subscription: Subscription) {
        let ready = state.withLock { state in Self.takeReady(&state) }
        for semaphore in ready { semaphore.signal() }
    }

    /// The waiters whose event every subscriber has handed over, taken out of the list.
    private static func takeReady(_ state: inout State) -> [DispatchSemaphore] {
        guard !state.deliveryWaiters.isEmpty else { return [] }
        let ready = state.deliveryWaiters.filter { waiter in waiter.sequence.map { allDelivered($0, state) } ?? false }
        state.deliveryWaiters.removeAll { waiter in ready.contains { $0.semaphore === waiter.semaphore } }
        return ready.map(\.semaphore)
    }

    fileprivate func remove(_ subscription: Subscription) {
        state.withLock { state in
            state.subscribers.removeValue(forKey: ObjectIdentifier(subscription))
            subscribed.store(state.subscribers.count, ordering: .relaxed)
        }
        delivered(subscription)
    }

    private static func allDelivered(_ sequence: UInt64, _ state: State) -> Bool {
        // An atomic read each: no subscription's lock is taken under this one.
        state.subscribers.values.allSatisfy { $0.deliveredThrough >= sequence }
    }

    static func id(_ epoch: String, _ sequence: UInt64) -> String { "\(epoch)-\(sequence)" }

    /// The sequence of an id of this epoch; nil for another epoch's or a malformed one.
    static func sequence(of id: String, epoch: String) -> UInt64? {
        guard id.utf8.count <= 64, let dash = id.lastIndex(of: "-"), id[..<dash] == epoch else { return nil }
        return UInt64(id[id.index(after: dash)...])
    }
}

/// One subscriber's place in the events. Its reader takes what is new (`next`) and says when
/// it handed it over (`handedOver`); `cancel` when the subscriber leaves.
public final class Subscription: Sendable {
    private let events: KeychainEvents
    private let wakeUp: @Sendable () -> Void
    private let place: Mutex<Place>
    /// The last sequence handed over (`UInt64.max` once cancelled), read under the events' lock.
    private let delivered: Atomic<UInt64>
    /// The subscriber's token.
    let tokenID: String?

    private struct Place {
        var cursor: UInt64
        /// A reset is due before the next events.
        var reset: Bool
        /// The token was revoked elsewhere, at this time: its revocation is due.
        var revoked: Int64?
    }

    fileprivate init(
        events: KeychainEvents, cursor: UInt64, reset: Bool, tokenID: String?, wake: @escaping @Sendable () -> Void
    ) {
        self.events = events
        wakeUp = wake
        self.tokenID = tokenID
        place = Mutex(Place(cursor: cursor, reset: reset))
        delivered = Atomic(cursor - 1)
    }

    /// What there is to send.
    public enum Batch: Sendable, Equatable {
        /// These events, oldest first (none: nothing new).
        case events([KeychainEvent])
        /// The subscriber missed events: it must drop what it cached; `id` is the place it goes
        /// on from (the events that follow come after it). `fellBehind`: it was a whole history
        /// behind (a slow reader), rather than resuming from an id not covered.
        case reset(id: String, fellBehind: Bool)
    }

    /// The events after the last batch, at most `limit`: a `reset` first when the subscription
    /// resumed from an id the history does not cover, or fell out of it.
    public func next(limit: Int = 256) -> Batch {
        place.withLock { place in
            if let time = place.revoked {
                place.revoked = nil
                return .events([
                    KeychainEvent(
                        id: KeychainEvents.id(events.epoch, place.cursor - 1), name: .tokenRevoked,
                        keychain: KeychainName.default,
                        time: time, tokenID: tokenID)
                ])
            }
            if place.reset {
                place.reset = false
                return .reset(id: KeychainEvents.id(events.epoch, place.cursor - 1), fellBehind: false)
            }
            switch events.read(from: place.cursor, limit: limit) {
            case .events(let batch, let next):
                place.cursor = next
                return .events(batch)
            case .behind(let oldest):
                place.cursor = oldest
                return .reset(id: KeychainEvents.id(events.epoch, oldest - 1), fellBehind: true)
            }
        }
    }

    /// What `next` gave has reached the client (the transport asked for more after it).
    public func handedOver() {
        let through = place.withLock { $0.cursor - 1 }
        guard delivered.load(ordering: .acquiring) != .max,
            delivered.exchange(through, ordering: .acquiringAndReleasing) != through
        else {
            return
        }
        events.delivered(self)
    }

    /// The last sequence the subscriber has been handed (cancelled: all of them).
    var deliveredThrough: UInt64 { delivered.load(ordering: .acquiring) }

    /// The subscriber left: its place is dropped and nothing waits for it.
    public func cancel() {
        guard delivered.exchange(.max, ordering: .acquiringAndReleasing) != .max else { return }
        events.remove(self)
    }

    func wake() { wakeUp() }

    /// Its token was revoked at `time`: the next batch says so.
    func revoke(at time: Int64) {
        place.withLock { $0.revoked = time }
        wake()
    }
}

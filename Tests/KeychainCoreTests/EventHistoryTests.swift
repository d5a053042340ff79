import KeychainCore
import KeychainStorage
import Synchronization
import Testing

/// `KeychainEvents`: the bounded history subscribers read at their own place, resumption,
/// resets, and waiting for delivery.
@Suite struct EventHistoryTests {
    static func event(_ name: KeychainEvent.Name = .lock) -> KeychainEvent {
        KeychainEvent(name: name, keychain: "default", time: 0)
    }

    static func names(_ batch: Subscription.Batch) -> [String] {
        guard case .events(let events) = batch else { return ["reset"] }
        return events.map(\.name.rawValue)
    }

    @Test func nothingIsRecordedWithoutSubscribers() {
        let events = KeychainEvents(capacity: 8)
        #expect(events.publish(Self.event()) == nil)
        let subscription = events.subscribe(after: nil) {}
        #expect(Self.names(subscription.next()) == [], "what came before the subscription is not in it")
        #expect(events.publish(Self.event(.unlock)) != nil)
        #expect(Self.names(subscription.next()) == ["unlock"])
        subscription.cancel()
        #expect(events.subscriberCount == 0)
    }

    @Test func aPublishWakesEverySubscriberAndEachReadsAtItsOwnPlace() {
        let events = KeychainEvents(capacity: 8)
        let wakes = Mutex(0)
        let first = events.subscribe(after: nil) { wakes.withLock { $0 += 1 } }
        events.publish(Self.event(.lock))
        let second = events.subscribe(after: nil) { wakes.withLock { $0 += 1 } }
        events.publish(Self.event(.unlock))
        #expect(wakes.withLock { $0 } == 3)
        #expect(Self.names(first.next()) == ["lock", "unlock"])
        #expect(Self.names(second.next()) == ["unlock"])
        #expect(Self.names(first.next()) == [])
    }

    @Test func resumingFromAnIDGivesWhatFollowsItAndAnIDNotCoveredAReset() throws {
        let events = KeychainEvents(capacity: 4)
        let keeper = events.subscribe(after: nil) {}
        for _ in 0..<3 { events.publish(Self.event()) }
        guard case .events(let published) = keeper.next() else {
            Issue.record("no events")
            return
        }
        let resumed = events.subscribe(after: published[0].id) {}
        #expect(resumed.next() == .events(Array(published.dropFirst())))
        let foreign = events.subscribe(after: "otherepoch-2") {}
        #expect(foreign.next() == .reset(id: published[2].id, fellBehind: false))
        // Fallen out of the history: four more events push the first three out.
        for _ in 0..<4 { events.publish(Self.event()) }
        let stale = events.subscribe(after: published[1].id) {}
        guard case .reset(_, false) = stale.next() else {
            Issue.record("no reset")
            return
        }
    }

    @Test func aSubscriberAWholeHistoryBehindIsToldItFellBehind() {
        let events = KeychainEvents(capacity: 2)
        let slow = events.subscribe(after: nil) {}
        for _ in 0..<3 { events.publish(Self.event()) }
        guard case .reset(_, let fellBehind) = slow.next() else {
            Issue.record("no reset")
            return
        }
        #expect(fellBehind)
        #expect(Self.names(slow.next()) == ["lock", "lock"], "it goes on from the oldest event kept")
    }

    @Test func deliveryIsAwaitedUntilEverySubscriberWasHandedTheEvent() {
        let events = KeychainEvents(capacity: 8)
        let reading = events.subscribe(after: nil) {}
        let leaving = events.subscribe(after: nil) {}
        let sequence = events.publish(Self.event())!
        #expect(!events.awaitDelivery(of: sequence, timeoutMilliseconds: 0), "nobody was handed it yet")
        _ = reading.next()
        #expect(!events.awaitDelivery(of: sequence, timeoutMilliseconds: 0), "read, but not handed over yet")
        reading.handedOver()
        #expect(!events.awaitDelivery(of: sequence, timeoutMilliseconds: 0), "one subscriber still has not")
        leaving.cancel()
        #expect(events.awaitDelivery(of: sequence, timeoutMilliseconds: 0), "a subscriber gone is not waited for")
    }
}

/// A function kept for other threads to call stays one function however often it is called:
/// kept in a `Mutex` directly, each read wrapped it once more, until a call overflowed the stack
/// (a replica's event reader, after some 80,000 events).
@Suite struct CallbackSlotTests {
    @Test func aSlotCalledAMillionTimesStillAnswers() {
        let slot = CallbackSlot<StoredEvent, Int>()
        #expect(slot(StoredEvent(keychain: "default", sealed: [])) == nil, "nothing before set")
        slot.set { $0.sealed.count }
        var total = 0
        for n in 0..<1_000_000 { total &+= slot(StoredEvent(keychain: "default", sealed: [UInt8(n & 0xFF)])) ?? 0 }
        #expect(total == 1_000_000)
    }
}

import KeychainBarrier
import KeychainStorage

/// The keychain's events (`KeychainEvents`), made where what they report happens: only while
/// someone subscribes, so that an item event costs nothing otherwise.
extension Keychain {
    /// Publishes a keychain event (lock, unlock, passwordChanged, tokenRevoked); its sequence,
    /// or nil when nobody subscribes.
    @discardableResult
    func publish(_ name: KeychainEvent.Name, tokenID: String? = nil) -> UInt64? {
        guard events.hasSubscribers else { return nil }
        return events.publish(KeychainEvent(name: name, keychain: self.name, time: clock.now(), tokenID: tokenID))
    }

    /// Publishes an item event for a decoded item.
    func publish(_ name: KeychainEvent.Name, item: DecodedItem) {
        publish(name, itemClass: item.itemClass, group: item.group, ref: item.record.ref)
    }

    func publish(_ name: KeychainEvent.Name, itemClass: ItemClass, group: String, ref: [UInt8]) {
        guard events.hasSubscribers else { return }
        events.publish(
            KeychainEvent(
                name: name, keychain: self.name, time: clock.now(), itemClass: itemClass, accessGroup: group,
                persistentRef: ref))
    }

    /// Publishes an item event for each record, their attributes opened for their group only
    /// when someone subscribes; a record whose attributes do not open is left out.
    func publish(_ name: KeychainEvent.Name, records: [ItemRecord], barrier: Barrier) {
        guard events.hasSubscribers else { return }
        for record in records {
            guard let item = try? DecodedItem(record, barrier: barrier) else { continue }
            publish(name, item: item)
        }
    }
}

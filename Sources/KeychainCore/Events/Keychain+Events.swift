import KeychainBarrier
import KeychainCrypto
import KeychainStorage

/// The keychain's events (`KeychainEvents`), made where what they report happens: only while
/// someone subscribes, so that an item event costs nothing otherwise. On a shared store they
/// are logged instead, in the transactions that make them (`log`), and every replica's event
/// pump publishes them (`Keychains`).
extension Keychain {
    /// Publishes a keychain event (lock, unlock, passwordChanged, tokenRevoked); its sequence,
    /// or nil when nobody subscribes.
    @discardableResult
    func publish(_ name: KeychainEvent.Name, tokenID: String? = nil) -> UInt64? {
        guard !logsEvents, events.hasSubscribers else { return nil }
        return events.publish(KeychainEvent(name: name, keychain: self.name, time: clock.now(), tokenID: tokenID))
    }

    /// Publishes an item event for a decoded item.
    func publish(_ name: KeychainEvent.Name, item: DecodedItem) {
        publish(name, itemClass: item.itemClass, group: item.group, ref: item.record.ref)
    }

    func publish(_ name: KeychainEvent.Name, itemClass: ItemClass, group: String, ref: [UInt8]) {
        guard !logsEvents, events.hasSubscribers else { return }
        events.publish(
            KeychainEvent(
                name: name, keychain: self.name, time: clock.now(), itemClass: itemClass, accessGroup: group,
                persistentRef: ref))
    }

    /// Publishes an item event for each record, their attributes opened for their group only
    /// when someone subscribes; a record whose attributes do not open is left out.
    func publish(_ name: KeychainEvent.Name, records: [ItemRecord], barrier: Barrier) {
        guard !logsEvents, events.hasSubscribers else { return }
        for record in records {
            guard let item = try? DecodedItem(record, barrier: barrier) else { continue }
            publish(name, item: item)
        }
    }
}

// MARK: the events every replica reads

extension KeychainEvent {
    /// The event's fields but its id, as `SealedEncoding`.
    func encoded() -> [UInt8] {
        var writer = SealedEncoding.Writer()
        writer.append(name.rawValue)
        writer.append(keychain)
        writer.append(time)
        writer.append(UInt32(truncatingIfNeeded: itemClass.map { Int($0.rawValue) + 1 } ?? 0))
        writer.append(byte: (accessGroup == nil ? 0 : 1) | (persistentRef == nil ? 0 : 2) | (tokenID == nil ? 0 : 4))
        if let accessGroup { writer.append(accessGroup) }
        if let persistentRef { writer.append(bytes: persistentRef) }
        if let tokenID { writer.append(tokenID) }
        return writer.bytes
    }

    /// The event `encoded()` wrote; nil for bytes that are not one.
    init?(decoding bytes: [UInt8]) {
        guard var reader = SealedEncoding.Reader(bytes), let raw = reader.string(), let name = Name(rawValue: raw),
            let keychain = reader.string(), let high = reader.uint32(), let low = reader.uint32(),
            let classCode = reader.uint32(), let present = reader.byte()
        else { return nil }
        self.init(name: name, keychain: keychain, time: Int64(bitPattern: UInt64(high) << 32 | UInt64(low)))
        if classCode > 0 {
            guard let itemClass = ItemClass(rawValue: Int(classCode) - 1) else { return nil }
            self.itemClass = itemClass
        }
        if present & 1 != 0 {
            guard let group = reader.string() else { return nil }
            accessGroup = group
        }
        if present & 2 != 0 {
            guard let ref = reader.byteString() else { return nil }
            persistentRef = ref
        }
        if present & 4 != 0 {
            guard let token = reader.string() else { return nil }
            tokenID = token
        }
        guard reader.isAtEnd else { return nil }
    }
}

extension Keychain {
    /// Whether this keychain's events go through the log every replica reads (a shared store),
    /// appended in the transactions that make them, rather than to this process's subscribers.
    var logsEvents: Bool { isShared }

    /// `event` sealed for the shared log under this keychain's key; nil when this keychain's
    /// events stay in the process.
    func stored(_ event: KeychainEvent, barrier: Barrier) throws(KeychainError) -> StoredEvent? {
        guard logsEvents else { return nil }
        let sealed = try Self.crypto { () throws(CryptoError) in try barrier.sealEvent(event.encoded(), keychain: name) }
        return StoredEvent(keychain: name, sealed: sealed)
    }

    /// Appends the event to the shared log in `writer`'s transaction: its sequence there, or nil
    /// when this keychain's events stay in the process (they are published after the commit).
    @discardableResult
    /// `about`: the keychain the event is of, when not this one (the default keychain logs the
    /// creation and deletion of the others).
    func log(
        _ name: KeychainEvent.Name, about: String? = nil, itemClass: ItemClass? = nil, group: String? = nil,
        ref: [UInt8]? = nil, tokenID: String? = nil, barrier: Barrier, in writer: any StoreWriter
    ) throws -> UInt64? {
        let event = KeychainEvent(
            name: name, keychain: about ?? self.name, time: clock.now(), itemClass: itemClass, accessGroup: group,
            persistentRef: ref,
            tokenID: tokenID)
        guard let stored = try stored(event, barrier: barrier) else { return nil }
        return try writer.append(stored)
    }

    /// `log` of an item event for each record, their attributes opened for their group.
    func log(_ name: KeychainEvent.Name, records: [ItemRecord], barrier: Barrier, in writer: any StoreWriter) throws {
        guard logsEvents else { return }
        for record in records {
            guard let item = try? DecodedItem(record, barrier: barrier) else { continue }
            try log(name, itemClass: item.itemClass, group: item.group, ref: record.ref, barrier: barrier, in: writer)
        }
    }

    /// The event of `event`'s stored form, opened with this keychain's attribute key: an event
    /// of this keychain, or the default keychain's of another (`keychainListChanged`).
    func opened(_ stored: StoredEvent) -> KeychainEvent? {
        guard let barrier = try? loadBarrier(),
            let plaintext = try? barrier.openEvent(stored.sealed, keychain: name),
            let event = KeychainEvent(decoding: plaintext),
            event.keychain.isSameBytes(as: name) || isDefault
        else { return nil }
        return event
    }
}

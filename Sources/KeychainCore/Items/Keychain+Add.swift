import Dispatch
import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import Logging
import Synchronization

extension Keychain {
    /// Adds an item (SecItemAdd). Returns the new item shaped by the query's return keys
    /// (attributes and ref when there are none).
    public func add(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> ItemResult {
        if query.itemClass == .identity { return try addIdentity(query, token: token) }
        let (item, barrier) = try addedItem(query, token: token)
        do { try store.add(item.record) } catch { throw duplicateOrFailure(error, item.record) }
        publish(.add, item: item)
        return try shape(item.record, query: query, barrier: barrier, secret: query.valueData, decoded: item, token: token)
    }

    /// `add`, answered through `completion` once durable: at once, or later on the store's
    /// thread when the store `AddsAnswerLater` (a store commits the adds of many requests together).
    public func add(
        _ query: ItemQuery, token: AccessToken, completion: @escaping @Sendable (Result<ItemResult, KeychainError>) -> Void
    ) {
        if query.itemClass == .identity {
            // Two rows in one transaction, added whole by `addIdentity`, which waits for its
            // commit: when adds answer later, the caller is a thread that serves other requests
            // (a polling thread), so the wait is a thread of libdispatch's. Identity adds are rare.
            let add = { @Sendable [self] in
                completion(Result { () throws(KeychainError) in try addIdentity(query, token: token) })
            }
            return addsAnswerLater ? DispatchQueue.global().async(execute: add) : add()
        }
        let item: DecodedItem
        let barrier: Barrier
        do { (item, barrier) = try addedItem(query, token: token) } catch {
            completion(.failure(error))
            return
        }
        store.add(item.record, later: addsLater) { [self] outcome in
            completion(
                Result { () throws(KeychainError) in
                    do { try outcome.get() } catch { throw duplicateOrFailure(error, item.record) }
                    publish(.add, item: item)
                    return try shape(
                        item.record, query: query, barrier: barrier, secret: query.valueData, decoded: item, token: token)
                })
        }
    }

    /// Whether `search` with a completion may answer later, on another thread.
    public var answersLater: Bool { searchesLater != nil }

    /// Whether `add` with a completion may answer later, on another thread.
    public var addsAnswerLater: Bool { addsLater != nil }

    /// The item an add writes (its record sealed), after checking the query, the token and the lock.
    /// `generated`: a private key made here, whose bytes never leave `sodium_malloc` memory; the
    /// query then has no `valueData`.
    func addedItem(_ query: ItemQuery, token: AccessToken, generated: GeneratedPrivateKey? = nil) throws(KeychainError)
        -> (DecodedItem, Barrier)
    {
        try require(.write, token, for: "add")
        try query.check(for: .add)
        let barrier = try barrier()
        let itemClass = query.itemClass!
        let group = query.accessGroup ?? token.defaultGroup
        guard token.grants(group: group) else { throw Self.lacksGroup(group) }
        let protection = query.accessible ?? itemClass.defaultProtection
        let sync = query.synchronizableFilter ?? false
        if sync, protection.isThisDeviceOnly {
            throw .param("accessible: a synchronizable item cannot use \(protection.name)")
        }
        var attributes = query.attributes
        if itemClass == .certificate {
            guard let der = query.valueData else { throw .param("valueData: a certificate item needs its DER certificate") }
            try checkSize(der)
            let derived = Self.derivedAttributes(of: try Self.parseCertificate(der))
            attributes = try Self.certificateAttributes(given: attributes, derived: derived)
        } else if itemClass == .key, let generated {
            attributes = try Self.generatedKeyAttributes(attributes, type: generated.type, publicKey: generated.publicKey)
        } else if itemClass == .key {
            guard let bytes = query.valueData else { throw .param("valueData: a key item needs its key") }
            try checkSize(bytes)
            attributes = try Self.keyAttributes(attributes, bytes: bytes, defaults: true)
        }
        // A key's startDate and endDate are the server's (never set here): they enter the
        // primary-key digest at their empty default (`DecodedItem.reseal`) but are not stored.
        for key in itemClass.primaryKey where key.access != .serverSet && !attributes.contains(where: { $0.key == key }) {
            attributes.append((key, AttributeValue.emptyDefault(for: key.type)))
        }
        let now = clock.now()
        var item = DecodedItem(
            record: ItemRecord(
                ref: Sodium.randomBytes(PersistentRef.length), itemClass: itemClass.rawValue, group: barrier.groupDigest(group),
                protection: protection.rawValue, synchronizable: sync, created: now, modified: now, version: 1,
                primaryKey: [], attributes: [], secret: nil, lookups: []),
            itemClass: itemClass, group: group, protection: protection, attributes: attributes, access: query.access)
        if let generated {
            guard let key = barrier.classKey(for: item.protection) else { throw Self.locked("valueData") }
            let ad = item.secretAD
            item.record.secret = try Self.crypto { () throws(CryptoError) in
                try barrier.sealSecret(generated.secret, key: key, ad: ad)
            }
        } else if let secret = query.valueData {
            try checkSize(secret)
            item.record.secret = try seal(secret, for: item, barrier: barrier)
        }
        try item.reseal(barrier: barrier)
        // Appended with the item by a store's add; a transaction that inserts it logs its own.
        item.record.event = try stored(
            KeychainEvent(
                name: .add, keychain: self.name, time: now, itemClass: itemClass, accessGroup: group,
                persistentRef: item.record.ref),
            barrier: barrier)
        return (item, barrier)
    }

    /// A failed add's error: errSecDuplicateItem with the colliding item's reference (it shares
    /// the primary key, group included, so the caller may see it), or the store's failure.
    func duplicateOrFailure(_ error: any Error, _ record: ItemRecord) -> KeychainError {
        let error = map(error)
        guard error.status == KeychainError.duplicateItem(persistentRef: nil).status else { return error }
        do {
            let existing = try snapshot { try $0.item(primaryKey: record.primaryKey) }
            return .duplicateItem(persistentRef: existing.map { PersistentRef.encode($0.ref, keychain: self.name) })
        } catch {
            return error
        }
    }
}

import Dispatch
import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import Logging
import Synchronization

extension Keychain {
    /// Updates every match (SecItemUpdate), atomically. `expectedVersion` (If-Match) requires
    /// the single matched item to have that version. Returns the updated items' attributes and
    /// refs, or, to a token without `read` or `list`, results carrying only the version.
    @discardableResult
    public func update(
        _ query: ItemQuery, attributesToUpdate changes: ItemQuery, token: AccessToken, expectedVersion: Int64? = nil
    ) throws(KeychainError) -> [ItemResult] {
        try require(.write, token, for: "update")
        try query.check(for: .updateQuery)
        try changes.check(for: .attributesToUpdate)
        guard changes.namesAttribute || changes.valueData != nil else {
            throw .param("attributesToUpdate: names nothing to change")
        }
        if let group = changes.accessGroup, !token.grants(group: group) { throw Self.lacksGroup(group) }
        if let secret = changes.valueData { try checkSize(secret) }
        let barrier = try barrier()
        try verifyPrompt(token)
        if query.itemClass == .identity {
            return try updateIdentities(query, changes: changes, token: token, barrier: barrier, expectedVersion: expectedVersion)
        }
        let selection = try filter(for: query, token: token, barrier: barrier)
        let updated = try transaction { writer in
            let records = try self.matching(writer.items(matching: selection.filter), selection.exact, barrier: barrier)
            let updated = try self.applyUpdate(
                records, changes: changes, expectedVersion: expectedVersion, barrier: barrier, token: token)
            for record in updated { try writer.replace(record) }
            try self.log(.update, records: updated, barrier: barrier, in: writer)
            return updated
        }
        publish(.update, records: updated, barrier: barrier)
        forgetLoadedKeys(of: updated, barrier: barrier)
        // What an update answers is a search's answer: a token that may not search learns
        // only that its update applied, and to how many items (as a delete's count).
        guard token.has(.read) || token.has(.list) else {
            return updated.map {
                ItemResult(
                    ref: $0.ref, version: $0.version, attributes: nil, secret: nil, includesRef: false, keychain: self.name)
            }
        }
        return try updated.map { (record) throws(KeychainError) in
            try shape(record, query: ItemQuery(), barrier: barrier, secret: nil, token: nil)
        }
    }

    /// The records as `changes` leaves them; throws without side effects.
    func applyUpdate(_ records: [ItemRecord], changes: ItemQuery, expectedVersion: Int64?, barrier: Barrier, token: AccessToken)
        throws(KeychainError) -> [ItemRecord]
    {
        let now = clock.now()
        guard !records.isEmpty else { throw .itemNotFound }
        if let expectedVersion, let record = records.first, records.count == 1, record.version != expectedVersion {
            throw .preconditionFailed("expectedVersion: the item's version is \(record.version), not \(expectedVersion)")
        }
        var updated: [ItemRecord] = []
        for record in records {
            var item = try DecodedItem(record, barrier: barrier)
            let old = item
            try checkAccess(old, .update, token: token)
            for (key, value) in changes.attributes {
                guard key.applies(to: item.itemClass) else {
                    throw .noSuchAttr(key.name, "class \(item.itemClass.name) has no such attribute")
                }
                if key.access == .derived { continue }  // compared below, never set
                if let index = item.attributes.firstIndex(where: { $0.key == key }) {
                    item.attributes[index].value = value
                } else {
                    item.attributes.append((key, value))
                }
            }
            if item.itemClass == .certificate {
                // New DER, new derived attributes; given ones must equal them.
                if let der = changes.valueData {
                    let derived = Self.derivedAttributes(of: try Self.parseCertificate(der))
                    item.attributes = item.attributes.filter { $0.key.access != .derived } + derived
                }
                try Self.checkDerived(changes.attributes, against: item.attributes)
            }
            if item.itemClass == .key, !Self.isExtractable(old), Self.isExtractable(item) {
                throw .param("isExtractable: a key that is not extractable never becomes extractable")
            }
            if item.itemClass == .key,
                changes.valueData != nil || changes.attributes.contains(where: { Self.isKeyShape($0.key) })
            {
                // New bytes or a new type, class or size: checked together again. New bytes get
                // the new key's sizes and label, unless the change gives them.
                if changes.valueData != nil {
                    let k = Self.keyKeys
                    for key in [k.label, k.size, k.effectiveSize] where !changes.attributes.contains(where: { $0.key == key }) {
                        item.attributes.removeAll { $0.key == key }
                    }
                }
                let bytes: [UInt8]
                if let new = changes.valueData {
                    bytes = new
                } else if let sealed = old.record.secret {
                    bytes = try openSecret(
                        sealed, of: old.record, barrier: barrier, key: "valueData", for: .update, token: nil, decoded: old)
                } else {
                    throw .param("valueData: the key item has no key to check the change against")
                }
                item.attributes = try Self.keyAttributes(item.attributes, bytes: bytes, defaults: false)
            }
            if let group = changes.accessGroup {
                item.group = group
                item.record.group = barrier.groupDigest(group)
            }
            if let protection = changes.accessible { item.protection = protection }
            if case .only(let sync)? = changes.synchronizable { item.record.synchronizable = sync }
            if item.record.synchronizable, item.protection.isThisDeviceOnly {
                throw .param("accessible: a synchronizable item cannot use \(item.protection.name)")
            }
            item.record.protection = item.protection.rawValue
            // The secret is bound to ref, class and group, and sealed under its class key:
            // a new secret, a new group or a new key class means sealing again.
            if let secret = changes.valueData {
                item.record.secret = try seal(secret, for: item, barrier: barrier)
            } else if let sealed = old.record.secret,
                old.group != item.group || old.protection.keyClass != item.protection.keyClass
            {
                let secret = try openSecret(
                    sealed, of: old.record, barrier: barrier, key: "accessGroup", for: .update, token: nil, decoded: old)
                item.record.secret = try seal(secret, for: item, barrier: barrier)
            }
            item.record.modified = max(now, item.record.created)
            item.record.version += 1
            try item.reseal(barrier: barrier)
            updated.append(item.record)
        }
        return updated
    }
}

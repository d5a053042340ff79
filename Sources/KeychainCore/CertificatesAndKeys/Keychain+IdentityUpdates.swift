import KeychainBarrier
import KeychainStorage
import KeychainX509

/// Updating and deleting identities (their certificates and keys).
extension Keychain {
    /// `If-Match` on one identity: its certificate's version (an identity's ETag) must be `expected`.
    private static func check(_ pairs: [IdentityPair], expectedVersion expected: Int64?) throws(KeychainError) {
        guard let expected, pairs.count == 1, pairs[0].certificate.record.version != expected else { return }
        let version = pairs[0].certificate.record.version
        throw .preconditionFailed("expectedVersion: the item's version is \(version), not \(expected)")
    }

    /// The identities `query` names, read in a write transaction.
    private func identityPairs(_ query: ItemQuery, token: AccessToken, barrier: Barrier, writer: any StoreWriter)
        throws(KeychainError)
        -> [IdentityPair]
    {
        let selection = try filter(for: Self.identitySplit(query).certificate, token: token, barrier: barrier)
        return try identityPairs(
            query, selection: selection, token: token, barrier: barrier, wanted: nil, read: writer.items(matching:))
    }

    /// SecItemUpdate of identities: attributes certificates have change the certificates, those
    /// keys have change the keys (`label`, `accessGroup`, `accessible`, `synchronizable` both),
    /// in one transaction. An identity's certificate and key bytes change only through their own
    /// classes: `valueData` here is errSecParam.
    func updateIdentities(_ query: ItemQuery, changes: ItemQuery, token: AccessToken, barrier: Barrier, expectedVersion: Int64?)
        throws(KeychainError) -> [ItemResult]
    {
        if changes.valueData != nil {
            throw .param("valueData: an identity's certificate and key change through their own classes, not the identity")
        }
        var certificateChanges = changes
        certificateChanges.attributes = changes.attributes.filter { $0.key.applies(to: .certificate) }
        var keyChanges = changes
        keyChanges.attributes = changes.attributes.filter { $0.key.applies(to: .key) }
        let changesRow = changes.accessGroup != nil || changes.accessible != nil || changes.synchronizable != nil
        let (pairs, changed) = try transaction { writer in
            let pairs = try self.identityPairs(query, token: token, barrier: barrier, writer: writer)
            guard !pairs.isEmpty else { throw KeychainError.itemNotFound }
            try Self.check(pairs, expectedVersion: expectedVersion)
            var certificates: [ItemRecord] = []
            var keys: [ItemRecord] = []
            for pair in pairs {
                if !certificates.contains(where: { $0.rowID == pair.certificate.record.rowID }) {
                    certificates.append(pair.certificate.record)
                }
                if !keys.contains(where: { $0.rowID == pair.key.record.rowID }) { keys.append(pair.key.record) }
            }
            var updated: [Int64: ItemRecord] = [:]
            if changesRow || !certificateChanges.attributes.isEmpty {
                for record in try self.applyUpdate(
                    certificates, changes: certificateChanges, expectedVersion: nil, barrier: barrier, token: token)
                {
                    updated[record.rowID] = record
                }
            }
            if changesRow || !keyChanges.attributes.isEmpty {
                for record in try self.applyUpdate(
                    keys, changes: keyChanges, expectedVersion: nil, barrier: barrier, token: token)
                {
                    updated[record.rowID] = record
                }
            }
            for record in updated.values { try writer.replace(record) }
            func reopened(_ item: DecodedItem) throws(KeychainError) -> DecodedItem {
                guard let record = updated[item.record.rowID] else { return item }
                return try DecodedItem(record, barrier: barrier)
            }
            let reopenedPairs = try pairs.map { (pair) throws(KeychainError) in
                IdentityPair(certificate: try reopened(pair.certificate), key: try reopened(pair.key))
            }
            let changed = updated.keys.sorted().map { updated[$0]! }
            try self.log(.update, records: changed, barrier: barrier, in: writer)
            return (reopenedPairs, changed)
        }
        publish(.update, records: changed, barrier: barrier)
        forgetLoadedKeys(of: changed, barrier: barrier)
        guard token.has(.read) || token.has(.list) else {
            return pairs.map {
                ItemResult(
                    ref: $0.certificate.record.ref, version: $0.certificate.record.version, attributes: nil, secret: nil,
                    includesRef: false, keyRef: $0.key.record.ref, keychain: self.name)
            }
        }
        return try pairs.map { (pair) throws(KeychainError) in try shape(pair, query: ItemQuery(), barrier: barrier, token: nil) }
    }

    /// SecItemDelete of identities: each identity's certificate and private key go together. A
    /// key that pairs with another certificate too goes with the first of its identities
    /// deleted; that certificate stays, a certificate without its identity.
    func deleteIdentities(_ query: ItemQuery, token: AccessToken, barrier: Barrier, expectedVersion: Int64?) throws(KeychainError)
        -> [[UInt8]]
    {
        let deleted = try transaction { writer in
            let pairs = try self.identityPairs(query, token: token, barrier: barrier, writer: writer)
            guard !pairs.isEmpty else { throw KeychainError.itemNotFound }
            try Self.check(pairs, expectedVersion: expectedVersion)
            var rows: [Int64: DecodedItem] = [:]
            for pair in pairs {
                rows[pair.certificate.record.rowID] = pair.certificate
                rows[pair.key.record.rowID] = pair.key
            }
            let ordered = rows.keys.sorted()
            try writer.delete(rowIDs: ordered)
            for item in ordered.map({ rows[$0]! }) {
                try self.log(
                    .delete, itemClass: item.itemClass, group: item.group, ref: item.record.ref, barrier: barrier, in: writer)
            }
            return ordered.map { rows[$0]! }
        }
        for item in deleted { publish(.delete, item: item) }
        forgetLoadedKeys(of: deleted.map(\.record), barrier: barrier)
        return deleted.map(\.record.ref)
    }
}

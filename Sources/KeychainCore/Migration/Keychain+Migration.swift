import KeychainBarrier
public import KeychainCrypto
import KeychainHost
import KeychainStorage
import Logging
import Synchronization

/// What an import does with a bundle item that collides with an item already here.
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// errSecDuplicateItem naming the first collision; nothing is imported.
    case fail
    /// The item already here stays; the bundle's is left out.
    case skip
    /// The bundle's item takes the place of the one already here.
    case replace
}

/// What an import did.
public struct BundleImport: Sendable {
    public let imported: Int
    public let skipped: Int
    public let replaced: Int
    public let manifest: BundleManifest
}

extension Keychain {
    // MARK: export

    /// A migration bundle of every item that may leave this instance (never a `…ThisDeviceOnly`
    /// one, nor a key that is not extractable), sealed under `passphrase` (Argon2id with this keychain's KDF limits, then
    /// `crypto_secretstream`), to be read piece by piece from the `BundleExport` returned.
    /// Needs an admin of every group (`nil`: local administration) and the keychain unlocked:
    /// every item's secret is opened to be sealed again. Runs Argon2id, here, before returning.
    ///
    /// Takes one read snapshot of the items (sealed, as stored: they stay so in memory until the
    /// export is read or dropped) and opens their attributes to count the manifest, which the
    /// bundle carries before any item. Secrets are opened later, one batch at a time, as
    /// `BundleExport.next()` seals each batch.
    public func exportBundle(passphrase: SecureBytes, caller: AccessToken?) throws(KeychainError) -> BundleExport {
        try requireKeychainAdmin(caller, for: "exporting the keychain")
        try requireBundlePassphrase(passphrase)
        guard configuration.kdfLimits.isAtLeastModerate || configuration.allowWeakKDFForTesting else {
            throw .param("kdfLimits: Argon2id limits must be at least MODERATE")
        }
        let barrier = try unlockedBarrier("export")
        let records = try snapshot { try $0.items(matching: ItemFilter()) }
        var exported: [ItemRecord] = []
        exported.reserveCapacity(records.count)
        var manifest = BundleManifest(created: clock.now(), leftBehind: [:])
        for record in records {
            let item = try DecodedItem(record, barrier: barrier, logger: logger)
            guard !item.protection.isThisDeviceOnly else {
                manifest.leftBehind[item.protection.name, default: 0] += 1
                continue
            }
            // A key added with `isExtractable: false` never leaves, not even sealed in a bundle.
            guard Self.isExtractable(item) else {
                manifest.leftBehind[BundleManifest.notExtractable, default: 0] += 1
                continue
            }
            manifest.count(item.itemClass, group: item.group, protection: item.protection)
            exported.append(record)
        }
        let salt = Sodium.randomBytes(PasswordHash.saltLength)
        let limits = configuration.kdfLimits
        let key = try deriveBundleKey(passphrase, salt: salt, limits: limits)
        let writer = try Self.crypto { () throws(CryptoError) in
            try MigrationBundle.Writer(manifest: manifest, key: key, salt: salt, limits: limits)
        }
        return BundleExport(keychain: self, records: exported, manifest: manifest, writer: writer)
    }

    /// `record` as a bundle carries it: its attributes and its secret opened
    /// (errSecInteractionNotAllowed when its protection class is locked).
    func bundleItem(_ record: ItemRecord, barrier: Barrier) throws(KeychainError) -> BundleItem {
        let item = try DecodedItem(record, barrier: barrier, logger: logger)
        var secret: [UInt8]?
        if let sealed = record.secret { secret = try openSecret(sealed, of: record, barrier: barrier, key: "valueData") }
        return BundleItem(
            itemClass: item.itemClass, protection: item.protection, synchronizable: record.synchronizable,
            created: record.created, modified: record.modified, ref: record.ref, group: item.group,
            attributes: item.attributes, secret: secret)
    }

    // MARK: import

    /// Imports a migration bundle made by `exportBundle` on any keychaind, atomically: the whole
    /// bundle is opened and checked before anything is written, then every item is sealed under
    /// this keychain's keys and written in one transaction, keeping its persistent ref, its dates
    /// and its attributes. A bundle item collides with an item here when it has the same
    /// primary key or the same persistent ref; `conflict` says what then happens. Refused
    /// whole, with nothing written: a wrong passphrase or an altered, truncated or reordered
    /// bundle (errSecAuthFailed), a malformed one (errSecDecode), an item this build would not
    /// add (its error), a `…ThisDeviceOnly` item (errSecParam), a collision under `fail`
    /// (errSecDuplicateItem), and under `replace` an item whose ref and primary key belong to
    /// two different items here (errSecDuplicateItem). Needs an admin of every group and the
    /// keychain unlocked. Runs Argon2id.
    public func importBundle(_ bundle: [UInt8], passphrase: SecureBytes, conflict: ConflictPolicy, caller: AccessToken?)
        throws(KeychainError) -> BundleImport
    {
        try bundle.withUnsafeBytes { bytes in
            Result { () throws(KeychainError) in
                try importBundle(bytes, passphrase: passphrase, conflict: conflict, caller: caller)
            }
        }.get()
    }

    /// `importBundle` of bytes wherever they lie: a spooled upload's mapped file.
    public func importBundle(
        _ bundle: UnsafeRawBufferPointer, passphrase: SecureBytes, conflict: ConflictPolicy, caller: AccessToken?
    )
        throws(KeychainError) -> BundleImport
    {
        // The bundle's items, opened and sealed again, are freed when the import returns.
        defer { releaseFreedMemory() }
        return try importWholeBundle(bundle, passphrase: passphrase, conflict: conflict, caller: caller)
    }

    private func importWholeBundle(
        _ bundle: UnsafeRawBufferPointer, passphrase: SecureBytes, conflict: ConflictPolicy, caller: AccessToken?
    )
        throws(KeychainError) -> BundleImport
    {
        try requireKeychainAdmin(caller, for: "importing a bundle")
        try requireBundlePassphrase(passphrase)
        let barrier = try unlockedBarrier("import")
        let header = try MigrationBundle.header(of: bundle)
        let key = try deriveBundleKey(passphrase, salt: header.salt, limits: header.limits)
        // Each item is sealed under this keychain's keys as its message is opened: one batch of
        // secrets in clear at a time (`MigrationBundle.open` wipes them), never the whole bundle's.
        var records: [(record: ItemRecord, itemClass: ItemClass)] = []
        var refs = Set<[UInt8]>()
        var keys = Set<[UInt8]>()
        var manifest = try MigrationBundle.open(bundle, key: key, streamHeader: header.streamHeader) {
            (item: BundleItem) throws(KeychainError) in
            try check(item)
            let record = try importedRecord(item, barrier: barrier)
            guard refs.insert(record.ref).inserted, keys.insert(record.primaryKey).inserted else {
                throw .decode("bundle: two of its items share a persistent ref or a primary key")
            }
            records.append((record, item.itemClass))
        }
        let counts = try transaction { writer in
            var imported = 0
            var skipped = 0
            var replaced = 0
            var added: [ItemRecord] = []
            var replacedRecords: [ItemRecord] = []
            for (record, itemClass) in records {
                let byKey = try writer.item(primaryKey: record.primaryKey)
                let byRef = try writer.items(matching: ItemFilter(ref: record.ref)).first
                let existing = [byKey, byRef].compactMap { $0 }
                guard let first = existing.first else {
                    try writer.insert(record)
                    imported += 1
                    added.append(record)
                    continue
                }
                let ref = PersistentRef.encode(record.ref, keychain: self.name)
                switch conflict {
                case .fail:
                    throw KeychainError.duplicateImport(
                        "import: the bundle's \(itemClass.name) \(ref) has the "
                            + (byKey != nil ? "primary key" : "persistent ref") + " of an item already here",
                        persistentRef: PersistentRef.encode(first.ref, keychain: self.name))
                case .skip:
                    skipped += 1
                case .replace:
                    if let byKey, let byRef, byKey.rowID != byRef.rowID {
                        throw KeychainError.duplicateImport(
                            "import: the bundle's \(itemClass.name) \(ref) has the persistent ref of one item here and the "
                                + "primary key of another; replace overwrites one item, not two",
                            persistentRef: PersistentRef.encode(byKey.ref, keychain: self.name))
                    }
                    try writer.delete(rowIDs: [first.rowID])
                    try writer.insert(record)
                    replaced += 1
                    replacedRecords.append(record)
                }
            }
            try self.log(.add, records: added, barrier: barrier, in: writer)
            try self.log(.update, records: replacedRecords, barrier: barrier, in: writer)
            return (imported, skipped, replaced, added, replacedRecords)
        }
        publish(.add, records: counts.3, barrier: barrier)
        publish(.update, records: counts.4, barrier: barrier)
        manifest.leftBehind = manifest.leftBehind.filter { $0.value > 0 }
        logger.info(
            "bundle imported",
            metadata: ["bundle.imported": "\(counts.0)", "bundle.skipped": "\(counts.1)", "bundle.replaced": "\(counts.2)"])
        return BundleImport(imported: counts.0, skipped: counts.1, replaced: counts.2, manifest: manifest)
    }

    // MARK: helpers

    /// The barrier, unlocked: an export opens, and an import seals, secrets of every class.
    /// A streamed export asks again before each piece, so that a lock meanwhile ends it.
    func unlockedBarrier(_ operation: String) throws(KeychainError) -> Barrier {
        let barrier = try barrier()
        guard barrier.isUnlocked else {
            throw .interactionNotAllowed("keychain: the keychain is locked; \(operation) opens items of every protection class")
        }
        return barrier
    }

    private func requireBundlePassphrase(_ passphrase: SecureBytes) throws(KeychainError) {
        guard passphrase.count >= 1 else { throw .param("bundlePassphrase: the bundle passphrase is empty") }
    }

    /// The bundle key: Argon2id, one derivation at a time (`kdfGate`).
    private func deriveBundleKey(_ passphrase: SecureBytes, salt: [UInt8], limits: KDFLimits) throws(KeychainError) -> SecureBytes
    {
        try kdfGate.withLock { _ throws(KeychainError) -> SecureBytes in
            try Self.crypto { () throws(CryptoError) in
                try PasswordHash.deriveKey(passphrase: passphrase, salt: salt, limits: limits)
            }
        }
    }

    /// Refuses a bundle item this keychain would not add, as an add of it would be refused.
    private func check(_ item: BundleItem) throws(KeychainError) {
        guard item.itemClass.isStored else {
            throw .param("class: a bundle holds certificates and keys, never an identity, which is their join")
        }
        guard !item.protection.isThisDeviceOnly else {
            throw .param("accessible: the bundle holds a \(item.protection.name) item, which never leaves its device")
        }
        var query = ItemQuery()
        query.itemClass = item.itemClass
        query.attributes = item.attributes
        query.accessGroup = item.group
        query.accessible = item.protection
        query.synchronizable = .only(item.synchronizable)
        try query.check(for: .add)
        guard !item.group.isEmpty, !item.group.isSameBytes(as: "*") else {
            throw .param("accessGroup: the bundle holds an item without a group")
        }
        for (key, value) in item.attributes {
            if case .enumeration(let enumeration) = key.type, case .string(let name) = value, !name.isEmpty,
                !enumeration.values.contains(where: { $0.name == name })
            {
                throw .param("\(key.name): the bundle holds a value this build does not know")
            }
            if case .integer(let range) = key.type, case .int(let number) = value, !range.contains(number) {
                throw .param("\(key.name): the bundle holds a value out of range")
            }
        }
        if let secret = item.secret, secret.count > configuration.maxSecretBytes {
            throw .dataTooLarge("valueData: the bundle holds a secret over the limit of \(configuration.maxSecretBytes) bytes")
        }
        if item.itemClass == .key {
            // A key's bytes must be the key its attributes say, as on add.
            guard let secret = item.secret else { throw .param("valueData: the bundle holds a key item without its key") }
            _ = try Self.keyAttributes(item.attributes, bytes: secret, defaults: false)
        }
    }

    /// The record an imported item becomes: sealed under this keychain's keys.
    private func importedRecord(_ item: BundleItem, barrier: Barrier) throws(KeychainError) -> ItemRecord {
        var attributes = item.attributes
        // A key's startDate and endDate are the server's (never set here): they enter the
        // primary-key digest at their empty default (`DecodedItem.reseal`) but are not stored.
        for key in item.itemClass.primaryKey where key.access != .serverSet && !attributes.contains(where: { $0.key == key }) {
            attributes.append((key, AttributeValue.emptyDefault(for: key.type)))
        }
        var decoded = DecodedItem(
            record: ItemRecord(
                ref: item.ref, itemClass: item.itemClass.rawValue, group: barrier.groupDigest(item.group),
                protection: item.protection.rawValue, synchronizable: item.synchronizable, created: item.created,
                modified: item.modified, version: 1, primaryKey: [], attributes: [], secret: nil, lookups: []),
            itemClass: item.itemClass, group: item.group, protection: item.protection, attributes: attributes)
        if let secret = item.secret {
            guard let key = barrier.classKey(for: item.protection) else { throw Self.locked("import") }
            let ad = Barrier.secretAD(ref: item.ref, itemClass: item.itemClass, group: decoded.record.group)
            decoded.record.secret = try Self.crypto { () throws(CryptoError) in try barrier.sealSecret(secret, key: key, ad: ad) }
        }
        try decoded.reseal(barrier: barrier)
        return decoded.record
    }
}

extension KeychainError {
    /// errSecDuplicateItem with its own message: an import's collision names the bundle item.
    static func duplicateImport(_ message: String, persistentRef: String?) -> KeychainError {
        KeychainError(-25299, "errSecDuplicateItem", message, persistentRef: persistentRef)
    }
}

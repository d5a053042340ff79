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

    /// A migration bundle of this keychain's items that may leave this instance (never a
    /// `…ThisDeviceOnly` one, nor a key that is not extractable), sealed under `passphrase`
    /// (Argon2id with this keychain's KDF limits, then `crypto_secretstream`), to be read piece
    /// by piece from the `BundleExport` returned (`BundleExport.make`). Needs an admin of every
    /// group (`nil`: local administration) and the keychain unlocked. Runs Argon2id, here,
    /// before returning.
    public func exportBundle(passphrase: SecureBytes, caller: AccessToken?) throws(KeychainError) -> BundleExport {
        try requireKeychainAdmin(caller, for: "exporting the keychain")
        return try BundleExport.make(of: [self], passphrase: passphrase)
    }

    /// `record` as a bundle carries it: its attributes and its secret opened
    /// (errSecInteractionNotAllowed when its protection class is locked).
    func bundleItem(_ record: ItemRecord, barrier: Barrier) throws(KeychainError) -> BundleItem {
        let item = try DecodedItem(record, barrier: barrier, logger: logger)
        var secret: [UInt8]?
        if let sealed = record.secret {
            secret = try openSecret(
                sealed, of: record, barrier: barrier, key: "valueData", for: .export, token: nil, decoded: item)
        }
        return BundleItem(
            keychain: name, itemClass: item.itemClass, protection: item.protection, synchronizable: record.synchronizable,
            created: record.created, modified: record.modified, ref: record.ref, group: item.group,
            attributes: item.attributes, secret: secret, access: item.access)
    }

    // MARK: import

    /// Imports a migration bundle made by `exportBundle` on any keychaind into this keychain,
    /// atomically: the whole bundle is opened and checked before anything is written, then
    /// every item is sealed under this keychain's keys and written in one transaction, keeping
    /// its persistent ref, its dates and its attributes. A bundle item collides with an item
    /// here when it has the same primary key or the same persistent ref; `conflict` says what
    /// then happens. Refused whole, with nothing written: a wrong passphrase or an altered,
    /// truncated or reordered bundle (errSecAuthFailed), a malformed one (errSecDecode), an
    /// item this build would not add (its error), a `…ThisDeviceOnly` item (errSecParam), a
    /// bundle holding the items of several keychains (errSecParam: `Keychains.importBundle`
    /// puts each in its own), a collision under `fail` (errSecDuplicateItem), and under
    /// `replace` an item whose ref and primary key belong to two different items here
    /// (errSecDuplicateItem). Needs an admin of every group and the keychain unlocked. Runs Argon2id.
    /// `tokens`: the server's tokens, which its items' access objects may keep trusting, and a
    /// map from another instance's ids (`nil`: this keychain's own tokens, no map).
    public func importBundle(
        _ bundle: [UInt8], passphrase: SecureBytes, conflict: ConflictPolicy, caller: AccessToken?,
        tokens: ImportedTokens? = nil
    ) throws(KeychainError) -> BundleImport {
        try bundle.withUnsafeBytes { bytes in
            Result { () throws(KeychainError) in
                try importBundle(bytes, passphrase: passphrase, conflict: conflict, caller: caller, tokens: tokens)
            }
        }.get()
    }

    /// The ids of the tokens this keychain's store holds (the default keychain's: the server's).
    public func tokenIDs() throws(KeychainError) -> [String] {
        try snapshot { try $0.tokens().map(\.id) }
    }

    /// `importBundle` of bytes wherever they lie: a spooled upload's mapped file.
    public func importBundle(
        _ bundle: UnsafeRawBufferPointer, passphrase: SecureBytes, conflict: ConflictPolicy, caller: AccessToken?,
        tokens: ImportedTokens? = nil
    ) throws(KeychainError) -> BundleImport {
        try requireKeychainAdmin(caller, for: "importing a bundle")
        // Locked is answered before Argon2id runs, as for an empty bundle.
        _ = try unlockedBarrier("import")
        var from: String?
        let known: ImportedTokens
        if let tokens { known = tokens } else { known = ImportedTokens(known: try tokenIDs()) }
        return try Self.importBundle(bundle, passphrase: passphrase, conflict: conflict, deriving: self, tokens: known) {
            (name: String?) throws(KeychainError) -> Keychain in
            if let name, let first = from, !first.isSameBytes(as: name) {
                throw .param(
                    "keychain: the bundle holds the items of several keychains (\(first), \(name)…); import it with "
                        + "keychain=* to put each in its own, or export one keychain")
            }
            from = name
            return self
        }
    }

    /// Imports `bundle`, each item into the keychain `target` answers for the keychain the
    /// bundle names it with (`nil` in a format-1 bundle), with the key `deriving` derives. Each
    /// target keychain must be unlocked. Every item is opened, checked and sealed under its
    /// target's keys before anything is written; then, when several keychains receive items,
    /// each one's collisions are checked, and only then is each keychain's share written, in
    /// one transaction per keychain.
    static func importBundle(
        _ bundle: UnsafeRawBufferPointer, passphrase: SecureBytes, conflict: ConflictPolicy, deriving: Keychain,
        tokens: ImportedTokens, target: (String?) throws(KeychainError) -> Keychain
    ) throws(KeychainError) -> BundleImport {
        // The bundle's items, opened and sealed again, are freed when the import returns.
        defer { releaseFreedMemory() }
        try requireBundlePassphrase(passphrase)
        let header = try MigrationBundle.header(of: bundle)
        let key = try deriving.deriveBundleKey(passphrase, salt: header.salt, limits: header.limits)
        // Each item is sealed under its keychain's keys as its message is opened: one batch of
        // secrets in clear at a time (`MigrationBundle.open` wipes them), never the whole bundle's.
        var shares: [ImportShare] = []
        var manifest = try MigrationBundle.open(bundle, key: key, header: header) { (item: BundleItem) throws(KeychainError) in
            var item = item
            // An access object keeps trusting the tokens this server has, or those it maps to.
            item.access = item.access?.importing(tokens)
            let keychain = try target(item.keychain)
            guard let index = shares.firstIndex(where: { $0.keychain === keychain }) else {
                shares.append(ImportShare(keychain: keychain, barrier: try keychain.unlockedBarrier("import")))
                return try shares[shares.count - 1].add(item)
            }
            try shares[index].add(item)
        }
        if shares.count > 1 {
            // Nothing is written while any keychain would refuse its share.
            for share in shares {
                try share.keychain.snapshot { reader in
                    for (record, itemClass) in share.records {
                        _ = try share.keychain.resolve(record, itemClass: itemClass, conflict: conflict, in: reader)
                    }
                }
            }
        }
        var imported = 0
        var skipped = 0
        var replaced = 0
        for share in shares {
            let counts = try share.keychain.write(share.records, conflict: conflict, barrier: share.barrier)
            imported += counts.imported
            skipped += counts.skipped
            replaced += counts.replaced
        }
        manifest.leftBehind = manifest.leftBehind.filter { $0.value > 0 }
        deriving.logger.info(
            "bundle imported",
            metadata: [
                "bundle.imported": "\(imported)", "bundle.skipped": "\(skipped)", "bundle.replaced": "\(replaced)",
                "bundle.keychains": "\(shares.map(\.keychain.name).joined(separator: ","))",
            ])
        return BundleImport(imported: imported, skipped: skipped, replaced: replaced, manifest: manifest)
    }

    /// The items of a bundle bound for one keychain, sealed under its keys.
    private struct ImportShare {
        let keychain: Keychain
        let barrier: Barrier
        var records: [(record: ItemRecord, itemClass: ItemClass)] = []
        var refs = Set<[UInt8]>()
        var keys = Set<[UInt8]>()

        init(keychain: Keychain, barrier: Barrier) {
            self.keychain = keychain
            self.barrier = barrier
        }

        mutating func add(_ item: BundleItem) throws(KeychainError) {
            try keychain.check(item)
            let record = try keychain.importedRecord(item, barrier: barrier)
            guard refs.insert(record.ref).inserted, keys.insert(record.primaryKey).inserted else {
                throw .decode("bundle: two of its items share a persistent ref or a primary key")
            }
            records.append((record, item.itemClass))
        }
    }

    /// What an import does with one item.
    private enum ImportAction {
        case insert
        case skip
        case replace(rowID: Int64)
    }

    /// What `conflict` makes of `record` beside the items `reader` holds; throws what the
    /// import is refused with.
    private func resolve(_ record: ItemRecord, itemClass: ItemClass, conflict: ConflictPolicy, in reader: any StoreReader)
        throws -> ImportAction
    {
        let byKey = try reader.item(primaryKey: record.primaryKey)
        let byRef = try reader.items(matching: ItemFilter(ref: record.ref)).first
        guard let first = byKey ?? byRef else { return .insert }
        let ref = PersistentRef.encode(record.ref, keychain: name)
        switch conflict {
        case .fail:
            throw KeychainError.duplicateImport(
                "import: the bundle's \(itemClass.name) \(ref) has the "
                    + (byKey != nil ? "primary key" : "persistent ref") + " of an item already here",
                persistentRef: PersistentRef.encode(first.ref, keychain: name))
        case .skip:
            return .skip
        case .replace:
            if let byKey, let byRef, byKey.rowID != byRef.rowID {
                throw KeychainError.duplicateImport(
                    "import: the bundle's \(itemClass.name) \(ref) has the persistent ref of one item here and the "
                        + "primary key of another; replace overwrites one item, not two",
                    persistentRef: PersistentRef.encode(byKey.ref, keychain: name))
            }
            return .replace(rowID: first.rowID)
        }
    }

    /// Writes an import's `records` in one transaction, and their events.
    private func write(_ records: [(record: ItemRecord, itemClass: ItemClass)], conflict: ConflictPolicy, barrier: Barrier)
        throws(KeychainError) -> (imported: Int, skipped: Int, replaced: Int)
    {
        let (skipped, added, replaced) = try transaction { writer in
            var skipped = 0
            var added: [ItemRecord] = []
            var replaced: [ItemRecord] = []
            for (record, itemClass) in records {
                switch try self.resolve(record, itemClass: itemClass, conflict: conflict, in: writer) {
                case .insert:
                    try writer.insert(record)
                    added.append(record)
                case .skip:
                    skipped += 1
                case .replace(let rowID):
                    try writer.delete(rowIDs: [rowID])
                    try writer.insert(record)
                    replaced.append(record)
                }
            }
            try self.log(.add, records: added, barrier: barrier, in: writer)
            try self.log(.update, records: replaced, barrier: barrier, in: writer)
            return (skipped, added, replaced)
        }
        publish(.add, records: added, barrier: barrier)
        publish(.update, records: replaced, barrier: barrier)
        forgetLoadedKeys(of: replaced, barrier: barrier)
        return (added.count, skipped, replaced.count)
    }

    // MARK: helpers

    /// The barrier, unlocked: an export opens, and an import seals, secrets of every class.
    /// A streamed export asks again before each piece, so that a lock meanwhile ends it.
    func unlockedBarrier(_ operation: String) throws(KeychainError) -> Barrier {
        let barrier = try barrier()
        guard barrier.isUnlocked else {
            throw .interactionNotAllowed(
                "keychain: the keychain \(name) is locked; \(operation) opens items of every protection class")
        }
        return barrier
    }

    static func requireBundlePassphrase(_ passphrase: SecureBytes) throws(KeychainError) {
        guard passphrase.count >= 1 else { throw .param("bundlePassphrase: the bundle passphrase is empty") }
    }

    /// The bundle key: Argon2id, one derivation at a time (`kdfGate`).
    func deriveBundleKey(_ passphrase: SecureBytes, salt: [UInt8], limits: KDFLimits) throws(KeychainError) -> SecureBytes {
        try kdfGate.withLock { _ throws(KeychainError) -> SecureBytes in
            try Self.crypto { () throws(CryptoError) in
                try PasswordHash.deriveKey(passphrase: passphrase, salt: salt, limits: limits)
            }
        }
    }

    /// Refuses a bundle item this keychain would not add, as an add of it would be refused.
    fileprivate func check(_ item: BundleItem) throws(KeychainError) {
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
    fileprivate func importedRecord(_ item: BundleItem, barrier: Barrier) throws(KeychainError) -> ItemRecord {
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
            itemClass: item.itemClass, group: item.group, protection: item.protection, attributes: attributes,
            access: item.access)
        if let secret = item.secret {
            guard let key = barrier.classKey(for: item.protection) else { throw Self.locked("import") }
            let ad = Barrier.secretAD(
                ref: item.ref, itemClass: item.itemClass, group: decoded.record.group, guarded: item.access != nil)
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

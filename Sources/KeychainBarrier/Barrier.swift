package import KeychainCrypto
import Synchronization

/// The one type that seals and opens, and the only holder of key material.
///
/// - instance key (key file) → wraps the metadata master key and the `always` class key;
/// - metadata master → (KDF) attribute-sealing key, lookup-digest key, token-hash key;
/// - passphrase → Argon2id → key-encryption key → wraps the `whenUnlocked` and
///   `afterFirstUnlock` class keys.
///
/// Locked means the `whenUnlocked` key is gone from memory; `afterFirstUnlock` stays once
/// unwrapped until the process exits (docs/semantics.md §2).
package final class Barrier: Sendable {
    private let attributeKey: SecureBytes
    private let lookupDigest: KeyedDigest
    private let tokenDigest: KeyedDigest
    private let alwaysKey: SecureBytes
    /// Wraps the class keys for the other replicas sharing the store (see `SharedLockState`).
    private let replicaKey: SecureBytes
    private let classKeys: Mutex<ClassKeys>
    /// Group names by their digest, learned from opened items and from tokens' groups (at most
    /// `maxGroupNames`): a search of a token of every group that names a whole primary key but
    /// its group reads each group's item by its primary key (`GroupKeys`), or compares an item's
    /// primary-key digest instead of opening the item (`ExactValues.KeyCheck`).
    private let groupNames = Mutex<[DigestKey: String]>([:])
    package static let maxGroupNames = 4096

    private struct ClassKeys {
        var whenUnlocked: SecureBytes?
        var afterFirstUnlock: SecureBytes?
        /// What was made of key material for reuse (`keep`): dropped with the `whenUnlocked` key.
        var kept: [[UInt8]: any AnyObject & Sendable] = [:]
    }

    /// The most objects `keep` holds at once.
    package static let maxKept = 32

    /// Meta keys under which wrapped keys are stored.
    package enum MetaKey {
        package static let metadata = "wrap.metadata"
        package static let always = "wrap.always"
        package static let whenUnlocked = "wrap.whenUnlocked"
        package static let afterFirstUnlock = "wrap.afterFirstUnlock"
        package static let salt = "kdf.salt"
        package static let limits = "kdf.limits"
    }

    /// Opens the barrier with the instance key: metadata and `always` keys available, locked.
    package init(instanceKey: SecureBytes, wrappedMetadata: [UInt8], wrappedAlways: [UInt8]) throws(CryptoError) {
        let master = try AEAD.unwrap(wrappedMetadata, with: instanceKey, label: Label.metadata)
        attributeKey = try SubkeyDerivation.derive(from: master, id: 1, context: "kcd-meta")
        lookupDigest = try KeyedDigest(key: SubkeyDerivation.derive(from: master, id: 2, context: "kcd-meta"))
        tokenDigest = try KeyedDigest(key: SubkeyDerivation.derive(from: master, id: 3, context: "kcd-meta"))
        replicaKey = try SubkeyDerivation.derive(from: master, id: 4, context: "kcd-meta")
        alwaysKey = try AEAD.unwrap(wrappedAlways, with: instanceKey, label: Label.always)
        classKeys = Mutex(ClassKeys())
    }

    // MARK: lock state

    package var isUnlocked: Bool { classKeys.withLock { $0.whenUnlocked != nil } }

    /// Installs unwrapped class keys: unlocked. The `afterFirstUnlock` key, once installed, stays.
    package func install(whenUnlocked: SecureBytes, afterFirstUnlock: SecureBytes) {
        classKeys.withLock {
            $0.whenUnlocked = whenUnlocked
            if $0.afterFirstUnlock == nil { $0.afterFirstUnlock = afterFirstUnlock }
        }
    }

    /// Drops the `whenUnlocked` key and zeroes it (`sodium_free` zeroes when the last in-flight
    /// user releases it; with none, that is now).
    package func lock() {
        classKeys.withLock {
            $0.whenUnlocked = nil
            $0.kept.removeAll()
        }
    }

    // MARK: kept objects

    /// The object kept under `id`, if the barrier is unlocked and keeps one.
    package func kept(_ id: [UInt8]) -> (any AnyObject & Sendable)? {
        classKeys.withLock { $0.whenUnlocked == nil ? nil : $0.kept[id] }
    }

    /// Keeps `object`, made of key material (a private key loaded for use), under `id` until the
    /// barrier locks or `forgetKept` runs: only while unlocked, and at most `maxKept` (when full,
    /// all go). `id` names every input of the material's authentication, so that an item whose
    /// row changed reaches the material only by opening it again.
    package func keep(_ object: any AnyObject & Sendable, as id: [UInt8]) {
        classKeys.withLock {
            guard $0.whenUnlocked != nil else { return }
            if $0.kept.count >= Self.maxKept { $0.kept.removeAll() }
            $0.kept[id] = object
        }
    }

    /// Drops every kept object (a key item was changed or deleted).
    package func forgetKept() {
        classKeys.withLock { $0.kept.removeAll() }
    }

    /// How many objects are kept.
    package var keptCount: Int { classKeys.withLock { $0.kept.count } }

    /// Unwraps the passphrase-protected class keys without installing them; fails on a wrong passphrase.
    package static func unwrapClassKeys(kek: SecureBytes, wrappedWhenUnlocked: [UInt8], wrappedAfterFirstUnlock: [UInt8])
        throws(CryptoError)
        -> (whenUnlocked: SecureBytes, afterFirstUnlock: SecureBytes)
    {
        (
            try AEAD.unwrap(wrappedWhenUnlocked, with: kek, label: Label.whenUnlocked),
            try AEAD.unwrap(wrappedAfterFirstUnlock, with: kek, label: Label.afterFirstUnlock)
        )
    }

    /// The installed class keys wrapped for the other replicas, bound to `epoch`; `nil` when locked.
    package func wrapClassKeysForReplicas(epoch: UInt64) throws(CryptoError) -> (
        whenUnlocked: [UInt8], afterFirstUnlock: [UInt8]
    )? {
        let keys = classKeys.withLock { ($0.whenUnlocked, $0.afterFirstUnlock) }
        guard let whenUnlocked = keys.0, let afterFirstUnlock = keys.1 else { return nil }
        return (
            try AEAD.wrap(whenUnlocked, with: replicaKey, label: Label.replica(Label.whenUnlocked, epoch)),
            try AEAD.wrap(afterFirstUnlock, with: replicaKey, label: Label.replica(Label.afterFirstUnlock, epoch))
        )
    }

    /// The class keys another replica wrapped for `epoch`; fails if they were wrapped for another.
    package func unwrapClassKeysFromReplica(_ wrapped: (whenUnlocked: [UInt8], afterFirstUnlock: [UInt8]), epoch: UInt64)
        throws(CryptoError) -> (whenUnlocked: SecureBytes, afterFirstUnlock: SecureBytes)
    {
        (
            try AEAD.unwrap(wrapped.whenUnlocked, with: replicaKey, label: Label.replica(Label.whenUnlocked, epoch)),
            try AEAD.unwrap(wrapped.afterFirstUnlock, with: replicaKey, label: Label.replica(Label.afterFirstUnlock, epoch))
        )
    }

    /// Wrapping labels, bound into each wrapped key's associated data.
    package enum Label {
        package static let metadata = "metadata"
        package static let always = "class.always"
        package static let whenUnlocked = "class.whenUnlocked"
        package static let afterFirstUnlock = "class.afterFirstUnlock"
        package static func replica(_ label: String, _ epoch: UInt64) -> String { "replica.\(epoch).\(label)" }
    }

    /// The class keys: `always` (under the instance key), `afterFirstUnlock` and `whenUnlocked`
    /// (under the passphrase).
    package enum ClassKey: Sendable {
        case always, afterFirstUnlock, whenUnlocked
    }

    /// The class key `kind`, or `nil` while it is unavailable (locked).
    package func classKey(_ kind: ClassKey) -> SecureBytes? {
        switch kind {
        case .always: alwaysKey
        case .afterFirstUnlock: classKeys.withLock { $0.afterFirstUnlock }
        case .whenUnlocked: classKeys.withLock { $0.whenUnlocked }
        }
    }

    // MARK: sealing

    package func sealAttributes(_ plaintext: [UInt8], ad: [UInt8]) throws(CryptoError) -> [UInt8] {
        try AEAD.seal(plaintext, key: attributeKey, associatedData: ad)
    }

    package func openAttributes(_ frame: [UInt8], ad: [UInt8]) throws(CryptoError) -> [UInt8] {
        try AEAD.open(frame, key: attributeKey, associatedData: ad)
    }

    package func sealSecret(_ secret: [UInt8], key: SecureBytes, ad: [UInt8]) throws(CryptoError) -> [UInt8] {
        try AEAD.seal(secret, key: key, associatedData: ad)
    }

    /// Seals a secret held in `sodium_malloc` memory (a generated private key).
    package func sealSecret(_ secret: SecureBytes, key: SecureBytes, ad: [UInt8]) throws(CryptoError) -> [UInt8] {
        try secret.withUnsafeBytes { (bytes) throws(CryptoError) in try AEAD.seal(bytes, key: key, associatedData: ad) }
    }

    /// Opens a secret into `sodium_malloc` memory (a private key about to be used).
    package func openSecretSecure(_ frame: [UInt8], key: SecureBytes, ad: [UInt8]) throws(CryptoError) -> SecureBytes {
        try AEAD.openSecure(frame, key: key, associatedData: ad)
    }

    /// Opens a secret sealed for (`ref`, item class `classByte`, `group`): `secretAD`'s bytes,
    /// built on the stack.
    package func openSecret(
        _ frame: [UInt8], key: SecureBytes, ref: [UInt8], classByte: UInt8, group: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        let prefix: StaticString = "secret"
        let count = prefix.utf8CodeUnitCount + ref.count + 1 + group.count
        let opened = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { ad in
            var n = 0
            func put(_ byte: UInt8) {
                ad[n] = byte
                n += 1
            }
            prefix.withUTF8Buffer { $0.forEach(put) }
            ref.forEach(put)
            put(classByte)
            group.forEach(put)
            return AEAD.open(frame, key: key, associatedData: UnsafeRawBufferPointer(ad))
        }
        return try opened.get()
    }

    /// Seals a token's description under the attribute key, bound to its id.
    package func sealToken(_ plaintext: [UInt8], id: String) throws(CryptoError) -> [UInt8] {
        try AEAD.seal(plaintext, key: attributeKey, associatedData: Array("token".utf8) + Array(id.utf8))
    }

    package func openToken(_ frame: [UInt8], id: String) throws(CryptoError) -> [UInt8] {
        try AEAD.open(frame, key: attributeKey, associatedData: Array("token".utf8) + Array(id.utf8))
    }

    /// Seals a search's page cursor under the attribute key, bound to its token and query.
    package func sealCursor(_ plaintext: [UInt8], binding: [UInt8]) throws(CryptoError) -> [UInt8] {
        try AEAD.seal(plaintext, key: attributeKey, associatedData: Array("page".utf8) + binding)
    }

    package func openCursor(_ frame: [UInt8], binding: [UInt8]) throws(CryptoError) -> [UInt8] {
        try AEAD.open(frame, key: attributeKey, associatedData: Array("page".utf8) + binding)
    }

    /// A keychain event for the log every replica reads, bound to its keychain's name.
    package func sealEvent(_ plaintext: [UInt8], keychain: String) throws(CryptoError) -> [UInt8] {
        try AEAD.seal(plaintext, key: attributeKey, associatedData: Array("event".utf8) + Array(keychain.utf8))
    }

    package func openEvent(_ frame: [UInt8], keychain: String) throws(CryptoError) -> [UInt8] {
        try AEAD.open(frame, key: attributeKey, associatedData: Array("event".utf8) + Array(keychain.utf8))
    }

    // MARK: digests

    /// The name of the group whose digest is `digest`, when an opened item or a token has shown it.
    package func groupName(digest: [UInt8]) -> String? { groupNames.withLock { $0[DigestKey(digest)] } }

    /// Notes `name` as the group of `digest`: an opened item's group and its row's digest of it,
    /// which the item's sealed attributes are bound to, or a token's group and its digest.
    package func learnGroupName(_ name: String, digest: [UInt8]) {
        groupNames.withLock { names in
            if names.count < Self.maxGroupNames, names[DigestKey(digest)] == nil { names[DigestKey(digest)] = name }
        }
    }

    /// A digest under the lookup key of what `build` appends: the domain of an attribute's
    /// lookup digest and of a primary key (`Barrier+Items` in the keychain core).
    package func lookupDigest(_ build: (KeyedDigest.Input) -> Void) -> [UInt8] {
        lookupDigest.digest(build)
    }

    package func groupDigest(_ group: String) -> [UInt8] {
        lookupDigest.digest { input in
            input.append([0x47])
            input.append(group)
        }
    }

    /// The digest of one domain suffix of an internet password's server: `matchHostOrSubdomainOfHost`
    /// finds its items through these, without opening any item's attributes.
    package func hostSuffix(_ host: String) -> [UInt8] {
        lookupDigest.digest { input in
            input.append([0x48])
            input.append(host)
        }
    }

    package func tokenHash(_ token: String) -> [UInt8] {
        var token = token
        return token.withUTF8 { tokenHash(UnsafeRawBufferPointer($0)) }
    }

    /// `tokenHash(_:)` of a token's UTF-8 bytes where they lie (a request's header).
    package func tokenHash(_ token: UnsafeRawBufferPointer) -> [UInt8] {
        tokenDigest.digest { input in
            input.append([0x54])
            input.append(token)
        }
    }

    // MARK: creation

    /// Fresh keys for a new keychain, wrapped for storage.
    package static func generate(instanceKey: SecureBytes, kek: SecureBytes) throws(CryptoError) -> [String: [UInt8]] {
        let master = try SecureBytes.random(count: 32)
        let always = try SecureBytes.random(count: AEAD.keyLength)
        let whenUnlocked = try SecureBytes.random(count: AEAD.keyLength)
        let afterFirstUnlock = try SecureBytes.random(count: AEAD.keyLength)
        return [
            MetaKey.metadata: try AEAD.wrap(master, with: instanceKey, label: Label.metadata),
            MetaKey.always: try AEAD.wrap(always, with: instanceKey, label: Label.always),
            MetaKey.whenUnlocked: try AEAD.wrap(whenUnlocked, with: kek, label: Label.whenUnlocked),
            MetaKey.afterFirstUnlock: try AEAD.wrap(afterFirstUnlock, with: kek, label: Label.afterFirstUnlock),
        ]
    }
}

/// A keyed digest as a dictionary key: hashed by its first eight bytes, which a keyed hash
/// spreads evenly already, rather than byte by byte; compared whole.
package struct DigestKey: Hashable {
    package let bytes: [UInt8]

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package func hash(into hasher: inout Hasher) {
        var prefix: UInt64 = 0
        for byte in bytes.prefix(8) { prefix = prefix << 8 | UInt64(byte) }
        hasher.combine(prefix)
    }
}

import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import Logging

/// An item with its sealed attributes opened: what the core reasons about between storage rows.
struct DecodedItem {
    var record: ItemRecord
    var itemClass: ItemClass
    var group: String
    var protection: Protection
    /// Every attribute but accessGroup, accessible, synchronizable and the dates.
    var attributes: [(key: SchemaKey, value: AttributeValue)]
    /// The item's access object, when it has one (docs/semantics.md, *Access objects*).
    var access: AccessObject?

    /// What its secret is sealed to (`Barrier.secretAD`): its row's reference, class and group,
    /// and whether it has an access object.
    var secretAD: [UInt8] {
        Barrier.secretAD(ref: record.ref, itemClass: itemClass, group: record.group, guarded: access != nil)
    }

    static let accessibleKey = Schema.key(canonical: "accessible")!

    init(
        record: ItemRecord, itemClass: ItemClass, group: String, protection: Protection,
        attributes: [(key: SchemaKey, value: AttributeValue)], access: AccessObject? = nil
    ) {
        self.record = record
        self.itemClass = itemClass
        self.group = group
        self.protection = protection
        self.attributes = attributes
        self.access = access
    }

    /// Opens `record`'s attributes; errSecDecode when they fail authentication (tampering, a moved row).
    init(_ record: ItemRecord, barrier: Barrier, logger: Logger? = nil) throws(KeychainError) {
        let (itemClass, protection, plaintext) = try Self.open(record, barrier: barrier, logger: logger)
        guard let (group, attributes, access) = SealedAttributes.decode(plaintext) else {
            throw .decode("attributes: a stored attribute is malformed")
        }
        self.init(
            record: record, itemClass: itemClass, group: group, protection: protection, attributes: attributes, access: access)
    }

    /// Whether `record`'s opened attributes hold each of `exact`'s values, without decoding
    /// them; errSecDecode as `init`.
    static func holds(_ record: ItemRecord, _ exact: ExactValues, barrier: Barrier, logger: Logger?) throws(KeychainError)
        -> Bool
    {
        let plaintext = try open(record, barrier: barrier, logger: logger).plaintext
        if let held = SealedAttributes.hold(plaintext, exact) { return held }
        // Version 0, or malformed: the same opened bytes, decoded.
        guard let (_, attributes, _) = SealedAttributes.decode(plaintext) else {
            throw .decode("attributes: a stored attribute is malformed")
        }
        return exact.accepts(attributes)
    }

    /// The record's class, protection class and opened attributes.
    private static func open(_ record: ItemRecord, barrier: Barrier, logger: Logger?) throws(KeychainError)
        -> (ItemClass, Protection, plaintext: [UInt8])
    {
        guard let itemClass = ItemClass(rawValue: record.itemClass), let protection = Protection(rawValue: record.protection)
        else { throw .decode("a stored item has an unknown class or protection class") }
        let ad = Barrier.attributesAD(
            ref: record.ref, itemClass: itemClass, group: record.group, protection: protection, sync: record.synchronizable)
        guard let plaintext = try? barrier.openAttributes(record.attributes, ad: ad) else {
            logger?.error("item attributes failed authentication", metadata: ["item.ref": "\(PersistentRef.encode(record.ref))"])
            throw .decode("attributes: the stored attributes failed authentication")
        }
        return (itemClass, protection, plaintext)
    }

    /// The attributes of an answer.
    var itemAttributes: ItemAttributes {
        ItemAttributes(
            itemClass: itemClass, accessGroup: group, accessible: protection, synchronizable: record.synchronizable,
            creationDate: record.created, modificationDate: record.modified, values: attributes)
    }

    /// Recomputes the sealed attributes, the primary-key digest and the lookup digests.
    mutating func reseal(barrier: Barrier) throws(KeychainError) {
        let plaintext = SealedAttributes.encode(group: group, attributes: attributes, access: access)
        let ad = Barrier.attributesAD(
            ref: record.ref, itemClass: itemClass, group: record.group, protection: protection, sync: record.synchronizable)
        record.attributes = try Keychain.crypto { () throws(CryptoError) in try barrier.sealAttributes(plaintext, ad: ad) }
        let pkValues = itemClass.primaryKey.map { key in
            attributes.first { $0.key == key }?.value ?? AttributeValue.emptyDefault(for: key.type)
        }
        record.primaryKey = barrier.primaryKey(itemClass: itemClass, group: group, sync: record.synchronizable, values: pkValues)
        var lookups: [[UInt8]] = []
        for (key, value) in attributes where key.isLookup { lookups.append(barrier.lookup(key, value)) }
        lookups.append(barrier.lookup(Self.accessibleKey, .int(Int64(protection.rawValue))))
        if itemClass == .internetPassword,
            case .string(let server)? = attributes.first(where: { $0.key == Self.serverKey })?.value
        {
            for suffix in Self.domainSuffixes(server) { lookups.append(barrier.hostSuffix(suffix)) }
        }
        record.lookups = lookups
    }

    static let serverKey = Schema.key(canonical: "server")!

    /// `a.b.c`, `b.c` and `c`: the hosts of which `a.b.c` is the host or a subdomain.
    static func domainSuffixes(_ server: String) -> [String] {
        guard !server.isEmpty else { return [] }
        var suffixes = [server]
        var rest = Substring(server)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { suffixes.append(String(rest)) }
        }
        return suffixes
    }
}

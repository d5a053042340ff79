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
    var attributes: [(spec: AttributeSpec, value: AttributeValue)]

    static let accessibleSpec = AttributeSpec.byName["accessible"]!

    init(record: ItemRecord, itemClass: ItemClass, group: String, protection: Protection,
         attributes: [(spec: AttributeSpec, value: AttributeValue)]) {
        self.record = record
        self.itemClass = itemClass
        self.group = group
        self.protection = protection
        self.attributes = attributes
    }

    /// Opens `record`'s attributes; errSecDecode when they fail authentication (tampering, a moved row).
    init(_ record: ItemRecord, barrier: Barrier, logger: Logger? = nil) throws(KeychainError) {
        guard let itemClass = ItemClass(rawValue: record.itemClass), let protection = Protection(rawValue: record.protection)
        else { throw .decode("a stored item has an unknown class or protection class") }
        let ad = Barrier.attributesAD(
            ref: record.ref, itemClass: itemClass, group: record.group, protection: protection, sync: record.synchronizable)
        guard let plaintext = try? barrier.openAttributes(record.attributes, ad: ad),
            case .object(let object)? = try? JSON.parse(plaintext),
            case .string(let group)? = object["accessGroup"]
        else {
            logger?.error("item attributes failed authentication", metadata: ["item.ref": "\(PersistentRef.encode(record.ref))"])
            throw .decode("attributes: the stored attributes failed authentication")
        }
        var attributes: [(spec: AttributeSpec, value: AttributeValue)] = []
        for (name, value) in object where name != "accessGroup" {
            guard let spec = AttributeSpec.byName[name],
                let parsed = try? AttributeValue.parse(value, as: spec, key: name, lenient: false)
            else { throw .decode("attributes: a stored attribute is malformed") }
            attributes.append((spec, parsed))
        }
        self.init(record: record, itemClass: itemClass, group: group, protection: protection, attributes: attributes)
    }

    /// The sealed form of the attributes: canonical names and output-ready values.
    private var sealedJSON: JSONObject {
        var object: JSONObject = ["accessGroup": .string(group)]
        for (spec, value) in attributes { object[spec.name] = value.json(as: spec.type) }
        return object
    }

    /// The `attributes` object of an answer.
    var attributesJSON: JSONObject {
        var object: JSONObject = [
            "class": .string(itemClass.name), "accessGroup": .string(group), "accessible": .string(protection.name),
            "synchronizable": .bool(record.synchronizable),
            "creationDate": .string(RFC3339.format(milliseconds: record.created)),
            "modificationDate": .string(RFC3339.format(milliseconds: record.modified)),
        ]
        for (spec, value) in attributes { object[spec.name] = value.json(as: spec.type) }
        return object
    }

    /// Recomputes the sealed attributes, the primary-key digest and the lookup digests.
    mutating func reseal(barrier: Barrier) throws(KeychainError) {
        let plaintext = JSON.object(sealedJSON).serialized()
        let ad = Barrier.attributesAD(
            ref: record.ref, itemClass: itemClass, group: record.group, protection: protection, sync: record.synchronizable)
        record.attributes = try Keychain.crypto { () throws(CryptoError) in try barrier.sealAttributes(plaintext, ad: ad) }
        let pkValues = itemClass.primaryKey.map { spec in
            attributes.first { $0.spec == spec }?.value ?? AttributeValue.emptyDefault(for: spec.type)
        }
        record.primaryKey = barrier.primaryKey(itemClass: itemClass, group: group, sync: record.synchronizable, values: pkValues)
        var lookups: [[UInt8]] = []
        for (spec, value) in attributes where spec.isLookup {
            lookups.append(barrier.lookup(spec, value, folded: false)!)
            if let folded = barrier.lookup(spec, value, folded: true) { lookups.append(folded) }
        }
        lookups.append(barrier.lookup(Self.accessibleSpec, .int(Int64(protection.rawValue)), folded: false)!)
        record.lookups = lookups
    }
}

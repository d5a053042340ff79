import KeychainBarrier
import KeychainCrypto
import KeychainJSON

/// A migration bundle's manifest: what it holds, counted, without a value (docs/semantics.md §2:
/// which protection classes leave in a migration bundle). Sealed inside the bundle as its first message.
public struct BundleManifest: Sendable, Equatable {
    /// The bundle format (`MigrationBundle.version`).
    public var format: Int
    /// Milliseconds since 1970 when the bundle was made.
    public var created: Int64
    public var itemCount: Int
    /// Items per class, by canonical class name.
    public var classes: [String: Int]
    /// Items per access group.
    public var groups: [String: Int]
    /// Items per protection class, by canonical name.
    public var accessible: [String: Int]
    /// Items per keychain, by name (empty in a format-1 bundle, which names none).
    public var keychains: [String: Int]
    /// Items left behind: `…ThisDeviceOnly` ones per protection class, and keys that are not
    /// extractable under `notExtractable`.
    public var leftBehind: [String: Int]

    /// `leftBehind`'s entry for keys added with `isExtractable: false`, which never leave.
    public static let notExtractable = "notExtractable"

    /// A manifest that counts no item yet (`count` adds them), with `leftBehind` as given.
    init(created: Int64, leftBehind: [String: Int]) {
        format = Int(MigrationBundle.version)
        self.created = created
        itemCount = 0
        classes = [:]
        groups = [:]
        accessible = [:]
        keychains = [:]
        self.leftBehind = leftBehind
    }

    /// The manifest of `items`, with `leftBehind` as given.
    init(items: [BundleItem], created: Int64, leftBehind: [String: Int]) {
        self.init(created: created, leftBehind: leftBehind)
        for item in items { count(item.itemClass, group: item.group, protection: item.protection, keychain: item.keychain) }
    }

    /// Counts one more item, of `itemClass` in `group` under `protection`, from `keychain`.
    mutating func count(_ itemClass: ItemClass, group: String, protection: Protection, keychain: String?) {
        itemCount += 1
        classes[itemClass.name, default: 0] += 1
        groups[group, default: 0] += 1
        accessible[protection.name, default: 0] += 1
        if let keychain { keychains[keychain, default: 0] += 1 }
    }

    var encoded: [UInt8] {
        func counts(_ table: [String: Int]) -> JSON {
            .object(JSONObject(table.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSON.int(Int64($0.value))) }))
        }
        return JSON.object([
            "format": .int(Int64(format)), "created": .int(created), "itemCount": .int(Int64(itemCount)),
            "classes": counts(classes), "groups": counts(groups), "accessible": counts(accessible),
            "keychains": counts(keychains), "leftBehind": counts(leftBehind),
        ]).serialized()
    }

    init?(decoding bytes: [UInt8]) {
        guard case .object(let object)? = try? JSON.parse(bytes), let format = object["format"]?.intValue,
            let created = object["created"]?.intValue, let itemCount = object["itemCount"]?.intValue, itemCount >= 0
        else { return nil }
        func counts(_ name: String) -> [String: Int]? {
            guard case .object(let table)? = object[name] else { return nil }
            var counts: [String: Int] = [:]
            for (key, value) in table {
                guard let count = value.intValue, count >= 0, counts[key] == nil else { return nil }
                counts[key] = Int(count)
            }
            return counts
        }
        guard let classes = counts("classes"), let groups = counts("groups"), let accessible = counts("accessible"),
            let leftBehind = counts("leftBehind")
        else { return nil }
        // A format-1 manifest has no keychains.
        guard let keychains = object["keychains"] == nil ? [:] : counts("keychains") else { return nil }
        self.format = Int(format)
        self.created = created
        self.itemCount = Int(itemCount)
        self.classes = classes
        self.groups = groups
        self.accessible = accessible
        self.keychains = keychains
        self.leftBehind = leftBehind
    }
}

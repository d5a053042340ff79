public import Foundation
import KeychainJSON

extension AttributeValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    var json: JSON {
        switch self {
        case .string(let s): .string(s)
        case .int(let i): .int(i)
        case .bool(let b): .bool(b)
        case .data(let d): .string(d.base64EncodedString())
        case .date(let d): .string(RFC3339.string(d))
        }
    }
}

/// A search, update or delete query of the typed layer: a class, attributes to match (by
/// their canonical names, `account`, `service`) and the options of a search.
public struct ItemQuery: Sendable {
    var object: JSONObject

    /// Every item of `itemClass`.
    public init(_ itemClass: ItemClass) {
        object = ["class": .string(itemClass.rawValue)]
    }

    /// Generic passwords of a service, an account, or both.
    public static func genericPassword(service: String? = nil, account: String? = nil) -> ItemQuery {
        ItemQuery(.genericPassword).matching("service", service).matching("account", account)
    }

    /// Internet passwords by any part of their primary key.
    public static func internetPassword(
        server: String? = nil, account: String? = nil, protocol: String? = nil, port: Int? = nil, path: String? = nil,
        securityDomain: String? = nil, authenticationType: String? = nil
    ) -> ItemQuery {
        ItemQuery(.internetPassword).matching("server", server).matching("account", account)
            .matching("protocol", `protocol`).matching("port", port.map { Int64($0) }).matching("path", path)
            .matching("securityDomain", securityDomain).matching("authenticationType", authenticationType)
    }

    /// Certificates, by label when given.
    public static func certificate(label: String? = nil) -> ItemQuery {
        ItemQuery(.certificate).matching("label", label)
    }

    /// Keys, by label, application tag or key class (`public`, `private`, `symmetric`).
    public static func key(label: String? = nil, applicationTag: Data? = nil, keyClass: String? = nil) -> ItemQuery {
        var query = ItemQuery(.key).matching("label", label).matching("keyClass", keyClass)
        if let applicationTag { query = query.matching("applicationTag", .data(applicationTag)) }
        return query
    }

    /// Identities (a certificate with its private key), by label when given.
    public static func identity(label: String? = nil) -> ItemQuery {
        ItemQuery(.identity).matching("label", label)
    }

    /// Also matching `value` of the attribute or query key `name` (canonical, `kSec…` or
    /// Apple's value); `nil` leaves the query as it is.
    public func matching(_ name: String, _ value: AttributeValue?) -> ItemQuery {
        guard let value else { return self }
        var copy = self
        copy.object[name] = value.json
        return copy
    }

    func matching(_ name: String, _ value: String?) -> ItemQuery { matching(name, value.map(AttributeValue.string)) }
    func matching(_ name: String, _ value: Int64?) -> ItemQuery { matching(name, value.map(AttributeValue.int)) }

    /// In the access group `group` only.
    public func accessGroup(_ group: String) -> ItemQuery { matching("accessGroup", .string(group)) }

    /// At most `limit` items (a search's `matchLimit`).
    public func limit(_ limit: Int) -> ItemQuery { matching("matchLimit", .int(Int64(limit))) }

    /// In the keychain `name` only (`kSecUseKeychain`).
    public func keychain(_ name: String) -> ItemQuery { matching("useKeychain", .string(name)) }

    /// In the keychains `names`, in order (`kSecMatchSearchList`); one name is `keychain(_:)`,
    /// none leaves the token's search list.
    public func searching(_ names: [String]) -> ItemQuery {
        guard names.count > 1 else { return names.first.map(keychain) ?? self }
        var copy = self
        copy.object["matchSearchList"] = .array(names.map { .string($0) })
        return copy
    }
}

/// What an add stores besides the class's attributes.
public struct NewItemOptions: Sendable {
    /// The label (`kSecAttrLabel`).
    public var label: String?
    /// The access group; `nil` for the token's first group.
    public var accessGroup: String?
    /// The protection class: `whenUnlocked` (the default), `afterFirstUnlock`, `always`, or a
    /// `…ThisDeviceOnly` variant.
    public var accessible: String?
    /// More attributes, by canonical name.
    public var attributes: [String: AttributeValue] = [:]
    /// The new item's access object (kSecAttrAccess); `nil` for none.
    public var access: SecAccess?

    /// Options with the given values; `nil` leaves each to the server's default.
    public init(
        label: String? = nil, accessGroup: String? = nil, accessible: String? = nil, attributes: [String: AttributeValue] = [:]
    ) {
        self.label = label
        self.accessGroup = accessGroup
        self.accessible = accessible
        self.attributes = attributes
    }

    func apply(to object: inout JSONObject) {
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) { object[name] = value.json }
        if let label { object["label"] = .string(label) }
        if let accessGroup { object["accessGroup"] = .string(accessGroup) }
        if let accessible { object["accessible"] = .string(accessible) }
        if let access { object["access"] = access.json }
    }
}

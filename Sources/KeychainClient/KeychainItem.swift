public import Foundation
import KeychainJSON

/// An item's class (`kSecClass`).
public enum ItemClass: String, Sendable, CaseIterable {
    case genericPassword, internetPassword, certificate, key, identity

    /// Apple's value of the class constant (`kSecClassGenericPassword` is `genp`).
    public var constant: String {
        switch self {
        case .genericPassword: kSecClassGenericPassword
        case .internetPassword: kSecClassInternetPassword
        case .certificate: kSecClassCertificate
        case .key: kSecClassKey
        case .identity: kSecClassIdentity
        }
    }
}

/// An attribute's value as the server answers it.
public enum AttributeValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case int(Int64)
    case bool(Bool)
    case data(Data)
    case date(Date)

    public var description: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .bool(let b): String(b)
        case .data(let d): d.base64EncodedString()
        case .date(let d): RFC3339.string(d)
        }
    }

    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var int: Int64? { if case .int(let i) = self { i } else { nil } }
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var data: Data? { if case .data(let d) = self { d } else { nil } }
    public var date: Date? { if case .date(let d) = self { d } else { nil } }

    /// The value as Keychain Services gives it in an attribute dictionary: a string, a number,
    /// a boolean, `Data` or a `Date`.
    var appleValue: Any {
        switch self {
        case .string(let s): s
        case .int(let i): Int(i)
        case .bool(let b): b
        case .data(let d): d
        case .date(let d): d
        }
    }
}

/// What `returnRef` answers for a certificate, a key or an identity: the objects
/// `SecCertificateRef` and `SecKeyRef` hold.
public struct ItemReference: Sendable, Equatable {
    /// The certificate's DER.
    public let certificate: Data?
    /// The key's bytes, when it is extractable.
    public let key: Data?
    public let keyType: String?
    public let keyClass: String?
}

/// One item of an answer: its class, attributes (by their canonical names, `account`,
/// `service`), its persistent reference, and its secret or reference when they were asked for.
public struct KeychainItem: Sendable, Equatable {
    public let itemClass: ItemClass?
    /// The attributes by canonical name (`account`, `creationDate`), as ``AttributeValue``.
    public let attributes: [String: AttributeValue]
    /// The item's persistent reference (`kSecValuePersistentRef`): 22 characters, stable for
    /// the item's life.
    public let persistentRef: String?
    /// The secret (`kSecValueData`), when `returnData` was asked and allowed: a password, a
    /// certificate's DER, a key's bytes, an identity's private key.
    public let data: Data?
    /// An identity's certificate (DER), when `returnData` was asked.
    public let certificateData: Data?
    public let reference: ItemReference?

    public subscript(attribute name: String) -> AttributeValue? { attributes[name] }

    public var account: String? { attributes["account"]?.string }
    public var service: String? { attributes["service"]?.string }
    public var label: String? { attributes["label"]?.string }
    public var server: String? { attributes["server"]?.string }
    public var path: String? { attributes["path"]?.string }
    public var port: Int? { attributes["port"]?.int.map { Int($0) } }
    public var accessGroup: String? { attributes["accessGroup"]?.string }
    public var accessible: String? { attributes["accessible"]?.string }
    public var creationDate: Date? { attributes["creationDate"]?.date }
    public var modificationDate: Date? { attributes["modificationDate"]?.date }
    /// The secret as UTF-8 text, when it is.
    public var password: String? { data.flatMap { String(data: $0, encoding: .utf8) } }

    /// An item of a search's or an add's answer.
    init(wire object: JSONObject) throws(KeychainError) {
        var attributes: [String: AttributeValue] = [:]
        if let wire = object["attributes"]?.objectValue {
            for (name, value) in wire {
                guard let parsed = Names.attributeValue(name, value) else {
                    throw .notAvailable("server: the attribute \(name) of an answer has an unexpected value")
                }
                attributes[name] = parsed
            }
        }
        self.attributes = attributes
        itemClass = attributes["class"]?.string.flatMap(ItemClass.init(rawValue:))
        persistentRef = object["persistentRef"]?.stringValue
        if let text = object["valueData"]?.stringValue {
            guard let data = Data(base64Encoded: text) else { throw .notAvailable("server: valueData is not base64") }
            self.data = data
        } else {
            data = nil
        }
        certificateData = object["certificateData"]?.stringValue.flatMap { Data(base64Encoded: $0) }
        if let ref = object["valueRef"]?.objectValue {
            reference = ItemReference(
                certificate: ref["certificate"]?.stringValue.flatMap { Data(base64Encoded: $0) },
                key: ref["key"]?.stringValue.flatMap { Data(base64Encoded: $0) },
                keyType: ref["keyType"]?.stringValue, keyClass: ref["keyClass"]?.stringValue)
        } else {
            reference = nil
        }
    }

    /// The attribute dictionary Keychain Services returns for the item: Apple's keys
    /// (`acct`, `svce`, `class`), with `v_Data` and `v_PersistentRef` when present.
    public var appleAttributes: [String: Any] {
        var out: [String: Any] = [:]
        for (name, value) in attributes {
            out[Names.short(name)] = Names.appleValue(name, value)
        }
        if let data { out[kSecValueData] = data }
        if let persistentRef { out[kSecValuePersistentRef] = Data(persistentRef.utf8) }
        if let reference { out[kSecValueRef] = reference }
        return out
    }
}

/// RFC 3339 dates with milliseconds, as the API writes them.
enum RFC3339 {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func string(_ date: Date) -> String { style.format(date) }

    static func date(_ text: String) -> Date? {
        if let date = try? style.parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}

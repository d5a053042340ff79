public import Foundation
import KeychainJSON

/// An item's class (`kSecClass`).
public enum ItemClass: String, Sendable, CaseIterable {
    /// A generic password (`kSecClassGenericPassword`).
    case genericPassword
    /// An internet password (`kSecClassInternetPassword`).
    case internetPassword
    /// A certificate (`kSecClassCertificate`).
    case certificate
    /// A key (`kSecClassKey`).
    case key
    /// A certificate with its private key (`kSecClassIdentity`).
    case identity

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
    /// Text, or an enumerated value by its canonical name (`whenUnlocked`, `https`).
    case string(String)
    /// A number (`port`, `keySizeInBits`).
    case int(Int64)
    /// A flag (`synchronizable`, `canSign`).
    case bool(Bool)
    /// Bytes (`generic`, `applicationTag`, `issuer`).
    case data(Data)
    /// A date (`creationDate`).
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

    /// The text, when the value is text.
    public var string: String? { if case .string(let s) = self { s } else { nil } }
    /// The number, when the value is a number.
    public var int: Int64? { if case .int(let i) = self { i } else { nil } }
    /// The flag, when the value is a flag.
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The bytes, when the value is bytes.
    public var data: Data? { if case .data(let d) = self { d } else { nil } }
    /// The date, when the value is a date.
    public var date: Date? { if case .date(let d) = self { d } else { nil } }

    /// The value of the attribute `name` as Keychain Services gives it: an enumerated value as
    /// Apple's constant's value (`https` is `htps`, a private key class `1`), anything else as a
    /// string, a number, a boolean, `Data` or a `Date`.
    public func appleValue(ofAttribute name: String) -> Any { Names.appleValue(name, self) }

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
    /// The key's type (`rsa`, `ec`, `ed25519`, `x25519`, `aes`).
    public let keyType: String?
    /// The key's class (`public`, `private`, `symmetric`).
    public let keyClass: String?
}

/// One item of an answer: its class, attributes (by their canonical names, `account`,
/// `service`), its persistent reference, and its secret or reference when they were asked for.
public struct KeychainItem: Sendable, Equatable {
    /// The item's class.
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
    /// What `returnRef` answered for a certificate, a key or an identity.
    public let reference: ItemReference?

    /// The attribute of canonical name `name`.
    public subscript(attribute name: String) -> AttributeValue? { attributes[name] }

    /// The account (`kSecAttrAccount`) of a password.
    public var account: String? { attributes["account"]?.string }
    /// The service (`kSecAttrService`) of a generic password.
    public var service: String? { attributes["service"]?.string }
    /// The label (`kSecAttrLabel`).
    public var label: String? { attributes["label"]?.string }
    /// The server (`kSecAttrServer`) of an internet password.
    public var server: String? { attributes["server"]?.string }
    /// The path (`kSecAttrPath`) of an internet password.
    public var path: String? { attributes["path"]?.string }
    /// The port (`kSecAttrPort`) of an internet password.
    public var port: Int? { attributes["port"]?.int.map { Int($0) } }
    /// The access group the item belongs to.
    public var accessGroup: String? { attributes["accessGroup"]?.string }
    /// The protection class (`whenUnlocked`, `afterFirstUnlock`, `always`, …).
    public var accessible: String? { attributes["accessible"]?.string }
    /// When the item was added.
    public var creationDate: Date? { attributes["creationDate"]?.date }
    /// When the item last changed.
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
        if let reference = secKey.map({ $0 as Any }) ?? reference { out[kSecValueRef] = reference }
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

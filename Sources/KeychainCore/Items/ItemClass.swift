/// An item class (`kSecClass`). The raw value is the code storage keeps.
public enum ItemClass: Int, Sendable, CaseIterable {
    case genericPassword = 1
    case internetPassword = 2
    case certificate = 3
    case key = 4
    case identity = 5

    /// The canonical JSON name.
    public var name: String {
        switch self {
        case .genericPassword: "genericPassword"
        case .internetPassword: "internetPassword"
        case .certificate: "certificate"
        case .key: "key"
        case .identity: "identity"
        }
    }

    public var constantName: String {
        switch self {
        case .genericPassword: "kSecClassGenericPassword"
        case .internetPassword: "kSecClassInternetPassword"
        case .certificate: "kSecClassCertificate"
        case .key: "kSecClassKey"
        case .identity: "kSecClassIdentity"
        }
    }

    public var shortName: String {
        switch self {
        case .genericPassword: "genp"
        case .internetPassword: "inet"
        case .certificate: "cert"
        case .key: "keys"
        case .identity: "idnt"
        }
    }

    /// Whether items of the class have rows of their own: an identity is a certificate joined
    /// with its private key (docs/semantics.md §2), never stored as such.
    public var isStored: Bool { self != .identity }

    /// The protection class an add gets when it names none: certificates are `always`, as
    /// Apple's (`kSecAttrAccessibleAlways` for SecCertificate items); the rest `whenUnlocked`.
    var defaultProtection: Protection { self == .certificate ? .always : .whenUnlocked }

    /// The classes with rows: what a query without a class searches.
    public static let stored = allCases.filter(\.isStored)

    /// Every subset of `stored`, and its class codes, indexed by a bit mask of positions in
    /// `stored`: a query's candidate classes come from here instead of arrays built per query.
    static let storedSubsets: [(classes: [ItemClass], codes: [Int])] = (0..<(1 << stored.count)).map { mask in
        let classes = stored.indices.filter { mask & 1 << $0 != 0 }.map { stored[$0] }
        return (classes, classes.map(\.rawValue))
    }

    /// The class named `text` by its canonical, constant or short name.
    public static func named(_ text: String) -> ItemClass? {
        allCases.first { $0.name == text || $0.constantName == text || $0.shortName == text }
    }

    /// The primary key's attributes, besides `accessGroup` and `synchronizable` (docs/semantics.md §2).
    var primaryKey: [SchemaKey] { Schema.primaryKey(of: self) }
}

/// A protection class (`kSecAttrAccessible`). The raw value is the code storage keeps.
public enum Protection: Int, Sendable, CaseIterable {
    case whenUnlocked = 1
    case afterFirstUnlock = 2
    case always = 3
    case whenUnlockedThisDeviceOnly = 4
    case afterFirstUnlockThisDeviceOnly = 5
    case alwaysThisDeviceOnly = 6

    public var name: String {
        switch self {
        case .whenUnlocked: "whenUnlocked"
        case .afterFirstUnlock: "afterFirstUnlock"
        case .always: "always"
        case .whenUnlockedThisDeviceOnly: "whenUnlockedThisDeviceOnly"
        case .afterFirstUnlockThisDeviceOnly: "afterFirstUnlockThisDeviceOnly"
        case .alwaysThisDeviceOnly: "alwaysThisDeviceOnly"
        }
    }

    /// Apple's stored `pdmn` values.
    var shortName: String {
        switch self {
        case .whenUnlocked: "ak"
        case .afterFirstUnlock: "ck"
        case .always: "dk"
        case .whenUnlockedThisDeviceOnly: "aku"
        case .afterFirstUnlockThisDeviceOnly: "cku"
        case .alwaysThisDeviceOnly: "dku"
        }
    }

    /// The class whose key seals the secret: ThisDeviceOnly shares its base class's key.
    public var keyClass: Protection {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly: .whenUnlocked
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: .afterFirstUnlock
        case .always, .alwaysThisDeviceOnly: .always
        }
    }

    /// Never leaves this instance in a migration bundle.
    public var isThisDeviceOnly: Bool { rawValue >= 4 }

    public static func named(_ text: String) -> Protection? {
        allCases.first {
            $0.name == text || "kSecAttrAccessible" + $0.name.prefix(1).uppercased() + $0.name.dropFirst() == text
                || $0.shortName == text
        }
    }
}

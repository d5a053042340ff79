/// How many items a search returns (`kSecMatchLimit`).
public enum MatchLimit: Sendable, Equatable {
    case one
    case all
    case count(Int)

    var sqlLimit: Int? {
        switch self {
        case .one: 1
        case .all: nil
        case .count(let n): n
        }
    }
}

/// Which synchronizable state a query names (`kSecAttrSynchronizable`).
public enum SynchronizableMatch: Sendable, Equatable {
    case only(Bool)
    /// `kSecAttrSynchronizableAny`: both, when matching.
    case any
}

/// What a query dictionary is used for: each allows different keys (docs/semantics.md §3).
public enum QueryRole: Sendable {
    case add, search, updateQuery, attributesToUpdate, delete
}

/// A query dictionary with its keys resolved and its values typed: what SecItemAdd,
/// SecItemCopyMatching, SecItemUpdate and SecItemDelete take. A key not given is `nil`.
///
/// The keychain checks it against the operation it is used for (`check(for:)`); how it was
/// spelled on the wire (JSON, URL parameters) is the API's business.
public struct ItemQuery: Sendable {
    public var itemClass: ItemClass?
    /// Attributes other than accessGroup, accessible and synchronizable, in input order.
    public var attributes: [(key: SchemaKey, value: AttributeValue)] = []
    public var accessGroup: String?
    public var accessible: Protection?
    public var synchronizable: SynchronizableMatch?
    /// Dates to match exactly, as answers show them (milliseconds since 1970): a result's
    /// attributes fed back as a query find the item (`si-10-find-internet.c`). Never set.
    public var creationDate: Int64?
    public var modificationDate: Int64?
    public var matchLimit: MatchLimit?
    public var matchCaseInsensitive: Bool?
    /// Internet passwords whose `server` is this host or ends with `.` + it (securityd's rule).
    public var matchHostOrSubdomainOfHost: String?
    /// Certificates whose subject, issuers, email addresses or validity match.
    public var certificateMatch = CertificateMatch()
    public var returnData: Bool?
    public var returnAttributes: Bool?
    public var returnPersistentRef: Bool?
    /// kSecReturnRef: what stands for Apple's SecCertificate, SecKey and SecIdentity objects,
    /// the certificate's DER and the key's bytes (`ItemReference`); nothing for a password.
    public var returnRef: Bool?
    public var valueData: [UInt8]?
    /// The item's access object, on add (kSecAttrAccess).
    public var access: AccessObject?
    /// An identity's certificate (DER), on add: `valueData` is then its private key.
    public var certificateData: [UInt8]?
    /// The 16 bytes of a persistent reference.
    public var persistentRef: [UInt8]?
    public var deleteAll: Bool?
    /// The most bytes of one attribute's value (a string's UTF-8 or a byte string), in any query:
    /// an item's attributes are opened whole for every answer that shows them.
    public static let maxAttributeBytes = 4096

    /// The `next` cursor of a search's previous page: the search goes on after its last item.
    public var pageAfter: String?
    /// The keychain named by `useKeychain`, or by a persistent reference outside the default keychain.
    public var keychain: String?
    /// `matchSearchList`: the keychains a search looks in, in order.
    public var searchList: [String]?
    /// Accepted and ignored, so dictionaries written for Apple platforms can be sent unchanged.
    public var useDataProtectionKeychain: Bool?

    public init() {}

    /// The query naming one item by its persistent reference, whatever its synchronizable state.
    public init(persistentRef: [UInt8]) {
        self.persistentRef = persistentRef
        synchronizable = .any
    }

    var caseInsensitive: Bool { matchCaseInsensitive ?? false }
    var wantsData: Bool { returnData ?? false }
    var wantsAttributes: Bool { returnAttributes ?? false }
    var wantsPersistentRef: Bool { returnPersistentRef ?? false }
    var wantsRef: Bool { returnRef ?? false }
    /// Whether the answer opens secrets: the data, or a certificate's or key's reference.
    var opensSecrets: Bool { wantsData || wantsRef }
    var hasReturnKey: Bool { wantsData || wantsAttributes || wantsPersistentRef || wantsRef }

    /// The synchronizable state to match: `nil` for both.
    var synchronizableFilter: Bool? {
        switch synchronizable {
        case .any?: nil
        case .only(let b)?: b
        case nil: false
        }
    }

    /// Whether the query names any attribute at all (a delete without one needs `deleteAll`).
    var namesAttribute: Bool { namesAttributeBesidesRef || persistentRef != nil }

    /// `synchronizable: "any"` names no attribute: it widens a query rather than narrowing it.
    private var namesAttributeBesidesRef: Bool {
        if case .only? = synchronizable { return true }
        return !attributes.isEmpty || accessGroup != nil || accessible != nil || creationDate != nil || modificationDate != nil
    }

    /// The classes a query can match, and their codes: its class, or every supported class
    /// having all its attributes.
    var candidateClasses: (classes: [ItemClass], codes: [Int]) {
        var mask = 0
        for (position, candidate) in ItemClass.stored.enumerated() {
            let fits =
                itemClass.map { $0 == candidate }
                ?? (attributes.allSatisfy { $0.key.applies(to: candidate) }
                    && (matchHostOrSubdomainOfHost == nil || candidate == .internetPassword)
                    && (certificateMatch.isEmpty || candidate == .certificate))
            if fits { mask |= 1 << position }
        }
        if let itemClass, mask == 0 { return ([itemClass], [itemClass.rawValue]) }
        return ItemClass.storedSubsets[mask]
    }
}

extension ItemQuery {
    /// Checks the query for `role`: which keys it may carry there, and whether its class has
    /// its attributes. Errors name the key at fault by its canonical name.
    public func check(for role: QueryRole) throws(KeychainError) {
        if itemClass != nil {
            guard role != .attributesToUpdate else { throw .param("class: the class cannot be changed by an update") }
        } else if role == .add {
            throw .param("class: required on add")
        }
        if role != .search {
            // What update and delete do anyway, securityd accepts there ("match limit not
            // supported by delete" refuses only the others): all.
            if let matchLimit, matchLimit != .all || (role != .updateQuery && role != .delete) {
                throw .param("matchLimit: a search takes any limit; an update's query or a delete only \"all\"")
            }
            if matchCaseInsensitive != nil { throw Self.onlyInSearch("matchCaseInsensitive") }
            if matchHostOrSubdomainOfHost != nil { throw Self.onlyInSearch("matchHostOrSubdomainOfHost") }
            if !certificateMatch.isEmpty, let name = certificateMatch.givenKeys.first { throw Self.onlyInSearch(name) }
        }
        if matchHostOrSubdomainOfHost != nil, let itemClass, itemClass != .internetPassword {
            throw .param("matchHostOrSubdomainOfHost: only internet passwords have a server to match")
        }
        if !certificateMatch.isEmpty, let name = certificateMatch.givenKeys.first, let itemClass, itemClass != .certificate,
            itemClass != .identity
        {
            throw .param("\(name): only certificates and identities have a subject, issuers and a validity to match")
        }
        try checkCertificateMatch()
        // A delete ignores return keys, as securityd does (`si-43-persistent.c`).
        if role == .updateQuery || role == .attributesToUpdate {
            for (name, value) in [
                ("returnData", returnData), ("returnAttributes", returnAttributes),
                ("returnPersistentRef", returnPersistentRef), ("returnRef", returnRef),
            ] where value != nil {
                throw .param("\(name): return keys are allowed only in a search, an add or a delete")
            }
        }
        if access != nil, role != .add {
            throw .param("access: given on add; an item's access object changes through /v1/items/{ref}/access")
        }
        if certificateData != nil, role != .add || itemClass != .identity {
            throw .param("certificateData: allowed only in an add of an identity (its certificate)")
        }
        // In an update's query securityd takes the secret and matches nothing on it
        // (`SecItemTests.m` testMoveGenericPassword); so does keychaind.
        if valueData != nil, role == .search || role == .delete {
            throw .param("valueData: allowed only in an add, an update's query or attributesToUpdate")
        }
        if persistentRef != nil, role == .add || role == .attributesToUpdate {
            throw .param("valuePersistentRef: allowed only in a search, an update query or a delete")
        }
        if deleteAll != nil, role != .delete { throw .param("deleteAll: allowed only in a delete") }
        if pageAfter != nil, role != .search { throw .param("pageAfter: allowed only in a search") }
        if searchList != nil, role != .search { throw .param("matchSearchList: allowed only in a search") }
        if keychain != nil, role == .attributesToUpdate {
            throw .param("useKeychain: an update does not move an item to another keychain")
        }
        if searchList != nil, keychain != nil { throw .param("matchSearchList: give useKeychain or matchSearchList, not both") }
        if role == .add || role == .attributesToUpdate {
            if creationDate != nil { throw .param("creationDate: set by the server, read-only") }
            if modificationDate != nil { throw .param("modificationDate: set by the server, read-only") }
        }
        if synchronizable == .any, role == .add || role == .attributesToUpdate {
            throw .param("synchronizable: \"any\" is allowed only when matching")
        }
        if let accessGroup, accessGroup.utf8.count > 256 {
            throw .param("accessGroup: \(accessGroup.utf8.count) bytes; a group name has at most 256")
        }
        if let host = matchHostOrSubdomainOfHost, host.utf8.count > Self.maxAttributeBytes {
            throw .dataTooLarge("matchHostOrSubdomainOfHost: \(host.utf8.count) bytes; at most \(Self.maxAttributeBytes)")
        }
        for (key, value) in attributes {
            let size: Int
            switch value {
            case .string(let text): size = text.utf8.count
            case .bytes(let bytes): size = bytes.count
            case .int, .bool: size = 0
            }
            guard size <= Self.maxAttributeBytes else {
                throw .dataTooLarge("\(key.name): \(size) bytes; an attribute holds at most \(Self.maxAttributeBytes)")
            }
            if let itemClass, !key.applies(to: itemClass) {
                throw .noSuchAttr(key.name, "class \(itemClass.name) has no such attribute")
            }
            if key.access == .serverSet { throw .param("\(key.name): set by the server, read-only") }
            // A derived attribute given on add or update must equal the certificate's
            // (`Keychain.certificateAttributes`): checked where the certificate is parsed.
        }
        if persistentRef != nil, namesAttributeBesidesRef {
            throw .param("valuePersistentRef: cannot be combined with other attributes")
        }
        if synchronizable == .only(true), let accessible, accessible.isThisDeviceOnly {
            throw .param("accessible: a synchronizable item cannot use \(accessible.name)")
        }
        if role != .add, itemClass == nil {
            // Without a class, an attribute must belong to some supported class.
            for (key, _) in attributes where !ItemClass.stored.contains(where: key.applies(to:)) {
                throw .noSuchAttr(key.name, "no supported class has this attribute")
            }
        }
    }

    private static func onlyInSearch(_ name: String) -> KeychainError {
        .param("\(name): match keys are allowed only in a search")
    }
}

extension ItemQuery {
    /// Sets the keychain the query names; errSecParam when it named another (`useKeychain` and a
    /// persistent reference of another keychain).
    public mutating func name(keychain name: String, key: String) throws(KeychainError) {
        if let keychain, !keychain.isSameBytes(as: name) {
            throw .param("\(key): names keychain \(name), but the query names keychain \(keychain)")
        }
        keychain = name
    }
}

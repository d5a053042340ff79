/// One key of a query dictionary: an attribute or a query key, with everything the keychain
/// knows of it. Rows of `Schema.keys`, the one table of names, types, classes and primary keys
/// (Apple keeps the same in `SecItemSchema.c`).
///
/// A class: the rows are shared, so passing one around costs one reference count.
public final class SchemaKey: Sendable, Hashable, CustomStringConvertible {
    /// What the key does.
    public enum Role: Sendable, Equatable {
        /// An attribute sealed with the item and matched through lookup digests.
        case attribute
        /// Attributes every item has, kept in the item's row rather than sealed.
        case accessGroup, accessible, synchronizable
        /// Set by the server on add and update.
        case creationDate, modificationDate
        case itemClass, matchLimit, matchCaseInsensitive, matchHostOrSubdomainOfHost
        /// Certificate match keys (`CertificateMatch`): they filter the opened certificates.
        case matchSubjectContains, matchSubjectStartsWith, matchSubjectEndsWith, matchSubjectWholeString
        case matchIssuers, matchEmailAddressIfPresent, matchValidOnDate
        case returnData, returnAttributes, returnPersistentRef, returnRef
        case valueData, valuePersistentRef, deleteAll, useDataProtectionKeychain
        /// An identity's certificate (DER) on add; an identity's answer to `returnData` carries it.
        case certificateData
        /// keychaind's own: the cursor of the next page of a search's answer.
        case pageAfter
        /// Which keychain an add goes to, or a search, update or delete looks in (kSecUseKeychain),
        /// and which keychains, in order, a search looks in (kSecMatchSearchList).
        case useKeychain, matchSearchList
        /// The item's access object (kSecAttrAccess), on add.
        case access

        var isAttribute: Bool {
            switch self {
            case .attribute, .accessGroup, .accessible, .synchronizable, .creationDate, .modificationDate: true
            default: false
            }
        }

        /// A query option: what to return, or how to match, rather than an item's attribute,
        /// secret or ref. Its values are a small closed set (a class, a limit, a flag); a match
        /// key that carries a value to match (a host, a subject) is not one.
        var isOption: Bool {
            switch self {
            case .itemClass, .matchLimit, .matchCaseInsensitive, .returnData, .returnAttributes, .returnPersistentRef,
                .returnRef, .deleteAll, .useDataProtectionKeychain:
                true
            default: false
            }
        }
    }

    /// Who sets an attribute's value.
    public enum Access: Sendable, Equatable {
        /// The caller, on add and update.
        case writable
        /// The server (dates): never accepted on input.
        case serverSet
        /// Derived from the secret (a certificate's fields): matched, never set.
        case derived
    }

    /// Its place in `Schema.keys`.
    public let number: Int
    /// The canonical lowerCamelCase JSON name; answers use it, and lookup digests are keyed by it.
    public let name: String
    /// Apple's constant (`kSecAttrAccount`); `nil` for keychaind's own keys.
    public let constantName: String?
    /// Apple's short name (`acct`, `m_Limit`); `nil` when it has none besides `name`.
    public let shortName: String?
    public let role: Role
    public let type: ValueType
    /// The classes that have the attribute (every class for a query key).
    public let classes: ClassSet
    /// The classes whose primary key includes the attribute, in table order.
    public let primaryKeyOf: ClassSet
    public let access: Access
    /// Whether a query can match on it.
    public let searchable: Bool

    init(_ number: Int, _ row: Schema.Row) {
        self.number = number
        name = row.name
        constantName = row.constant
        shortName = row.short
        role = row.role
        type = row.type
        classes = row.classes
        primaryKeyOf = row.primaryKeyOf
        access = row.access
        searchable = row.searchable
    }

    /// Every spelling accepted on input.
    public var spellings: [String] { [name] + [constantName, shortName].compactMap { $0 }.filter { $0 != name } }

    public var isAttribute: Bool { role.isAttribute }

    public func applies(to itemClass: ItemClass) -> Bool { classes.contains(itemClass) }

    /// What a spelling of this key names in a query of `itemClass`: of two keys sharing a
    /// spelling (Apple's `type`), the one the class has.
    public func sharingSpelling(for itemClass: ItemClass) -> SchemaKey {
        guard !applies(to: itemClass), let other = Schema.sharedSpelling[number], other.applies(to: itemClass) else {
            return self
        }
        return other
    }

    /// Whether the attribute is stored sealed and matched through a lookup digest.
    var isLookup: Bool { (role == .attribute || role == .accessible) && searchable }

    public var description: String { name }

    public static func == (lhs: SchemaKey, rhs: SchemaKey) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(number) }
}

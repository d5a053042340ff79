/// The JSON type of a key's value: how the API checks it and how answers show it.
public enum ValueType: Sendable, Equatable {
    case string
    /// Base64 in JSON.
    case bytes
    /// A four-char code: an integer 0…2³²−1, or a string of exactly four ASCII characters.
    case fourCharCode
    case bool
    case integer(ClosedRange<Int64>)
    /// One of a set of named values (`Enumeration`).
    case enumeration(Enumeration)
    /// Milliseconds since 1970 inside; RFC 3339 in JSON.
    case date
    /// A class name (`genericPassword`, `kSecClassGenericPassword`, `genp`).
    case itemClass
    /// `one`, `all` or a positive integer.
    case matchLimit
    /// A persistent reference (22 characters, after `<keychain>.` outside the default keychain).
    case persistentRef
    /// Keychain names: one, or (`matchSearchList`) a list of them.
    case keychainNames
    /// A boolean, or `any` when matching.
    case synchronizable
    /// An access object (`AccessObject`'s JSON form).
    case accessObject
}

/// An attribute's named values: each taken as its canonical name, as Apple's constant
/// (`constantPrefix` + the name, any case) and as the constant's raw value (`htps`, `dflt`, `ak`),
/// everywhere a query or an attribute dictionary is read (docs/semantics.md §2).
public struct Enumeration: Sendable, Equatable {
    public struct Value: Sendable, Equatable {
        /// The canonical name: what answers show and what is stored.
        public let name: String
        /// Other accepted spellings: Apple's raw values, and constant suffixes of the same value.
        public let aliases: [String]
    }

    public let values: [Value]
    public let constantPrefix: String
    /// Whether the attribute is a FourCharCode underneath (`protocol`, `authenticationType`): an
    /// integer 0…2³²−1 or a code of four ASCII characters is taken too, a known code as its
    /// name, any other as the integer, which answers show as it is.
    public let fourCharCodes: Bool

    init(_ values: [(String, [String])], constantPrefix: String, fourCharCodes: Bool = false) {
        self.values = values.map { Value(name: $0.0, aliases: $0.1) }
        self.constantPrefix = constantPrefix
        self.fourCharCodes = fourCharCodes
    }

    /// The value `text` names, by name, constant or alias; `nil` when none.
    public func value(named text: String) -> AttributeValue? {
        if text.isEmpty { return .string("") }  // the unspecified value of an absent primary-key attribute
        let bare = (text.hasPrefix(constantPrefix) ? String(text.dropFirst(constantPrefix.count)) : text).lowercased()
        if let value = values.first(where: { value in
            value.name.lowercased() == bare || value.aliases.contains { $0 == text || $0.lowercased() == bare }
        }) {
            return .string(value.name)
        }
        if fourCharCodes, text.utf8.count == 4, text.utf8.allSatisfy({ $0 < 0x80 }) {
            return .int(text.utf8.reduce(Int64(0)) { $0 << 8 | Int64($1) })
        }
        return nil
    }

    /// The value a FourCharCode stands for: its name when a value has it as an alias, else the integer.
    public func value(code: Int64) -> AttributeValue? {
        guard fourCharCodes, (0...Int64(UInt32.max)).contains(code) else { return nil }
        let text = String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: code >> (24 - 8 * $0)) }, as: UTF8.self)
        return values.first { $0.aliases.contains(text) }.map { .string($0.name) } ?? .int(code)
    }
}

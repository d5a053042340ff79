import TestSupport
import Testing

@testable import KeychainCore

/// The schema table: consistent, each class's primary key exactly as stored digests were made
/// (docs/semantics.md §2), and every spelling of every key resolving to it.
@Suite struct SchemaTests {
    @Test func theTableHasNoProblems() {
        #expect(Schema.problems() == [])
    }

    /// Every spelling of every key is an option's exactly when its key is an option and no
    /// attribute is spelled so (the audit log writes options' values in clear); so is nothing
    /// else: a spelling's prefix, a longer name, bytes beyond ASCII, the empty name.
    @Test func theOptionsAreExactlyTheOptionKeysSpellings() {
        let attributeSpellings = Set(Schema.keys.filter { !$0.role.isOption }.flatMap(\.spellings))
        var checked = 0
        for key in Schema.keys {
            for spelling in key.spellings {
                let expected = key.role.isOption && !attributeSpellings.contains(spelling)
                #expect(Schema.isOption(named: spelling) == expected, "\(spelling)")
                checked += expected ? 1 : 0
            }
        }
        #expect(checked >= 20)
        for name in ["", "c", "classes", "Class", "returnDat", "r_", "kSec", "\u{e9}", "\u{e9}returnData", "service", "account"] {
            #expect(!Schema.isOption(named: name), "\(name)")
        }
        for name in ["class", "kSecMatchLimit", "m_Limit", "r_Data", "deleteAll"] {
            #expect(Schema.isOption(named: name), "\(name)")
        }
    }

    /// The order is the digest's: moving a row would orphan every stored item of the class.
    @Test(arguments: [
        (ItemClass.genericPassword, ["account", "service"]),
        (.internetPassword, ["account", "securityDomain", "server", "protocol", "authenticationType", "port", "path"]),
        (.certificate, ["certificateType", "issuer", "serialNumber"]),
        (
            .key,
            [
                "keyClass", "applicationLabel", "applicationTag", "keyType", "keySizeInBits", "effectiveKeySize", "creator",
                "startDate", "endDate",
            ]
        ),
        (.identity, []),
    ])
    func eachClassHasThePrimaryKeyOfTheReference(itemClass: ItemClass, names: [String]) {
        #expect(itemClass.primaryKey.map(\.name) == names)
        for key in itemClass.primaryKey { #expect(key.applies(to: itemClass), "\(key.name)") }
    }

    @Test func everySpellingNamesItsKeyAndSharedSpellingsFollowTheClass() throws {
        for key in Schema.keys {
            let itemClass = ItemClass.allCases.first(where: key.applies(to:))
            for spelling in key.spellings {
                #expect(Schema.key(named: spelling, for: itemClass) === key, "\(spelling)")
            }
        }
        #expect(Schema.key(named: "type", for: .genericPassword)?.name == "type")
        #expect(Schema.key(named: "type", for: .key)?.name == "keyType")
        #expect(Schema.key(named: "kSecAttrKeyType")?.name == "keyType")
    }

    /// Every attribute of a class at once: the parser's set of keys seen is as large as the
    /// table (no fixed number of names), and a key given twice in two spellings is refused.
    @Test func aDictionaryOfEveryKeyParses() throws {
        var object = JSONObject()
        for key in Schema.keys where key.role == .attribute && key.applies(to: .key) {
            object[key.constantName ?? key.name] = Self.sample(key.type)
        }
        object["class"] = "key"
        let query = try QueryParser.parse(object)
        #expect(query.attributes.count == object.entries.count - 1)
        #expect(query.itemClass == .key)
        // Keys are stored: the check refuses only what the server sets (the key's dates).
        expectError(.anyParam, naming: "startDate") { try query.check(for: .search) }
        object["unwp"] = true
        expectError(.anyParam, naming: "kSecAttrCanUnwrap") { _ = try QueryParser.parse(object) }
    }

    static func sample(_ type: ValueType) -> JSON {
        switch type {
        case .string: "s"
        case .bytes: "AAE="
        case .fourCharCode: "abcd"
        case .bool: true
        case .integer: 1
        case .enumeration(let enumeration): .string(enumeration.values[0].name)
        case .date: "2026-11-23T12:00:00.000Z"
        default: .null
        }
    }
}

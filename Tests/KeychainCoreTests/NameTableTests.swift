import TestSupport
import Testing

@testable import KeychainCore

@Suite struct NameTableTests {
    @Test func everyNameIsFoundWithItsValueAndNothingElse() {
        // Enough names to make probes collide in the table.
        let names = (0..<200).map { "name\($0)" } + ["a", "kSecAttrAccessGroup", "é", "x y"]
        let table = NameTable(names.enumerated().map { (name: $1, value: Int32($0)) })
        for (n, name) in names.enumerated() {
            #expect(table[name] == Int32(n), "\(name)")
            #expect(table[name + "\u{0}"] == nil)
        }
        for absent in ["", "b", "Name1", "name", "name200", "kSecAttrAccessgroup", "e", "x  y"] {
            #expect(table[absent] == nil, "\(absent)")
        }
    }

    @Test func aSubstringsBytesAreLookedUp() {
        let table = NameTable([(name: "service", value: 7)])
        let text = "the service"
        #expect(table[String(text.dropFirst(4))] == 7)
    }

    @Test func everySpellingOfEveryQueryNameResolvesToItsName() throws {
        for key in Schema.attributes where key.access == .writable && key.role == .attribute && key.type == .string {
            guard key.applies(to: .internetPassword) else { continue }
            for spelling in key.spellings {
                let query = try QueryParser.parse(["class": "internetPassword", .init(spelling): "v"])
                #expect(query.attributes.map(\.key.name) == [key.name], "\(spelling)")
            }
        }
        for spelling in ["returnData", "kSecReturnData", "r_Data"] {
            #expect(try QueryParser.parse([spelling: true]).returnData == true, "\(spelling)")
        }
        for spelling in ["class", "kSecClass"] {
            #expect(try QueryParser.parse([spelling: "genp"]).itemClass == .genericPassword)
        }
    }
}

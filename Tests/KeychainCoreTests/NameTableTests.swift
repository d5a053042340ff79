@testable import KeychainCore
import Testing

@Suite struct NameTableTests {
    @Test func everyNameIsFoundWithItsValueAndNothingElse() {
        // Enough names to make probes collide in the table.
        let names = (0..<200).map { "name\($0)" } + ["a", "kSecAttrAccessGroup", "é", "x y"]
        let table = NameTable(names.enumerated().map { (name: $1, value: UInt8(truncatingIfNeeded: $0)) })
        for (n, name) in names.enumerated() {
            #expect(table[name] == UInt8(truncatingIfNeeded: n), "\(name)")
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
        for spec in AttributeSpec.all where !spec.readOnly && spec.handling == .attribute && spec.type == .string {
            guard spec.applies(to: .internetPassword) else { continue }
            for spelling in Set([spec.name, spec.constantName, spec.shortName]) {
                let query = try Query.parse(["class": "internetPassword", spelling: "v"], role: .search)
                #expect(query.attributes.map(\.spec.name) == [spec.name], "\(spelling)")
            }
        }
        for spelling in ["returnData", "kSecReturnData", "r_Data"] {
            #expect(try Query.parse([spelling: true], role: .search).returnData, "\(spelling)")
        }
        for spelling in ["class", "kSecClass"] {
            #expect(try Query.parse([spelling: "genp"], role: .search).itemClass == .genericPassword)
        }
    }
}

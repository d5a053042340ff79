import KeychainBarrier
import KeychainStorage
import Testing

@testable import KeychainCore

/// A token of every group that names a whole primary key but its group (service and account,
/// no access group) is read by each group's primary key on SQLite, which lists the groups of the
/// class in the snapshot it reads from (`GroupKeys`). Where a group's name is unknown, or there
/// are more groups than `maxPrimaryKeyGroups`, the store reads by lookups: the answers must be
/// the same either way, and the same as a token of those groups gets.
@Suite struct GroupKeysTests {
    private let query: JSONObject = ["service": "db", "account": "u"]

    /// The keys a filter's read used: whether the store read by primary keys (a digest made
    /// for each of `groups`, none unknown).
    private func readByPrimaryKeys(_ f: Fixture, _ object: JSONObject, groups: [String]) throws -> Bool {
        let barrier = try f.keychain.barrier()
        let selection = try f.keychain.filter(for: QueryParser.parse(object, lenient: true), token: f.admin, barrier: barrier)
        let keys = try #require(selection.filter.groupKeys)
        _ = try f.keychain.store.items(matching: selection.filter)
        return keys.unknownGroups.isEmpty
            && groups.allSatisfy { keys.knownPrimaryKey(group: barrier.groupDigest($0), synchronizable: false) != nil }
    }

    private func refs(_ f: Fixture, _ object: JSONObject, token: AccessToken? = nil) throws -> [String] {
        try f.keychain.search(object, token: token ?? f.admin).map(\.persistentRef)
    }

    @Test func readsEachGroupsItemByItsKeyInInsertionOrder() throws {
        let f = try Fixture()
        let inB = try f.addGeneric(service: "db", account: "u", secret: "b-secret", group: "b")
        try f.addGeneric(service: "DB", account: "u", group: "a")
        try f.addGeneric(service: "db", account: "U", group: "a")
        let inA = try f.addGeneric(service: "db", account: "u", group: "a")
        try f.addGeneric(service: "db", account: "u", group: "c", extra: ["synchronizable": true])
        // The first search learns the groups' names from the items it opens.
        #expect(try refs(f, query + ["matchLimit": "all"]) == [inB, inA])
        #expect(try readByPrimaryKeys(f, query, groups: ["a", "b"]))
        #expect(try refs(f, query + ["matchLimit": "all"]) == [inB, inA], "insertion order, other cases left out")
        let first = try f.keychain.search(query + ["returnData": true], token: f.admin)
        #expect(first.map(\.persistentRef) == [inB])
        #expect(first.first?.secretString == "b-secret")
        #expect(try refs(f, query + ["matchLimit": "all"], token: f.token(["a", "b", "c"])) == [inB, inA])
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "db", "account": "x"], token: f.admin) }
        // The synchronizable state is part of the key.
        #expect(try refs(f, query + ["synchronizable": true]).count == 1)
        #expect(try refs(f, query + ["synchronizable": "any", "matchLimit": "all"]).count == 3)
    }

    /// No token names group "y" and no search opens an item of it: the search that meets it
    /// unnamed reads by lookups and opens one item of it, and the next one reads by keys.
    @Test func learnsTheNameOfAGroupNoTokenOrAnswerShowed() throws {
        let f = try Fixture()
        let inX = try f.addGeneric(service: "db", account: "u", group: "x")
        try f.addGeneric(service: "other", account: "v", group: "y")
        try f.restart()
        try f.unlock()
        #expect(try !readByPrimaryKeys(f, query, groups: ["x", "y"]))
        #expect(try refs(f, query) == [inX])
        #expect(try readByPrimaryKeys(f, query, groups: ["x", "y"]))
        #expect(try refs(f, query) == [inX])
    }

    @Test func pastTheMostGroupsItReadsByLookupsAndAnswersTheSame() throws {
        let f = try Fixture()
        var expected: [String] = []
        for n in 0...Keychain.maxPrimaryKeyGroups {
            try f.addGeneric(service: "DB", account: "u", group: "g\(n)")
            expected.append(try f.addGeneric(service: "db", account: "u", group: "g\(n)"))
        }
        #expect(try refs(f, query + ["matchLimit": "all"]) == expected)
        #expect(try !readByPrimaryKeys(f, query, groups: ["g0"]))
        #expect(try refs(f, query + ["matchLimit": "all"]) == expected)
        #expect(try refs(f, query) == [expected[0]])
    }

    /// The groups a reader lists hold for its read transaction, which a commit ends: an item
    /// added to a group the list lacked is found by the next search. ("b" is named by a token
    /// opened from the store, so that the search reads by keys rather than by lookups.)
    @Test func aCommitEndsTheListOfGroups() throws {
        let f = try Fixture()
        let issued = try f.keychain.createToken(
            name: "b", accessGroups: ["b"], capabilities: Set(Capability.allCases), expiresAt: nil, caller: f.admin)
        let inA = try f.addGeneric(service: "db", account: "u", group: "a")
        _ = try f.keychain.authenticate(bearer: issued.secret)
        #expect(try refs(f, query + ["matchLimit": "all"]) == [inA])
        #expect(try readByPrimaryKeys(f, query, groups: ["a"]))
        let inB = try f.addGeneric(service: "db", account: "u", group: "b")
        #expect(try readByPrimaryKeys(f, query, groups: ["a", "b"]))
        #expect(try refs(f, query + ["matchLimit": "all"]) == [inA, inB])
        #expect(try f.keychain.delete(query + ["accessGroup": "b"], token: f.admin) == 1)
        #expect(try refs(f, query + ["matchLimit": "all"]) == [inA])
    }

    @Test func updatesAndDeletesTheItemOfEachGroup() throws {
        let f = try Fixture()
        try f.addGeneric(service: "db", account: "u", group: "a")
        try f.addGeneric(service: "db", account: "u", group: "b")
        let other = try f.addGeneric(service: "DB", account: "u", group: "a")
        _ = try f.keychain.search(query + ["matchLimit": "all"], token: f.admin)
        _ = try f.keychain.update(query: query, attributesToUpdate: ["label": "L"], token: f.admin)
        #expect(try refs(f, query + ["label": "L", "matchLimit": "all"]).count == 2)
        expectError(.itemNotFound) { _ = try f.keychain.search(["service": "DB", "account": "u", "label": "L"], token: f.admin) }
        #expect(try f.keychain.delete(query, token: f.admin) == 2)
        expectError(.itemNotFound) { _ = try f.keychain.search(query, token: f.admin) }
        #expect(try refs(f, ["service": "DB", "account": "u"]) == [other])
    }

    /// A token's groups are names: a search of a token of every group, after a token of group
    /// "t" has been opened from the store, reads "t" by its key without opening an item of it.
    @Test func anOpenedTokenTeachesItsGroups() throws {
        let f = try Fixture()
        let issued = try f.keychain.createToken(
            name: "t", accessGroups: ["t"], capabilities: Set(Capability.allCases), expiresAt: nil, caller: f.admin)
        try f.addGeneric(service: "db", account: "u", group: "t")
        try f.restart()
        try f.unlock()
        _ = try f.keychain.authenticate(bearer: issued.secret)
        #expect(try readByPrimaryKeys(f, query, groups: ["t"]))
    }
}

private func + (a: JSONObject, b: JSONObject) -> JSONObject {
    var merged = a
    for (key, value) in b { merged[key] = value }
    return merged
}

import Foundation
import KeychainStorage
import Synchronization
import TestSupport
import Testing

/// The storage conformance suite: every `KeychainStore` backend runs it, through
/// `StoreBackend.all` (TestSupport/Stores.swift), where a new backend adds its factory.
@Suite struct StoreConformanceTests {
    /// The suite's PostgreSQL cases run wherever PostgreSQL is installed; elsewhere this says
    /// they were left out, and why.
    @Test(.enabled(if: PostgresServer.isInstalled, PostgresServer.notInstalled))
    func postgreSQLRunsThisSuiteToo() {
        #expect(StoreBackend.all.map(\.name) == ["SQLite", "PostgreSQL"])
    }

    static func record(_ n: UInt8, group: UInt8 = 1, lookups: [[UInt8]] = []) -> ItemRecord {
        ItemRecord(
            ref: [UInt8](repeating: n, count: 16), itemClass: 1, group: [group], protection: 1, synchronizable: false,
            created: 1, modified: 1, version: 1, primaryKey: [n, 0xAA], attributes: [n], secret: [n, n], lookups: lookups)
    }

    @Test(arguments: StoreBackend.all)
    func insertThenReadBack(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        let id = try b.store.write { try $0.insert(Self.record(1, lookups: [[9]])) }
        let read = try b.store.read { try $0.items(matching: ItemFilter()) }
        var expected = Self.record(1)
        expected.rowID = id
        #expect(read == [expected])
    }

    @Test(arguments: StoreBackend.all)
    func primaryKeysFindTheirItemsAndASearchCanLeaveTheAttributesUnread(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        let ids = try b.store.write { w in
            try [w.insert(Self.record(1, lookups: [[9]])), w.insert(Self.record(2)), w.insert(Self.record(3, lookups: [[9]]))]
        }
        var filter = ItemFilter(primaryKeys: [Self.record(3).primaryKey, Self.record(1).primaryKey, [0xFF]])
        #expect(try b.store.items(matching: filter).map(\.rowID) == [ids[0], ids[2]], "insertion order")
        filter.lookups = [[9]]
        filter.primaryKeys = [Self.record(2).primaryKey]
        #expect(try b.store.items(matching: filter).isEmpty, "a lookup the item lacks still excludes it")
        filter = ItemFilter(primaryKeys: [Self.record(1).primaryKey])
        filter.readsAttributes = false
        var expected = Self.record(1)
        expected.rowID = ids[0]
        expected.primaryKey = []
        expected.attributes = []
        #expect(try b.store.items(matching: filter) == [expected])
        #expect(try b.store.read { try $0.countItems(matching: filter) } == 1)
    }

    /// Filters with different conditions never share a statement, however many values each binds
    /// (a cache key packing counts into fixed-width fields once confused 4,095 groups with a class).
    @Test(arguments: StoreBackend.all)
    func filtersOfDifferentShapesNeverShareAStatement(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        let id = try b.store.write { try $0.insert(Self.record(1, group: 1)) }
        let groups = (0..<4094).map { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8), 0xEE] } + [[1]]
        #expect(try b.store.items(matching: ItemFilter(classes: [1], groups: groups)).map(\.rowID) == [id])
        #expect(try b.store.items(matching: ItemFilter(classes: [1, 2])).map(\.rowID) == [id])
        #expect(try b.store.items(matching: ItemFilter(classes: [1, 2], groups: [[2]])).isEmpty)
    }

    @Test(arguments: StoreBackend.all)
    func aSecondPrimaryKeyIsAUniqueViolationAndRollsBack(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        try b.store.write { _ = try $0.insert(Self.record(1)) }
        var clash = Self.record(2)
        clash.primaryKey = Self.record(1).primaryKey
        #expect(throws: StorageError.uniqueViolation) {
            try b.store.write { w in
                _ = try w.insert(Self.record(3))
                _ = try w.insert(clash)
            }
        }
        #expect(try b.store.read { try $0.countItems(matching: ItemFilter()) } == 1)
    }

    @Test(arguments: StoreBackend.all)
    func filtersAndEveryLookupAreANDed(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        try b.store.write { w in
            _ = try w.insert(Self.record(1, group: 1, lookups: [[0xA], [0xB]]))
            _ = try w.insert(Self.record(2, group: 1, lookups: [[0xA]]))
            _ = try w.insert(Self.record(3, group: 2, lookups: [[0xA], [0xB]]))
        }
        func refs(_ filter: ItemFilter) throws -> [UInt8] {
            try b.store.read { try $0.items(matching: filter) }.map { $0.ref[0] }
        }
        #expect(try refs(ItemFilter(lookups: [[0xA]])) == [1, 2, 3])
        #expect(try refs(ItemFilter(lookups: [[0xA], [0xB]])) == [1, 3])
        #expect(try refs(ItemFilter(groups: [[1]], lookups: [[0xA], [0xB]])) == [1])
        #expect(try refs(ItemFilter(groups: [])) == [])
        #expect(try refs(ItemFilter(ref: [UInt8](repeating: 2, count: 16))) == [2])
        #expect(try refs(ItemFilter(lookups: [[0xA]], limit: 2)) == [1, 2])
        #expect(try refs(ItemFilter(classes: [2])) == [])
    }

    @Test(arguments: StoreBackend.all)
    func replaceRewritesLookupsAndDeleteRemovesThem(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        let id = try b.store.write { try $0.insert(Self.record(1, lookups: [[0xA], [0xC]])) }
        let other = try b.store.write { try $0.insert(Self.record(2, lookups: [[0xC]])) }
        // One digest dropped, one kept, one new.
        var changed = Self.record(1, lookups: [[0xB], [0xC]])
        changed.rowID = id
        changed.version = 2
        try b.store.write { try $0.replace(changed) }
        #expect(try b.store.read { try $0.items(matching: ItemFilter(lookups: [[0xA]])) }.isEmpty)
        #expect(try b.store.read { try $0.items(matching: ItemFilter(lookups: [[0xB]])) }.map(\.version) == [2])
        #expect(try b.store.read { try $0.items(matching: ItemFilter(lookups: [[0xC]])) }.map(\.rowID) == [id, other])
        try b.store.write { try $0.delete(rowIDs: [id, other]) }
        #expect(try b.store.read { try $0.countItems(matching: ItemFilter()) } == 0)
        #expect(try b.store.read { try $0.countItems(matching: ItemFilter(lookups: [[0xC]])) } == 0)
    }

    @Test(arguments: StoreBackend.all)
    func metaAndTokensRoundTrip(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        let token = TokenRecord(id: "tok_1", hash: [1, 2], sealed: [3], expires: nil, created: 5)
        try b.store.write { w in
            try w.setMeta("k", [1, 2, 3])
            try w.insert(token)
        }
        #expect(try b.store.read { try $0.meta("k") } == [1, 2, 3])
        #expect(try b.store.read { try $0.token(hash: [1, 2]) } == token)
        #expect(try b.store.write { try $0.deleteToken(id: "tok_1") })
        #expect(try b.store.write { try $0.deleteToken(id: "tok_1") } == false)
        #expect(try b.store.read { try $0.tokens() }.isEmpty)
    }

    @Test(arguments: StoreBackend.all)
    func datesFilterExactly(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        var later = Self.record(2)
        later.created = 7
        later.modified = 9
        try b.store.write { w in
            _ = try w.insert(Self.record(1))
            _ = try w.insert(later)
        }
        func refs(_ filter: ItemFilter) throws -> [UInt8] { try b.store.items(matching: filter).map { $0.ref[0] } }
        var filter = ItemFilter()
        filter.created = 7
        #expect(try refs(filter) == [2])
        filter.modified = 1
        #expect(try refs(filter) == [])
        filter = ItemFilter()
        filter.modified = 1
        #expect(try refs(filter) == [1])
    }

    @Test(arguments: StoreBackend.all)
    func insertMetaCreatesOnlyWhatIsAbsent(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        #expect(try b.store.write { try $0.insertMeta("k", [1]) })
        #expect(try b.store.write { try $0.insertMeta("k", [2]) } == false)
        #expect(try b.store.read { try $0.meta("k") } == [1])
        try b.store.write { try $0.setMeta("k", nil) }
        #expect(try b.store.write { try $0.insertMeta("k", [3]) })
        #expect(try b.store.read { try $0.meta("k") } == [3])
    }

    /// A read-modify-write inside one `write` loses no concurrent update.
    @Test(arguments: StoreBackend.all)
    func concurrentReadModifyWritesLoseNoUpdate(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        let store = b.store
        DispatchQueue.concurrentPerform(iterations: 48) { _ in
            try! store.write { writer in
                let count = try writer.meta("count").map { Int($0[0]) + Int($0[1]) << 8 } ?? 0
                try writer.setMeta("count", [UInt8(truncatingIfNeeded: count + 1), UInt8(truncatingIfNeeded: (count + 1) >> 8)])
            }
        }
        #expect(try b.store.read { try $0.meta("count") } == [48, 0])
    }

    /// Readers keep a read transaction open between reads; every commit must still be seen by
    /// the next read, through either path, and by a second reader checked out during a read.
    @Test(arguments: StoreBackend.all)
    func everyReadSeesTheCommitsBeforeIt(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        let all = ItemFilter()
        #expect(try b.store.items(matching: all).isEmpty)
        #expect(try b.store.read { try $0.countItems(matching: all) } == 0)
        let first = try b.store.write { try $0.insert(Self.record(1)) }
        #expect(try b.store.items(matching: all).map(\.rowID) == [first])
        #expect(try b.store.read { try $0.countItems(matching: all) } == 1)
        try b.store.read { reader in
            // A second reader, checked out while the first is busy, then a commit between reads.
            #expect(try b.store.items(matching: all).count == 1)
            _ = try b.store.write { try $0.insert(Self.record(2)) }
            #expect(try b.store.items(matching: all).count == 2)
            _ = try reader.countItems(matching: all)
        }
        #expect(try b.store.read { try $0.countItems(matching: all) } == 2)
        var replaced = try #require(try b.store.items(matching: ItemFilter(ref: Self.record(1).ref)).first)
        replaced.version = 9
        try b.store.write { try $0.replace(replaced) }
        #expect(try b.store.items(matching: ItemFilter(ref: Self.record(1).ref)).first?.version == 9)
        try b.store.write { try $0.delete(rowIDs: [first]) }
        #expect(try b.store.items(matching: all).count == 1)
        #expect(try b.store.read { try $0.countItems(matching: all) } == 1)
    }

}

/// The searches of many requests, answered through completions: on PostgreSQL they share a
/// pipelined round trip, on SQLite each is answered at once.
@Suite struct CompletionSearchTests {
    @Test(arguments: StoreBackend.all)
    func concurrentSearchesAnswerAsTheDirectRead(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        try b.store.write { w in
            for n in 0..<40 {
                _ = try w.insert(StoreConformanceTests.record(UInt8(n), group: UInt8(n % 3), lookups: [[UInt8(n % 5)]]))
            }
        }
        let filters: [ItemFilter] = (0..<120).map { n in
            switch n % 4 {
            case 0: ItemFilter(primaryKeys: [StoreConformanceTests.record(UInt8(n % 40)).primaryKey])
            case 1: ItemFilter(groups: [[UInt8(n % 3)]], lookups: [[UInt8(n % 5)]])
            case 2: ItemFilter(lookups: [[UInt8(n % 5)]], limit: 2)
            default: ItemFilter(ref: [UInt8](repeating: 77, count: 16))
            }
        }
        let expected = try filters.map { try b.store.items(matching: $0) }
        let answers = Mutex<[Int: Result<[ItemRecord], StorageError>]>([:])
        let done = DispatchGroup()
        let store = b.store
        DispatchQueue.concurrentPerform(iterations: filters.count) { n in
            done.enter()
            store.items(matching: filters[n]) { result in
                answers.withLock { $0[n] = result }
                done.leave()
            }
        }
        try #require(done.wait(timeout: .now() + 30) == .success)
        for n in filters.indices {
            let answer = try #require(answers.withLock { $0[n] })
            #expect(try answer.get() == expected[n], "filter \(n)")
        }
        #expect(expected.contains { !$0.isEmpty } && expected.contains(where: \.isEmpty))
    }

    /// Adds answered through completions, from many threads at once: each answers once, a
    /// primary key that exists is `uniqueViolation`, and of two adds of one key one is added.
    @Test(arguments: StoreBackend.all)
    func addsThroughCompletionsAnswerEachOnce(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        try b.store.add(StoreConformanceTests.record(100))
        let outcomes = Mutex<[Int: [Result<Void, StorageError>]]>([:])
        let done = DispatchGroup()
        let store = b.store
        DispatchQueue.concurrentPerform(iterations: 60) { n in
            var record = StoreConformanceTests.record(UInt8(n))
            if n == 7 { record.primaryKey = StoreConformanceTests.record(100).primaryKey }
            if n >= 50 { record.primaryKey = StoreConformanceTests.record(UInt8(n - 10)).primaryKey }  // twin of n - 10
            done.enter()
            store.add(record) { result in
                outcomes.withLock { $0[n, default: []].append(result) }
                done.leave()
            }
        }
        try #require(done.wait(timeout: .now() + 30) == .success)
        let all = outcomes.withLock { $0 }
        #expect(all.count == 60 && all.values.allSatisfy { $0.count == 1 })
        func added(_ n: Int) -> Bool { (try? all[n]?.first?.get()) != nil }
        #expect(!added(7))
        #expect(all[7]?.first.map { if case .failure(.uniqueViolation) = $0 { true } else { false } } == true)
        for n in 50..<60 { #expect(added(n) != added(n - 10), "twins \(n - 10) and \(n)") }
        #expect(try b.store.read { try $0.countItems(matching: ItemFilter()) } == 1 + 60 - 1 - 10)
    }

    /// A search queued after a write was acknowledged sees it.
    @Test(arguments: StoreBackend.all)
    func aSearchSeesTheWritesAcknowledgedBeforeIt(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        for n in UInt8(0)..<10 {
            try b.store.add(StoreConformanceTests.record(n))
            let answered = DispatchSemaphore(value: 0)
            let found = Mutex<[ItemRecord]?>(nil)
            b.store.items(matching: ItemFilter(primaryKeys: [StoreConformanceTests.record(n).primaryKey])) { result in
                found.withLock { $0 = try? result.get() }
                answered.signal()
            }
            try #require(answered.wait(timeout: .now() + 10) == .success)
            #expect(found.withLock { $0 }?.map(\.ref) == [StoreConformanceTests.record(n).ref])
        }
    }
}

@Suite struct GroupCommitTests {
    struct Refused: Error {}

    @Test(arguments: StoreBackend.all)
    func concurrentWritersCommitAndAFailureRollsBackOnlyItsOwnWrite(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        let store = b.store
        let outcomes = Mutex<[Int: Bool]>([:])
        DispatchQueue.concurrentPerform(iterations: 64) { n in
            let committed: Bool
            do {
                try store.write { writer in
                    _ = try writer.insert(StoreConformanceTests.record(UInt8(n)))
                    if n % 4 == 3 { throw Refused() }
                }
                committed = true
            } catch {
                committed = false
            }
            outcomes.withLock { $0[n] = committed }
        }
        let refs = Set(try b.store.read { try $0.items(matching: ItemFilter()) }.map { Int($0.ref[0]) })
        let expected = Set((0..<64).filter { $0 % 4 != 3 })
        #expect(refs == expected)
        #expect(outcomes.withLock { $0 }.filter(\.value).keys.sorted() == expected.sorted())
    }

    @Test(arguments: StoreBackend.all)
    func aUniqueViolationInABatchFailsOnlyThatWriter(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        try b.store.write { _ = try $0.insert(StoreConformanceTests.record(200)) }
        let failures = Atomic<Int>(0)
        let store = b.store
        DispatchQueue.concurrentPerform(iterations: 32) { n in
            var record = StoreConformanceTests.record(UInt8(n))
            if n % 8 == 0 { record.primaryKey = StoreConformanceTests.record(200).primaryKey }
            do { try store.write { _ = try $0.insert(record) } } catch { failures.add(1, ordering: .relaxed) }
        }
        #expect(failures.load(ordering: .relaxed) == 4)
        #expect(try b.store.read { try $0.countItems(matching: ItemFilter()) } == 1 + 28)
    }

    /// Adds, concurrent with bodies: each add commits unless its primary key exists (then
    /// `uniqueViolation` for it alone), and of two adds of one key exactly one commits.
    @Test(arguments: StoreBackend.all)
    func addsCommitWithConcurrentWritesAndADuplicateFailsOnlyItself(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        try b.store.add(StoreConformanceTests.record(200))
        let store = b.store
        let outcomes = Mutex<[Int: String]>([:])
        DispatchQueue.concurrentPerform(iterations: 64) { n in
            var record = StoreConformanceTests.record(UInt8(n))
            if n == 0 || n == 16 { record.primaryKey = StoreConformanceTests.record(200).primaryKey }  // exists
            if n >= 48 { record.primaryKey = StoreConformanceTests.record(UInt8(n - 16)).primaryKey }  // twin of n - 16
            let outcome: String
            do {
                if n % 4 == 3 {
                    try store.write { _ = try $0.insert(StoreConformanceTests.record(UInt8(100 + n))) }
                }
                try store.add(record)
                outcome = "added"
            } catch let error as StorageError where error == .uniqueViolation {
                outcome = "duplicate"
            } catch {
                outcome = "\(error)"
            }
            outcomes.withLock { $0[n] = outcome }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.values.allSatisfy { $0 == "added" || $0 == "duplicate" })
        for n in [0, 16] { #expect(all[n] == "duplicate", "\(n) has an existing item's key") }
        for n in 48..<64 {
            #expect([all[n], all[n - 16]].filter { $0 == "added" }.count == 1, "twins \(n - 16) and \(n)")
        }
        let stored = try b.store.read { try $0.items(matching: ItemFilter()) }
        #expect(stored.count == 1 + (64 - 2 - 16) + 16)
        #expect(Set(stored.map(\.primaryKey)).count == stored.count)
    }

    /// An add the database refuses for another reason than its primary key (here its ref, which
    /// is unique too) fails alone: on PostgreSQL its batch runs again, each add for itself.
    @Test(arguments: StoreBackend.all)
    func anAddRefusedForItsRefFailsAlone(backend: StoreBackend) throws {
        let b = try TestStore(backend)
        try b.store.add(StoreConformanceTests.record(1))
        let store = b.store
        let failures = Mutex<[Int: StorageError]>([:])
        DispatchQueue.concurrentPerform(iterations: 16) { n in
            var record = StoreConformanceTests.record(UInt8(10 + n))
            if n == 5 { record.ref = StoreConformanceTests.record(1).ref }
            do { try store.add(record) } catch { failures.withLock { $0[n] = error as? StorageError } }
        }
        #expect(failures.withLock { $0 } == [5: .uniqueViolation])
        #expect(try b.store.read { try $0.countItems(matching: ItemFilter()) } == 16)
    }
}

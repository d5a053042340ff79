import Dispatch
import Foundation
import KeychainSQLite
import KeychainStorage
import Synchronization
import TestSupport
import Testing

/// What only the SQLite store promises: deleted rows leave the `-wal` file, and its readers'
/// long-lived read transactions never hold that back.
@Suite struct SQLiteStoreTests {
    static func record(_ n: UInt8) -> ItemRecord { StoreConformanceTests.record(n) }

    func walSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    }

    @Test func aDeleteLeavesNoWALBehind() throws {
        let b = try TestStore(.sqlite)
        let id = try b.store.write { try $0.insert(Self.record(7)) }
        try b.store.write { try $0.delete(rowIDs: [id]) }
        try #require(b.store as? SQLiteStore).waitForCheckpoints()
        let wal = walSize(b.directory.path + "/" + SQLiteStore.fileName)
        #expect(wal == 0)
    }

    /// A savepoint's page copies (each add of a group commit has its own savepoint) stay in
    /// memory: no temporary file, no `pwrite` of database pages outside the data directory.
    @Test func statementJournalsStayInMemory() throws {
        let b = try TestStore(.sqlite)
        let store = try #require(b.store as? SQLiteStore)
        #expect(try store.writerPragma("temp_store") == 2)  // 2: MEMORY
    }

    /// Adds answered later go to the adds' thread, which commits those queued meanwhile as one
    /// write: searches are still answered at once, and the observer counts every add once, as a
    /// write of the batch it shared (whatever the batches were).
    @Test func addsAnsweredLaterAreCountedOnceEachAsWrites() throws {
        final class Batches: CommitObserver {
            let sizes = Mutex<[(path: CommitPath, size: Int)]>([])
            func committed(_ path: CommitPath, batchSize: Int, nanoseconds: UInt64) {
                sizes.withLock { $0.append((path, batchSize)) }
            }
            func synced(nanoseconds: UInt64) {}
        }
        let directory = TemporaryDirectory()
        let batches = Batches()
        let store = try SQLiteStore(directory: directory.path, observer: batches)
        defer { store.close() }
        #expect(store.addsAnswerLater && !store.answersLater)
        let failures = Mutex(0)
        let done = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 40) { n in
            done.enter()
            store.add(Self.record(UInt8(n))) { result in
                if case .failure = result { failures.withLock { $0 += 1 } }
                done.leave()
            }
        }
        try #require(done.wait(timeout: .now() + 30) == .success)
        #expect(failures.withLock { $0 } == 0)
        let sizes = batches.sizes.withLock { $0 }
        #expect(sizes.allSatisfy { $0.path == .write })
        #expect(sizes.reduce(0) { $0 + $1.size } == 40)
        #expect(try store.items(matching: ItemFilter()).count == 40)
    }

    /// Readers idle in the pool end their read transactions at a commit: a delete's TRUNCATE
    /// checkpoint is not held back by them (with no busy timeout, a held-back one would fail).
    @Test func readsBeforeADeleteDoNotHoldBackItsCheckpoint() throws {
        let b = try TestStore(.sqlite)
        let store = try SQLiteStore(path: b.directory.path + "/other.db", busyTimeoutMilliseconds: 0)
        defer { store.close() }
        let id = try store.write { try $0.insert(Self.record(7)) }
        try store.read { _ in _ = try store.items(matching: ItemFilter()) }
        #expect(try store.items(matching: ItemFilter()).count == 1)
        try store.write { try $0.delete(rowIDs: [id]) }
        store.waitForCheckpoints()
        let wal = walSize(b.directory.path + "/other.db")
        #expect(wal == 0)
        #expect(try store.items(matching: ItemFilter()).isEmpty)
    }

    /// A delete commits while a reader holds a snapshot from before it (its checkpoint does not
    /// run in the write path, where it waited for that reader and every write waited behind it),
    /// and the deleted row leaves the `-wal` file once the reader is done.
    @Test func aDeleteCommitsWhileAReaderHoldsASnapshot() throws {
        let b = try TestStore(.sqlite)
        let store = try #require(b.store as? SQLiteStore)
        let ids = try store.write { w in try [w.insert(Self.record(1)), w.insert(Self.record(2))] }
        try store.read { reader in
            #expect(try reader.countItems(matching: ItemFilter()) == 2)
            try store.write { try $0.delete(rowIDs: [ids[0]]) }
            #expect(try store.items(matching: ItemFilter()).map(\.rowID) == [ids[1]], "committed")
            #expect(try reader.countItems(matching: ItemFilter()) == 2, "the reader's snapshot is the one it began with")
            _ = try store.write { try $0.insert(Self.record(3)) }
        }
        store.waitForCheckpoints()
        #expect(walSize(b.directory.path + "/" + SQLiteStore.fileName) == 0)
        #expect(try store.items(matching: ItemFilter()).count == 2)
    }

    @Test func aCommittedWriteIsVisibleToANewStore() throws {
        let b = try TestStore(.sqlite)
        try b.store.write { _ = try $0.insert(Self.record(4)) }
        let other = try SQLiteStore(directory: b.directory.path)
        defer { other.close() }
        #expect(try other.read { try $0.countItems(matching: ItemFilter()) } == 1)
    }
}

/// A search of one class read a page at a time (`class = ? AND id > ? ORDER BY id LIMIT n`:
/// certificate match keys, identities, `matchLimit` all) walks the class in id order, whatever
/// the token's groups, and never sorts every item of the class again for each page.
@Suite struct SQLitePlanTests {
    @Test(arguments: [0, 1, 3])
    func aPageOfOneClassIsReadInIDOrderWithoutASort(groups: Int) throws {
        let b = try TestStore(.sqlite)
        let store = try #require(b.store as? SQLiteStore)
        for n in UInt8(1)...40 { _ = try b.store.write { try $0.insert(StoreConformanceTests.record(n)) } }
        var filter = ItemFilter(classes: [3], groups: groups == 0 ? nil : (0..<groups).map { [UInt8($0)] }, limit: 256)
        filter.afterID = 5
        let plan = try store.queryPlan(for: filter)
        #expect(!plan.isEmpty)
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }
}

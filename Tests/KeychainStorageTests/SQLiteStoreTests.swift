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

    /// Every connection, the writer and each reader, reads the file through a map of
    /// `mmapBytes`: 1 GiB unless told otherwise, and none when told 0.
    @Test func everyConnectionMapsWhatItIsTold() throws {
        let b = try TestStore(.sqlite)
        let store = try #require(b.store as? SQLiteStore)
        #expect(try store.writerPragma("mmap_size") == Int64(SQLiteStore.defaultMmapBytes))
        #expect(try store.readerPragma("mmap_size") == Int64(SQLiteStore.defaultMmapBytes))
        let directory = TemporaryDirectory(prefix: "kcd-store")
        let unmapped = try SQLiteStore(directory: directory.path, mmapBytes: 0)
        defer { unmapped.close() }
        #expect(try unmapped.writerPragma("mmap_size") == 0)
        #expect(try unmapped.readerPragma("mmap_size") == 0)
    }

    /// A file that outgrows its map is read whole: through the map as far as it goes, with
    /// `pread` past it, and a reader sees what each commit added as the file grows.
    @Test func aFileLargerThanItsMapIsReadWhole() throws {
        let directory = TemporaryDirectory(prefix: "kcd-store")
        let store = try SQLiteStore(directory: directory.path, mmapBytes: 64 << 10)
        defer { store.close() }
        #expect(try store.readerPragma("mmap_size") == 65_536)
        func record(_ n: Int) -> ItemRecord {
            let id = [UInt8(n >> 8), UInt8(n & 0xFF)]
            return ItemRecord(
                ref: id + [UInt8](repeating: 7, count: 14), itemClass: 1, group: [1], protection: 1, synchronizable: false,
                created: 1, modified: 1, version: 1, primaryKey: id, attributes: id,
                secret: [UInt8](repeating: UInt8(n % 251), count: 1024), lookups: [])
        }
        // 300 items of 1 KiB secrets: some 80 pages of 4 KiB, most of them past the 16 mapped.
        // Each batch ends with a delete, whose TRUNCATE checkpoint moves every page from the
        // `-wal` file (read with `pread` whatever the map) into the database file.
        for batch in 0..<3 {
            try store.write { writer in
                for n in (batch * 100)..<(batch * 100 + 100) { _ = try writer.insert(record(n)) }
                try writer.delete(rowIDs: [try writer.insert(record(1000))])
            }
            store.waitForCheckpoints()
            #expect(walSize(store.path) == 0)
            let fileSize = try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int ?? 0
            #expect(fileSize > 65_536 * (batch + 1))
            let read = try store.items(matching: ItemFilter())
            #expect(read.count == batch * 100 + 100)
            #expect(read.allSatisfy { $0.secret == record(Int($0.primaryKey[0]) << 8 | Int($0.primaryKey[1])).secret })
        }
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
        #expect((store as Any) is any AddsAnswerLater && !((store as Any) is any SearchesAnswerLater))
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

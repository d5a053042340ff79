import Foundation
import KeychainSQLite
import KeychainStorage
import Synchronization
import TestSupport
import Testing

/// Online backup of the SQLite store: a consistent copy while writes go on, and the
/// checks `keychaind restore` makes before it puts a file in place.
@Suite struct SQLiteBackupTests {
    /// Item `n` of a writer: its own ref and primary key, a secret that says which it is.
    static func record(_ n: Int) -> ItemRecord {
        let bytes = withUnsafeBytes(of: UInt32(n).bigEndian, Array.init)
        return ItemRecord(
            ref: bytes + [UInt8](repeating: 0xB0, count: 12), itemClass: 1, group: [1], protection: 1, synchronizable: false,
            created: 1, modified: 1, version: 1, primaryKey: bytes + [0xAA], attributes: bytes, secret: bytes + bytes,
            lookups: [bytes])
    }

    static func number(_ record: ItemRecord) -> Int {
        record.ref.prefix(4).reduce(0) { $0 << 8 | Int($1) }
    }

    /// A writer adds items one commit each while a backup is taken. The copy passes
    /// `integrity_check`, holds every item acknowledged before the backup began, byte for byte,
    /// and is one moment's state: the writer's items in it are exactly its first k, for some k
    /// (a copy that mixed moments could hold a later item without an earlier one).
    @Test func aBackupUnderWritesHoldsEveryEarlierWriteAndIsOneSnapshot() throws {
        let b = try TestStore(.sqlite)
        let store = try #require(b.store as? SQLiteStore)
        // Enough pages that the copy takes a while: about 2 MiB.
        try store.write { w in for n in 0..<2000 { _ = try w.insert(Self.record(1_000_000 + n)) } }

        let acknowledged = Mutex<[Int]>([])
        let stop = Atomic<Bool>(false)
        let writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var n = 0
            while !stop.load(ordering: .relaxed), n < 20_000 {
                do {
                    _ = try store.write { try $0.insert(Self.record(n)) }
                    acknowledged.withLock { $0.append(n) }
                } catch {
                    break
                }
                n += 1
            }
            writerDone.signal()
        }
        // Some writes acknowledged before the backup begins (a bounded wait, not a timing).
        for _ in 0..<2000 where acknowledged.withLock({ $0.count }) < 50 { usleep(1000) }
        let before = acknowledged.withLock { $0 }
        try #require(before.count >= 50)
        let copy = b.directory.path + "/backup.db"
        FileManager.default.createFile(atPath: copy, contents: nil)
        try store.backup(to: copy)
        stop.store(true, ordering: .relaxed)
        writerDone.wait()
        let after = acknowledged.withLock { $0.count }

        #expect(try SQLiteStore.inspect(path: copy).schemaVersion >= 1)
        #expect(!FileManager.default.fileExists(atPath: copy + "-wal"), "the copy is one file")
        let header = try #require(FileHandle(forReadingAtPath: copy)).readData(ofLength: 20)
        #expect(header.starts(with: Data("SQLite format 3\u{0}".utf8)))
        #expect(header[18] == 1 && header[19] == 1, "a rollback-journal database, not WAL")

        let restored = try SQLiteStore(path: copy)
        defer { restored.close() }
        let items = try restored.items(matching: ItemFilter())
        let byNumber = Dictionary(uniqueKeysWithValues: items.map { (Self.number($0), $0) })
        for n in before {
            let item = try #require(byNumber[n], "item \(n), acknowledged before the backup began")
            #expect(item.secret == Self.record(n).secret)
            #expect(item.attributes == Self.record(n).attributes)
        }
        let written = byNumber.keys.filter { $0 < 1_000_000 }.sorted()
        #expect(written == Array(0..<written.count), "a prefix of the writer's items: one snapshot")
        #expect(written.count >= before.count && written.count <= after + 1)
        #expect(byNumber.keys.filter { $0 >= 1_000_000 }.count == 2000)
    }

    @Test func inspectRefusesWhatIsNotAKeychaindDatabase() throws {
        let directory = TemporaryDirectory()
        let noise = directory.path + "/noise.db"
        FileManager.default.createFile(atPath: noise, contents: Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        #expect(throws: StorageError.corrupt("")) { try SQLiteStore.inspect(path: noise) }

        let empty = directory.path + "/empty.db"
        FileManager.default.createFile(atPath: empty, contents: nil)
        #expect(throws: StorageError.corrupt("")) { try SQLiteStore.inspect(path: empty) }

        // A keychaind database cut short: SQLite finds it damaged.
        let b = try TestStore(.sqlite)
        let store = try #require(b.store as? SQLiteStore)
        try store.write { w in for n in 0..<500 { _ = try w.insert(Self.record(n)) } }
        let whole = directory.path + "/whole.db"
        FileManager.default.createFile(atPath: whole, contents: nil)
        try store.backup(to: whole)
        #expect(try SQLiteStore.inspect(path: whole).schemaVersion >= 1)
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = directory.path + "/cut.db"
        FileManager.default.createFile(atPath: cut, contents: data.prefix(data.count / 2))
        #expect(throws: StorageError.corrupt("")) { try SQLiteStore.inspect(path: cut) }
    }

    /// The file takes the database's place; the old database's `-wal` goes with it.
    @Test func replaceSwapsTheDatabaseAndRemovesTheOldWAL() throws {
        let b = try TestStore(.sqlite)
        let store = try #require(b.store as? SQLiteStore)
        try store.write { _ = try $0.insert(Self.record(1)) }
        let copy = b.directory.path + "/copy.db"
        FileManager.default.createFile(atPath: copy, contents: nil)
        try store.backup(to: copy)
        store.close()

        let other = TemporaryDirectory()
        let target = other.path + "/" + SQLiteStore.fileName
        let old = try SQLiteStore(path: target)
        try old.write { w in for n in 100..<110 { _ = try w.insert(Self.record(n)) } }
        old.close()
        FileManager.default.createFile(atPath: target + "-wal", contents: Data([1, 2, 3]))
        try SQLiteStore.replace(databaseAt: target, with: copy)
        #expect(!FileManager.default.fileExists(atPath: copy))
        #expect(!FileManager.default.fileExists(atPath: target + "-wal"))
        let reopened = try SQLiteStore(path: target)
        defer { reopened.close() }
        #expect(try reopened.items(matching: ItemFilter()).map(Self.number) == [1])
    }
}

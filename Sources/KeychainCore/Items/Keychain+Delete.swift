import Dispatch
import KeychainBarrier
import KeychainCrypto
import KeychainStorage
import Logging
import Synchronization

extension Keychain {
    /// Deletes every match (SecItemDelete). A query naming no attribute needs `deleteAll: true`.
    @discardableResult
    public func delete(_ query: ItemQuery, token: AccessToken, expectedVersion: Int64? = nil) throws(KeychainError) -> Int {
        try deleteItems(query, token: token, expectedVersion: expectedVersion).count
    }

    /// `delete`, answering the persistent refs (16 bytes each) of the items it deleted.
    public func deleteItems(_ query: ItemQuery, token: AccessToken, expectedVersion: Int64? = nil) throws(KeychainError)
        -> [[UInt8]]
    {
        try require(.delete, token, for: "delete")
        try query.check(for: .delete)
        guard query.namesAttribute || query.deleteAll == true else {
            throw .param("deleteAll: a delete that names no attribute must say \"deleteAll\": true")
        }
        let barrier = try barrier()
        if query.itemClass == .identity {
            return try deleteIdentities(query, token: token, barrier: barrier, expectedVersion: expectedVersion)
        }
        try verifyPrompt(token)
        let selection = try filter(for: query, token: token, barrier: barrier)
        let deleted = try transaction { writer in
            let records = try self.matching(writer.items(matching: selection.filter), selection.exact, barrier: barrier)
            guard !records.isEmpty else { throw KeychainError.itemNotFound }
            // Every match may be deleted, or none is.
            for record in records {
                try self.checkAccess(DecodedItem(record, barrier: barrier, logger: self.logger), .delete, token: token)
            }
            if let expectedVersion, records.count == 1, records[0].version != expectedVersion {
                throw KeychainError.preconditionFailed(
                    "expectedVersion: the item's version is \(records[0].version), not \(expectedVersion)")
            }
            try writer.delete(rowIDs: records.map(\.rowID))
            try self.log(.delete, records: records, barrier: barrier, in: writer)
            return records
        }
        publish(.delete, records: deleted, barrier: barrier)
        forgetLoadedKeys(of: deleted, barrier: barrier)
        return deleted.map(\.ref)
    }
}

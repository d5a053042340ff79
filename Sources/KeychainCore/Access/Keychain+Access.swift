import KeychainBarrier
import KeychainStorage
import Synchronization

/// Access objects on items (SecAccess, SecACL; docs/semantics.md, *Access objects*): checked
/// after the group, the capability and the lock, wherever an operation their tags name reaches
/// an item that has one.
extension Keychain {
    /// Checks that `token` may do `tag` to `item`: an entry allowing the tag trusts it, or one
    /// lets the keychain's passphrase stand in and the request carries it (verified once a
    /// request, and counted as an unlock attempt). 403 otherwise: errSecInteractionRequired when
    /// the passphrase would do, errSecMissingEntitlement when nothing would.
    func checkAccess(_ item: DecodedItem, _ tag: AccessTag, token: AccessToken) throws(KeychainError) {
        guard let access = item.access else { return }
        switch access.decide(tag, for: token.id) {
        case .allowed:
            return
        case .denied:
            throw .missingEntitlement("access: no entry of the item's access object allows \(tag.rawValue) to this token")
        case .passphrase(let entry):
            // Verified before the operation began (`verifyPrompt`): never inside its transaction.
            guard let prompt = token.prompt, prompt.isVerified(for: name) else {
                throw .interactionRequired(
                    "prompt: the item's access object asks for the keychain's passphrase to \(tag.rawValue)")
            }
            if prompt.alwaysAllow { prompt.record(AccessPrompt.Grant(keychain: name, ref: item.record.ref, entry: entry)) }
        }
    }

    /// Verifies the passphrase the request carries for this keychain, if it carries one, before
    /// an operation that may check access objects: once a request, an unlock attempt throttled
    /// and counted as one, through the same gate. Whether or not an item then asks for it.
    func verifyPrompt(_ token: AccessToken) throws(KeychainError) {
        guard let prompt = token.prompt, !prompt.isVerified(for: name) else { return }
        try requirePassphrase(prompt.passphrase, key: "prompt")
        try kdfGate.withLock { _ throws(KeychainError) in
            _ = try verifyPassphrase(prompt.passphrase, key: "prompt", from: .network)
        }
        prompt.markVerified(for: name)
    }

    /// "Always Allow": the token joins each entry the request's passphrase passed, an update of
    /// the item's access object. Returns the references of the items changed.
    public func applyAlwaysAllow(token: AccessToken) throws(KeychainError) -> [[UInt8]] {
        guard let prompt = token.prompt, prompt.alwaysAllow else { return [] }
        let grants = prompt.grants(in: name)
        guard !grants.isEmpty else { return [] }
        var changed: [[UInt8]] = []
        for grant in grants {
            try changeAccess(ref: grant.ref) { access in access?.trusting(token.id, inEntry: grant.entry) }
            changed.append(grant.ref)
        }
        return changed
    }

    /// Removes a revoked token from every entry of every access object here; the number of
    /// items changed. Read while locked too: only attributes change.
    public func forgetToken(_ id: String) throws(KeychainError) -> Int {
        let barrier = try barrier()
        var filter = ItemFilter(limit: Self.scanBatch)
        var changed = 0
        while true {
            let batch: [ItemRecord]
            do { batch = try store.items(matching: filter) } catch { throw map(error) }
            guard let last = batch.last else { return changed }
            filter.afterID = last.rowID
            for record in batch {
                guard let access = try DecodedItem(record, barrier: barrier, logger: logger).access,
                    access.forgetting(id) != nil
                else { continue }
                try changeAccess(ref: record.ref) { $0.flatMap { $0.forgetting(id) ?? $0 } }
                changed += 1
            }
        }
    }

    /// The access object of the item `ref` names (SecKeychainItemCopyAccess): `nil` when it has
    /// none; and the item's version, for an edit's `expectedVersion`. Takes `read` or `list`, as
    /// the item's attributes do.
    public func access(ref: [UInt8], token: AccessToken) throws(KeychainError) -> (access: AccessObject?, version: Int64) {
        guard token.has(.read) || token.has(.list) else {
            throw .missingEntitlement("token: the token lacks the read or list capability")
        }
        let item = try visibleItem(ref: ref, token: token)
        return (item.access, item.record.version)
    }

    /// Gives the item `ref` names a new access object, or none (SecKeychainItemSetAccess). Takes
    /// `write`; when the item has one already, its `changeACL` entry decides (the owner).
    /// The item's secret is sealed again, bound to whether it now has one. `expectedVersion`
    /// (If-Match): the edit applies only to that version of the item. Returns the new version.
    @discardableResult
    public func setAccess(ref: [UInt8], _ access: AccessObject?, token: AccessToken, expectedVersion: Int64? = nil)
        throws(KeychainError) -> Int64
    {
        try require(.write, token, for: "change an item's access object")
        try verifyPrompt(token)
        let item = try visibleItem(ref: ref, token: token)
        if let expectedVersion, item.record.version != expectedVersion {
            throw .preconditionFailed("expectedVersion: the item's version is \(item.record.version), not \(expectedVersion)")
        }
        try checkAccess(item, .changeACL, token: token)
        return try changeAccess(ref: ref, expecting: item.record.version) { _ in access }
    }

    /// The item `ref` names, when the token's groups hold it: errSecItemNotFound otherwise, the
    /// same as for a missing one.
    private func visibleItem(ref: [UInt8], token: AccessToken) throws(KeychainError) -> DecodedItem {
        let barrier = try barrier()
        guard let record = try snapshot({ try $0.items(matching: ItemFilter(ref: ref, limit: 1)).first }) else {
            throw .itemNotFound
        }
        let item = try DecodedItem(record, barrier: barrier, logger: logger)
        guard token.grants(group: item.group) else { throw .itemNotFound }
        return item
    }

    /// Rewrites the item `ref` names with `change`'s access object: attributes and secret sealed
    /// again, a new version, an `update` event. `expecting`: the version the change was decided
    /// on; another is errSecWrongSecVersion, as a concurrent update's.
    @discardableResult
    private func changeAccess(
        ref: [UInt8], expecting version: Int64? = nil, _ change: @escaping (AccessObject?) -> AccessObject?
    ) throws(KeychainError) -> Int64 {
        let barrier = try barrier()
        let (record, changed) = try transaction { writer -> (ItemRecord, Bool) in
            guard let record = try writer.items(matching: ItemFilter(ref: ref, limit: 1)).first else {
                throw KeychainError.itemNotFound
            }
            if let version, record.version != version {
                throw KeychainError.preconditionFailed("access: the item changed while its access object was being changed")
            }
            let old = try DecodedItem(record, barrier: barrier, logger: self.logger)
            var item = old
            item.access = change(old.access)
            guard item.access != old.access else { return (record, false) }
            // The secret is bound to whether the item has an access object, not to its entries.
            if let sealed = old.record.secret, (old.access == nil) != (item.access == nil) {
                let secret = try self.openSecret(
                    sealed, of: old.record, barrier: barrier, key: "access", for: .changeACL, token: nil, decoded: old)
                item.record.secret = try self.seal(secret, for: item, barrier: barrier)
            }
            item.record.modified = max(self.clock.now(), item.record.created)
            item.record.version += 1
            try item.reseal(barrier: barrier)
            try writer.replace(item.record)
            try self.log(.update, records: [item.record], barrier: barrier, in: writer)
            return (item.record, true)
        }
        if changed { publish(.update, records: [record], barrier: barrier) }
        return record.version
    }
}

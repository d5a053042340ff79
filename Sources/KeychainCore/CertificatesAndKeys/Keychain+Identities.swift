import KeychainBarrier
import KeychainStorage
import KeychainX509

/// Identities: no rows of their own. An identity is a certificate joined with
/// a private key whose `applicationLabel` is the certificate's `publicKeyHash`, both in groups
/// the token may see, as securityd's identity query joins `cert.pkhh == keys.klbl` over private
/// keys. A private key may pair with several certificates (a renewed certificate keeps its key);
/// a certificate names its identity, so an identity's persistent reference is its certificate's.
///
/// What an identity query's attributes match: an attribute certificates have (`label`,
/// `subject`, `issuer`, …, and `accessGroup`, `accessible`, `synchronizable` and the dates)
/// matches the certificate, as the merged answer shows the certificate's values; an attribute
/// only keys have (`applicationTag`, `keySizeInBits`, `canSign`, …) matches the key.
extension Keychain {
    /// One identity: its certificate and its private key, opened.
    struct IdentityPair {
        var certificate: DecodedItem
        var key: DecodedItem
    }

    /// The most private keys one certificate pairs with in an answer.
    static let maxKeysPerCertificate = 16
    /// Certificates read at a time while an identity or certificate match-key search scans.
    static let scanBatch = 256

    /// `query` as its certificate must match it, and the attributes its key must have.
    static func identitySplit(_ query: ItemQuery) -> (
        certificate: ItemQuery, keyAttributes: [(key: SchemaKey, value: AttributeValue)]
    ) {
        var certificate = query
        certificate.itemClass = .certificate
        certificate.attributes = query.attributes.filter { $0.key.applies(to: .certificate) }
        return (certificate, query.attributes.filter { !$0.key.applies(to: .certificate) })
    }

    /// The private keys in the token's groups that pair with `certificate` and have `attributes`.
    private func privateKeys(
        for certificate: DecodedItem, attributes: [(key: SchemaKey, value: AttributeValue)], token: AccessToken, barrier: Barrier,
        read: (ItemFilter) throws -> [ItemRecord]
    ) throws(KeychainError) -> [DecodedItem] {
        guard
            case .bytes(let hash)? = certificate.attributes.first(where: { $0.key == Self.certificateKeys.publicKeyHash })?.value
        else { return [] }
        var query = ItemQuery()
        query.itemClass = .key
        query.synchronizable = .any
        query.attributes = [(Self.keyKeys.keyClass, .string("private")), (Self.keyKeys.label, .bytes(hash))] + attributes
        var keys: [DecodedItem] = []
        try scanItems(query, filter(for: query, token: token, barrier: barrier), token: token, barrier: barrier, read: read) {
            (record) throws(KeychainError) in
            keys.append(try DecodedItem(record, barrier: barrier, logger: logger))
            return keys.count < Self.maxKeysPerCertificate
        }
        return keys
    }

    /// The identities whose certificates `filter` names after `afterID`, in the certificates'
    /// insertion order: certificates are read `scanBatch` at a time, filtered by the query's
    /// match keys, and each joined with its private keys, until `wanted` identities (all when
    /// `nil`) are found. Memory stays bounded by the batch and `wanted`, whatever the keychain holds.
    func identityPairs(
        _ query: ItemQuery, selection certificates: ItemSelection, token: AccessToken, barrier: Barrier, wanted: Int?,
        read: (ItemFilter) throws -> [ItemRecord]
    ) throws(KeychainError) -> [IdentityPair] {
        let (certificateQuery, keyAttributes) = Self.identitySplit(query)
        var selection = certificates
        selection.filter.readsAttributes = true
        var pairs: [IdentityPair] = []
        try scanItems(certificateQuery, selection, token: token, barrier: barrier, read: read) {
            (record) throws(KeychainError) in
            let certificate = try DecodedItem(record, barrier: barrier, logger: logger)
            for key in try privateKeys(for: certificate, attributes: keyAttributes, token: token, barrier: barrier, read: read) {
                pairs.append(IdentityPair(certificate: certificate, key: key))
            }
            return wanted.map { pairs.count < $0 } ?? true
        }
        return pairs
    }

    /// Reads the items `selection` names `scanBatch` at a time, keeps those holding its exact
    /// values that `query`'s certificate match keys accept, and hands each to `visit` until it
    /// answers `false`.
    func scanItems(
        _ query: ItemQuery, _ selection: ItemSelection, token: AccessToken, barrier: Barrier,
        read: (ItemFilter) throws -> [ItemRecord], visit: (ItemRecord) throws(KeychainError) -> Bool
    ) throws(KeychainError) {
        try scanItems(
            query, filter: selection.filter, exact: selection.exact, token: token, barrier: barrier, read: read, visit: visit)
    }

    /// `scanItems(_:_:…)` of a filter and exact values held apart (a search's plan): borrowed,
    /// where a selection made of them would copy them, a retain and a release of each field.
    func scanItems(
        _ query: ItemQuery, filter selected: ItemFilter, exact: ExactValues, token: AccessToken, barrier: Barrier,
        read: (ItemFilter) throws -> [ItemRecord], visit: (ItemRecord) throws(KeychainError) -> Bool
    ) throws(KeychainError) {
        var filter = selected
        filter.limit = Self.scanBatch
        if !exact.isEmpty { filter.readsAttributes = true }
        while true {
            let batch: [ItemRecord]
            do { batch = try read(filter) } catch { throw map(error) }
            guard let last = batch.last else { return }
            filter.afterID = last.rowID
            let kept = try matching(batch, exact, barrier: barrier)
            let matched =
                query.certificateMatch.isEmpty
                ? kept : try certificateMatches(kept, query: query, token: token, barrier: barrier)
            for record in matched where !(try visit(record)) { return }
            if batch.count < Self.scanBatch { return }
        }
    }

    /// An identity as the query's return keys shape it: the key's attributes under the
    /// certificate's (securityd merges the certificate's into the key's), class `identity`; the
    /// key's bytes as its data (when extractable) with the certificate's DER beside them; the
    /// certificate's persistent reference and version.
    func shape(_ pair: IdentityPair, query: ItemQuery, barrier: Barrier, token: AccessToken?) throws(KeychainError)
        -> ItemResult
    {
        let certificate = pair.certificate
        var attributes: ItemAttributes?
        if query.wantsAttributes || !query.hasReturnKey {
            let shown = certificate.itemAttributes
            var values = pair.key.attributes.filter { key, _ in !certificate.attributes.contains { $0.key == key } }
            values += certificate.attributes
            attributes = ItemAttributes(
                itemClass: .identity, accessGroup: shown.accessGroup, accessible: shown.accessible,
                synchronizable: shown.synchronizable, creationDate: shown.creationDate, modificationDate: shown.modificationDate,
                values: values)
        }
        let extractable = Self.isExtractable(pair.key)
        func open(_ item: DecodedItem, _ name: String) throws(KeychainError) -> [UInt8]? {
            guard let sealed = item.record.secret else { return nil }
            return try openSecret(
                sealed, of: item.record, barrier: barrier, key: name, for: .export, token: token, decoded: item)
        }
        var secret: [UInt8]?
        var certificateData: [UInt8]?
        var reference: ItemReference?
        if query.wantsData {
            secret = extractable ? try open(pair.key, "returnData") : nil
            certificateData = try open(certificate, "returnData")
        }
        if query.wantsRef {
            var key = secret
            if key == nil, extractable { key = try open(pair.key, "returnRef") }
            var der = certificateData
            if der == nil { der = try open(certificate, "returnRef") }
            reference = Self.keyReference(pair.key, bytes: key, certificate: der)
        }
        return ItemResult(
            ref: certificate.record.ref, version: certificate.record.version, attributes: attributes, secret: secret,
            includesRef: query.wantsPersistentRef || !query.hasReturnKey, certificateData: certificateData,
            reference: reference, keyRef: pair.key.record.ref, keychain: self.name)
    }

    // MARK: search

    /// SecItemCopyMatching for identities: a page of the join, `matchLimit` one by default.
    func identityPage(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> SearchPage {
        try checkSearch(query, token: token)
        let barrier = try barrier()
        if query.opensSecrets { try verifyPrompt(token) }
        let (certificateQuery, keyAttributes) = Self.identitySplit(query)
        let selection = try filter(for: certificateQuery, token: token, barrier: barrier)
        let matchLimit = (query.matchLimit ?? .one).sqlLimit
        let pageSize = max(1, configuration.maxAnswerItems)
        // The cursor is bound to the certificates' filter and to what the key must match.
        var bound = selection.filter
        bound.classes = [ItemClass.identity.rawValue]
        bound.lookups += keyAttributes.map { barrier.lookup($0.key, $0.value) }
        var exact = selection.exact
        exact.values += keyAttributes.compactMap { key, value in
            guard case .string(let string) = value else { return nil }
            return (key, string)
        }
        let binding = PageCursor.binding(
            token: token, filter: bound, exact: exact, matchLimit: matchLimit, certificateMatch: query.certificateMatch,
            caseInsensitive: query.caseInsensitive)
        var start = selection
        var returned = 0
        if let text = query.pageAfter {
            let cursor = try PageCursor(opening: text, barrier: barrier, binding: binding)
            start.filter.afterID = cursor.afterID
            returned = cursor.returned
        }
        var pageLimit = pageSize
        var limitEndsAnswer = false
        if let matchLimit, matchLimit - returned <= pageSize {
            pageLimit = max(0, matchLimit - returned)
            limitEndsAnswer = true
        }
        // One identity past the page tells whether another page follows.
        var pairs = try identityPairs(
            query, selection: start, token: token, barrier: barrier, wanted: limitEndsAnswer ? pageLimit : pageLimit + 1,
            read: { try store.items(matching: $0) })
        guard !pairs.isEmpty, pageLimit > 0 else { throw .itemNotFound }
        var next: String?
        if pairs.count > pageLimit {
            // A page ends with a certificate's last identity: a cursor is a certificate's row.
            let boundary = pairs[pageLimit].certificate.record.rowID
            var count = pageLimit
            while count > 0, pairs[count - 1].certificate.record.rowID == boundary { count -= 1 }
            if count == 0 { count = pairs.lastIndex { $0.certificate.record.rowID == boundary }! + 1 }
            if limitEndsAnswer {
                count = pageLimit
            } else if count < pairs.count {
                next = try PageCursor(afterID: pairs[count - 1].certificate.record.rowID, returned: returned + count)
                    .sealed(barrier: barrier, binding: binding)
            }
            pairs.removeSubrange(count...)
        }
        if query.opensSecrets {
            // The whole call fails rather than answer a silent part (docs/semantics.md §3).
            for pair in pairs where pair.key.record.secret != nil && barrier.classKey(for: pair.key.protection) == nil {
                throw Self.locked(query.wantsData ? "returnData" : "returnRef")
            }
        }
        return SearchPage(
            items: try pairs.map { (pair) throws(KeychainError) in try shape(pair, query: query, barrier: barrier, token: token)
            },
            next: next)
    }

    // MARK: add

    /// SecItemAdd of an identity: its certificate (`certificateData`) and its private key
    /// (`valueData`), stored together in one transaction, or neither. The key must be the
    /// certificate's (errSecParam naming `valueData`); its type, when not given, is the
    /// certificate's key's. Attributes certificates have go to the certificate, those keys have to
    /// the key (`label`, `accessGroup`, `synchronizable` to both). The same certificate again is
    /// errSecDuplicateItem; the same key again (in the same group) is the key already there,
    /// kept as it is: a private key pairs with every certificate of its public key.
    public func addIdentity(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> ItemResult {
        let (certificateItem, keyItem, barrier) = try identityItems(query, token: token)
        let key: ItemRecord
        do {
            key = try transaction { writer in try Self.insert(certificateItem, keyItem, writer: writer) }
        } catch {
            throw duplicateOrFailure(error, certificateItem.record)
        }
        let pair = IdentityPair(
            certificate: certificateItem, key: key.ref == keyItem.record.ref ? keyItem : try DecodedItem(key, barrier: barrier))
        publish(.add, item: certificateItem)
        if key.ref == keyItem.record.ref { publish(.add, item: keyItem) }
        return try shape(pair, query: query, barrier: barrier, token: token)
    }

    /// The two rows an identity add writes, sealed, after checking the query, the token and the lock.
    func identityItems(_ query: ItemQuery, token: AccessToken) throws(KeychainError) -> (DecodedItem, DecodedItem, Barrier) {
        try require(.write, token, for: "add")
        try query.check(for: .add)
        guard let der = query.certificateData else {
            throw .param("certificateData: an identity needs its certificate (DER) beside its private key in valueData")
        }
        guard let keyBytes = query.valueData else { throw .param("valueData: an identity needs its private key") }
        let certificate = try Self.parseCertificate(der, naming: "certificateData")
        var certificateQuery = query
        certificateQuery.itemClass = .certificate
        certificateQuery.certificateData = nil
        certificateQuery.valueData = der
        certificateQuery.attributes = query.attributes.filter { $0.key.applies(to: .certificate) }
        var keyQuery = query
        keyQuery.itemClass = .key
        keyQuery.certificateData = nil
        keyQuery.attributes = query.attributes.filter { $0.key.applies(to: .key) }
        try completeIdentityKey(&keyQuery, bytes: keyBytes, certificate: certificate)
        let (certificateItem, barrier) = try addedItem(certificateQuery, token: token)
        let (keyItem, _) = try addedItem(keyQuery, token: token)
        return (certificateItem, keyItem, barrier)
    }

    /// Writes an identity's rows: the certificate, and the key unless the same key (its whole
    /// primary key, group included) is there already. Returns the key's row as stored.
    static func insert(_ certificate: DecodedItem, _ key: DecodedItem, writer: any StoreWriter) throws -> ItemRecord {
        _ = try writer.insert(certificate.record)
        if let existing = try writer.item(primaryKey: key.record.primaryKey) { return existing }
        _ = try writer.insert(key.record)
        return key.record
    }

    /// The key half of an identity add: a private key, of the certificate's public key, whose
    /// `applicationLabel` is the certificate's `publicKeyHash`.
    private func completeIdentityKey(_ query: inout ItemQuery, bytes: [UInt8], certificate: Certificate) throws(KeychainError) {
        let k = Self.keyKeys
        func given(_ key: SchemaKey) -> AttributeValue? { query.attributes.first { $0.key == key }?.value }
        if let keyClass = given(k.keyClass), keyClass != .string("private") {
            throw .param("keyClass: an identity's key is a private key")
        }
        if let label = given(k.label), label != .bytes(certificate.publicKeyHash) {
            throw .param("applicationLabel: an identity's key's label is its certificate's publicKeyHash")
        }
        let algorithms: [KeyMaterial.Algorithm]
        if case .string(let name)? = given(k.keyType), let algorithm = KeyMaterial.Algorithm(rawValue: name) {
            algorithms = [algorithm]
        } else if given(k.keyType) != nil {
            throw .param("keyType: an identity's key is an rsa, ec, ed25519 or x25519 key")
        } else {
            algorithms = [.rsa, .ec, .ed25519, .x25519]
        }
        guard
            let algorithm = algorithms.first(where: { algorithm in
                (try? KeyMaterial(bytes, algorithm: algorithm, role: .private))?.publicKeyHash == certificate.publicKeyHash
            })
        else {
            throw .param("valueData: not the private key of the certificate's public key in certificateData")
        }
        if given(k.keyClass) == nil { query.attributes.append((k.keyClass, .string("private"))) }
        if given(k.keyType) == nil { query.attributes.append((k.keyType, .string(algorithm.rawValue))) }
    }
}

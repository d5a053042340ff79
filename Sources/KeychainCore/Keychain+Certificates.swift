import KeychainStorage
import KeychainX509

/// Certificate items: the attributes derived from the DER in `valueData`, and the match keys
/// that filter opened certificates (issue 16, part 1).
extension Keychain {
    static let certificateKeys = (
        type: Schema.key(canonical: "certificateType")!, encoding: Schema.key(canonical: "certificateEncoding")!,
        subject: Schema.key(canonical: "subject")!, issuer: Schema.key(canonical: "issuer")!,
        serialNumber: Schema.key(canonical: "serialNumber")!, subjectKeyID: Schema.key(canonical: "subjectKeyID")!,
        publicKeyHash: Schema.key(canonical: "publicKeyHash")!
    )

    /// Parses a certificate's DER: errSecUnknownFormat naming `key` (where the bytes came
    /// from: a certificate's `valueData`, an identity's `certificateData`, an import's `body`)
    /// when it is not one.
    static func parseCertificate(_ der: [UInt8], naming key: String = "valueData") throws(KeychainError) -> Certificate {
        do { return try Certificate(der: der) } catch {
            throw .unknownFormat("\(key): not a DER X.509 certificate (\(error.message))")
        }
    }

    /// The attributes Apple derives from `certificate` (SecCertificateCopyAttributeDictionary),
    /// in table order; `subjectKeyID` only when the certificate has the extension.
    static func derivedAttributes(of certificate: Certificate) -> [(key: SchemaKey, value: AttributeValue)] {
        let k = certificateKeys
        var attributes: [(key: SchemaKey, value: AttributeValue)] = [
            (k.type, .int(certificate.certificateType)), (k.encoding, .int(certificate.certificateEncoding)),
            (k.subject, .bytes(certificate.subject)), (k.issuer, .bytes(certificate.issuer)),
            (k.serialNumber, .bytes(certificate.serialNumber)),
        ]
        if let skid = certificate.subjectKeyID { attributes.append((k.subjectKeyID, .bytes(skid))) }
        attributes.append((k.publicKeyHash, .bytes(certificate.publicKeyHash)))
        return attributes
    }

    /// A certificate item's attributes: the writable ones `given`, then the `derived` ones. A
    /// derived attribute in `given` must equal the certificate's (a whole DER Name given for
    /// `subject` or `issuer` is normalized first, as Apple does): else errSecParam naming it.
    static func certificateAttributes(
        given: [(key: SchemaKey, value: AttributeValue)], derived: [(key: SchemaKey, value: AttributeValue)]
    ) throws(KeychainError) -> [(key: SchemaKey, value: AttributeValue)] {
        try checkDerived(given, against: derived)
        return given.filter { $0.key.access != .derived } + derived
    }

    /// Each derived attribute of `given` equals its value in `attributes` (absent there: differs).
    static func checkDerived(
        _ given: [(key: SchemaKey, value: AttributeValue)], against attributes: [(key: SchemaKey, value: AttributeValue)]
    ) throws(KeychainError) {
        for (key, value) in canonicalNames(given) where key.access == .derived {
            guard attributes.first(where: { $0.key == key })?.value == value else {
                throw .param("\(key.name): differs from the value derived from the certificate in valueData")
            }
        }
    }

    /// `subject` and `issuer` values as stored: a whole DER Name becomes its normalized content.
    static func canonicalNames(_ attributes: [(key: SchemaKey, value: AttributeValue)]) -> [(key: SchemaKey, value: AttributeValue)] {
        guard attributes.contains(where: { $0.key == certificateKeys.subject || $0.key == certificateKeys.issuer }) else {
            return attributes
        }
        return attributes.map { key, value in
            guard key == certificateKeys.subject || key == certificateKeys.issuer, case .bytes(let bytes) = value else {
                return (key, value)
            }
            return (key, .bytes(DistinguishedName.canonical(bytes)))
        }
    }

    // MARK: match keys

    /// The records whose certificates satisfy `query`'s certificate match keys. Each record's
    /// DER is opened: a record whose class key is locked away fails the whole search
    /// (errSecInteractionNotAllowed, as returnData does), never a silent partial answer.
    func certificateMatches(_ records: [ItemRecord], query: ItemQuery, token: AccessToken, barrier: Barrier) throws(KeychainError)
        -> [ItemRecord]
    {
        let match = query.certificateMatch
        let name = match.givenKeys.first ?? "matchIssuers"
        let issuers = match.issuers.map { Set($0.compactMap(DistinguishedName.normalizedContent)) }
        let date: Int64? =
            switch match.validOnDate {
            case .now?: clock.now()
            case .date(let ms)?: ms
            case nil: nil
            }
        var walk = IssuerWalk()
        var matched: [ItemRecord] = []
        for record in records where record.itemClass == ItemClass.certificate.rawValue {
            guard let sealed = record.secret else { continue }
            let der = try openSecret(sealed, of: record, barrier: barrier, key: name)
            guard let certificate = try? Certificate(der: der) else { continue }
            guard subjectMatches(certificate, match, caseInsensitive: query.caseInsensitive) else { continue }
            if let wanted = match.emailAddressIfPresent, !certificate.emailAddresses.isEmpty,
                !certificate.emailAddresses.contains(where: { $0.lowercased() == wanted.lowercased() })
            {
                continue
            }
            if let date, !certificate.isValid(at: date) { continue }
            if let issuers, !(try walk.reaches(issuers, from: certificate.issuer, keychain: self, token: token, barrier: barrier)) {
                continue
            }
            matched.append(record)
        }
        return matched
    }

    private func subjectMatches(_ certificate: Certificate, _ match: CertificateMatch, caseInsensitive: Bool) -> Bool {
        func fold(_ text: String) -> String { caseInsensitive ? CaseFolding.fold(text) : text }
        let values = certificate.subjectValues.map(fold)
        func any(_ wanted: String?, _ test: (String, String) -> Bool) -> Bool {
            guard let wanted else { return true }
            let folded = fold(wanted)
            return values.contains { test($0, folded) }
        }
        return any(match.subjectContains) { $0.contains($1) } && any(match.subjectStartsWith) { $0.hasPrefix($1) }
            && any(match.subjectEndsWith) { $0.hasSuffix($1) } && any(match.subjectWholeString) { $0 == $1 }
    }

    /// The certificates whose subject is `subject`, in the token's groups: the parents a
    /// `matchIssuers` walk climbs to.
    fileprivate func certificates(withSubject subject: [UInt8], token: AccessToken, barrier: Barrier) throws(KeychainError)
        -> [DecodedItem]
    {
        var query = ItemQuery()
        query.itemClass = .certificate
        query.synchronizable = .any
        query.attributes = [(Self.certificateKeys.subject, .bytes(subject))]
        var filter = try filter(for: query, token: token, barrier: barrier)
        filter.limit = IssuerWalk.maxParents
        let records: [ItemRecord]
        do { records = try store.items(matching: filter) } catch { throw map(error) }
        return try records.map { (record) throws(KeychainError) in try DecodedItem(record, barrier: barrier, logger: logger) }
    }
}

/// `matchIssuers` as securityd's `items_matching_issuer_parent`: a certificate matches when its
/// issuer is one of the names, or when a certificate in the keychain (in the token's groups)
/// whose subject is that issuer matches in turn, up to 10 levels; self-signed parents end a branch.
private struct IssuerWalk {
    static let maxDepth = 10
    /// The most parents read for one issuer name.
    static let maxParents = 16
    /// Issuer names already found to reach (or not) the wanted names, for this search.
    var known: [[UInt8]: Bool] = [:]

    mutating func reaches(
        _ wanted: Set<[UInt8]>, from issuer: [UInt8], depth: Int = maxDepth, keychain: Keychain, token: AccessToken,
        barrier: Barrier
    ) throws(KeychainError) -> Bool {
        if wanted.contains(issuer) { return true }
        if let answer = known[issuer] { return answer }
        known[issuer] = false  // a cycle ends here
        guard depth > 0 else { return false }
        for parent in try keychain.certificates(withSubject: issuer, token: token, barrier: barrier) {
            guard case .bytes(let parentIssuer)? = parent.attributes.first(where: { $0.key == Keychain.certificateKeys.issuer })?.value,
                parentIssuer != issuer
            else { continue }
            if try reaches(wanted, from: parentIssuer, depth: depth - 1, keychain: keychain, token: token, barrier: barrier) {
                known[issuer] = true
                return true
            }
        }
        return false
    }
}

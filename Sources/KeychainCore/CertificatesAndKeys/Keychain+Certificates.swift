import KeychainBarrier
import KeychainStorage
import KeychainX509

/// Certificate items: the attributes derived from the DER in `valueData`, and the match keys
/// that filter opened certificates.
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
    static func canonicalNames(_ attributes: [(key: SchemaKey, value: AttributeValue)]) -> [(
        key: SchemaKey, value: AttributeValue
    )] {
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
        // Subject keys alone need only the subject, read from the DER without OpenSSL's whole parse.
        let subjectOnly = match.issuers == nil && match.emailAddressIfPresent == nil && match.validOnDate == nil
        for record in records where record.itemClass == ItemClass.certificate.rawValue {
            guard let sealed = record.secret else { continue }
            // Matched here, not answered: no access object is asked.
            let der = try openSecret(sealed, of: record, barrier: barrier, key: name, for: .export, token: nil)
            if subjectOnly, let values = Certificate.subjectValues(ofDER: der) {
                if subjectMatches(values, match, caseInsensitive: query.caseInsensitive) { matched.append(record) }
                continue
            }
            guard let certificate = try? Certificate(der: der) else { continue }
            guard subjectMatches(certificate.subjectValues, match, caseInsensitive: query.caseInsensitive) else { continue }
            if let wanted = match.emailAddressIfPresent, !certificate.emailAddresses.isEmpty,
                !certificate.emailAddresses.contains(where: { $0.lowercased() == wanted.lowercased() })
            {
                continue
            }
            if let date, !certificate.isValid(at: date) { continue }
            if let issuers, !(try walk.reaches(issuers, from: certificate.issuer, keychain: self, token: token, barrier: barrier))
            {
                continue
            }
            matched.append(record)
        }
        return matched
    }

    /// Whether the subject values satisfy the subject match keys. Compared literally, on the
    /// UTF-8 bytes (after case folding when `matchCaseInsensitive`), as CFStringFind compares
    /// without kCFCompareNonliteral: a valid UTF-8 text can only match on character boundaries.
    private func subjectMatches(_ subjectValues: [String], _ match: CertificateMatch, caseInsensitive: Bool) -> Bool {
        func bytes(_ text: String) -> [UInt8] { Array((caseInsensitive ? CaseFolding.fold(text) : text).utf8) }
        let values = subjectValues.map(bytes)
        func any(_ wanted: String?, _ test: ([UInt8], [UInt8]) -> Bool) -> Bool {
            guard let wanted else { return true }
            let needle = bytes(wanted)
            return values.contains { test($0, needle) }
        }
        return any(match.subjectContains, Self.contains) && any(match.subjectStartsWith) { $0.starts(with: $1) }
            && any(match.subjectEndsWith) { $0.count >= $1.count && $0.suffix($1.count).elementsEqual($1) }
            && any(match.subjectWholeString) { $0 == $1 }
    }

    /// Whether `needle` occurs in `haystack` (an empty needle does).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
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
        var selection = try filter(for: query, token: token, barrier: barrier)
        selection.filter.limit = IssuerWalk.maxParents
        var records: [ItemRecord]
        do { records = try store.items(matching: selection.filter) } catch { throw map(error) }
        records = try matching(records, selection.exact, barrier: barrier)  // none: a subject is bytes
        return try records.map { (record) throws(KeychainError) in try DecodedItem(record, barrier: barrier, logger: logger) }
    }
}

/// `matchIssuers` as securityd's `items_matching_issuer_parent`: a certificate matches when its
/// issuer is one of the names, or when a certificate in the keychain (in the token's groups)
/// whose subject is that issuer matches in turn, up to 10 levels; self-signed parents end a branch.
struct IssuerWalk {
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
            guard
                case .bytes(let parentIssuer)? = parent.attributes.first(where: { $0.key == Keychain.certificateKeys.issuer })?
                    .value,
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

extension Keychain {
    /// The certificates that issued `der`, up to a root, among those in the token's groups: each
    /// certificate's issuer found as another's subject (the first found, its signature not
    /// checked: a chain to send beside a leaf, not a trust decision), at most `IssuerWalk.maxDepth`
    /// and never twice. What a PKCS#12 export carries beside its identity.
    public func issuerChain(of der: [UInt8], token: AccessToken) throws(KeychainError) -> [[UInt8]] {
        let barrier = try barrier()
        var certificate = try Self.parseCertificate(der)
        var chain: [[UInt8]] = []
        var seen: Set<[UInt8]> = [certificate.subject]
        while chain.count < IssuerWalk.maxDepth, certificate.issuer != certificate.subject, !seen.contains(certificate.issuer) {
            seen.insert(certificate.issuer)
            var parentDER: [UInt8]?
            for parent in try certificates(withSubject: certificate.issuer, token: token, barrier: barrier) {
                guard let sealed = parent.record.secret else { continue }
                parentDER = try openSecret(
                    sealed, of: parent.record, barrier: barrier, key: "returnRef", for: .export, token: token, decoded: parent)
                break
            }
            guard let parentDER, let parent = try? Certificate(der: parentDER) else { break }
            chain.append(parentDER)
            certificate = parent
        }
        return chain
    }
}

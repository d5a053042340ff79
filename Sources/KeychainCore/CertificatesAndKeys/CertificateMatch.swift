import KeychainX509

/// A search's certificate match keys (`kSecMatchSubjectContains` …, `kSecMatchIssuers`,
/// `kSecMatchEmailAddressIfPresent`, `kSecMatchValidOnDate`). They need the certificate itself,
/// so they filter the candidate rows after their DER is opened, rather than in the store.
public struct CertificateMatch: Sendable, Equatable {
    /// `matchSubjectContains` …: compared with each of the subject's attribute values as text.
    public var subjectContains: String?
    public var subjectStartsWith: String?
    public var subjectEndsWith: String?
    public var subjectWholeString: String?
    /// DER Names (whole SEQUENCEs), as the client sent them.
    public var issuers: [[UInt8]]?
    public var emailAddressIfPresent: String?
    /// `matchValidOnDate`: a date, or `now` for JSON null (Apple's kCFNull: the current time).
    public var validOnDate: ValidOnDate?

    public enum ValidOnDate: Sendable, Equatable {
        case now
        /// Milliseconds since 1970.
        case date(Int64)
    }

    public init() {}

    /// No match key given: the common case, told without building anything (every search asks).
    public var isEmpty: Bool {
        subjectContains == nil && subjectStartsWith == nil && subjectEndsWith == nil && subjectWholeString == nil
            && issuers == nil && emailAddressIfPresent == nil && validOnDate == nil
    }

    /// The keys given, by canonical name, in table order: error messages name the first.
    var givenKeys: [String] {
        [
            ("matchSubjectContains", subjectContains != nil), ("matchSubjectStartsWith", subjectStartsWith != nil),
            ("matchSubjectEndsWith", subjectEndsWith != nil), ("matchSubjectWholeString", subjectWholeString != nil),
            ("matchIssuers", issuers != nil), ("matchEmailAddressIfPresent", emailAddressIfPresent != nil),
            ("matchValidOnDate", validOnDate != nil),
        ].filter(\.1).map(\.0)
    }
}

extension ItemQuery {
    /// Each issuer must be a DER Name; each string within the attribute size limit.
    func checkCertificateMatch() throws(KeychainError) {
        let match = certificateMatch
        guard !match.isEmpty else { return }
        for (name, text) in [
            ("matchSubjectContains", match.subjectContains), ("matchSubjectStartsWith", match.subjectStartsWith),
            ("matchSubjectEndsWith", match.subjectEndsWith), ("matchSubjectWholeString", match.subjectWholeString),
            ("matchEmailAddressIfPresent", match.emailAddressIfPresent),
        ] {
            if let text, text.utf8.count > Self.maxAttributeBytes {
                throw .dataTooLarge("\(name): \(text.utf8.count) bytes; at most \(Self.maxAttributeBytes)")
            }
        }
        if let issuers = match.issuers {
            guard !issuers.isEmpty, issuers.count <= Self.maxIssuers else {
                throw .param("matchIssuers: expected 1 to \(Self.maxIssuers) DER names")
            }
            for (index, issuer) in issuers.enumerated() {
                guard issuer.count <= Self.maxAttributeBytes, DistinguishedName.normalizedContent(issuer) != nil else {
                    throw .param("matchIssuers: element \(index) is not a DER X.501 Name")
                }
            }
        }
    }

    /// The most names one `matchIssuers` may list.
    static let maxIssuers = 64
}

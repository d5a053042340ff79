import ExtrasBase64
import KeychainBarrier
import KeychainCrypto
import KeychainStorage

/// One answer of a search: at most `KeychainConfiguration.maxAnswerItems` items and about
/// `maxAnswerBytes` of them, and, when more match, the cursor of the next page.
///
/// An answer is built whole before it is sent, and held until the client reads it: without a
/// bound, one request for every item with its secret held hundreds of megabytes per connection.
/// The next page is the same query with `pageAfter` set to `next`; pages follow insertion order,
/// as one answer does, and together they hold what one unbounded answer would (`matchLimit`
/// counts across pages), less what was deleted in between and plus what was added after.
public struct SearchPage: Sendable {
    public let items: [ItemResult]
    /// The `pageAfter` of the next page; `nil` on the last.
    public let next: String?
}

/// Where a paged search goes on: the row id of the last item answered and how many items the
/// pages so far held, sealed under the keychain's attribute key and bound to the token and the
/// query, so a client can neither read it (row ids would count other groups' items) nor forge
/// it, nor carry it to another query or token. Every replica opens it.
struct PageCursor: Equatable {
    var afterID: Int64
    var returned: Int

    static let bad = KeychainError.param("pageAfter: not the cursor of a page of this query and token")

    func sealed(barrier: Barrier, binding: [UInt8]) throws(KeychainError) -> String {
        let plaintext = Settings.encodeInt(afterID) + Settings.encodeInt(Int64(returned))
        let frame = try Keychain.crypto { () throws(CryptoError) in try barrier.sealCursor(plaintext, binding: binding) }
        return Base64.encodeToString(bytes: frame, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    init(afterID: Int64, returned: Int) {
        self.afterID = afterID
        self.returned = returned
    }

    init(opening text: String, barrier: Barrier, binding: [UInt8]) throws(KeychainError) {
        guard text.utf8.count <= 256,
            let frame = try? Base64.decode(string: text, options: [.base64UrlAlphabet, .omitPaddingCharacter]),
            let plaintext = try? barrier.openCursor(frame, binding: binding), plaintext.count == 16,
            let afterID = Settings.decodeInt(Array(plaintext[0..<8])),
            let returned = Settings.decodeInt(Array(plaintext[8..<16])),
            returned > 0
        else { throw Self.bad }
        self.afterID = afterID
        self.returned = Int(returned)
    }

    /// What a cursor is bound to: the token, and every condition of the query's filter (its
    /// digests are keyed, so this reveals nothing the cursor's holder does not know).
    static func binding(
        token: AccessToken, filter: ItemFilter, exact: ExactValues = ExactValues(), matchLimit: Int?,
        certificateMatch: CertificateMatch = CertificateMatch(), caseInsensitive: Bool = false
    ) -> [UInt8] {
        var bytes = Array(token.id.utf8) + [0]
        func put(_ value: Int64) { bytes += Settings.encodeInt(value) }
        func put(_ blobs: [[UInt8]]?) {
            guard let blobs else { return put(-1) }
            put(Int64(blobs.count))
            for blob in blobs {
                put(Int64(blob.count))
                bytes += blob
            }
        }
        put(filter.classes.map { $0.map { Settings.encodeInt(Int64($0)) } })
        put(filter.groups)
        put(filter.primaryKeys)
        put(filter.lookups)
        // A string's lookup digest is its folded form's: the exact values tell "A" from "a".
        put(exact.values.map { Array($0.key.name.utf8) + [0] + Array($0.value.utf8) })
        put(exact.key.map { [[UInt8(truncatingIfNeeded: $0.itemClass.rawValue)]] + $0.values.map(\.digestBytes) })
        put(filter.ref.map { [$0] })
        put(filter.synchronizable.map { $0 ? 1 : 0 } ?? -1)
        put(filter.created ?? -1)
        put(filter.modified ?? -1)
        put(Int64(matchLimit ?? -1))
        // The certificate match keys filter after the store: a cursor is bound to them too (the
        // binding is associated data, never sent).
        if !certificateMatch.isEmpty {
            let m = certificateMatch
            put(
                [m.subjectContains, m.subjectStartsWith, m.subjectEndsWith, m.subjectWholeString, m.emailAddressIfPresent].map {
                    $0.map { [1] + Array($0.utf8) } ?? [0]
                })
            put(m.issuers)
            switch m.validOnDate {
            case nil: put(-1)
            case .now?: put(-2)
            case .date(let ms)?: put(ms)
            }
            put(caseInsensitive ? 1 : 0)
        }
        return bytes
    }
}

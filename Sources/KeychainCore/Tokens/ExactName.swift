/// A name that is a boundary (an access group, a token id), compared and hashed by its UTF-8
/// bytes.
///
/// Swift's `String ==` is Unicode canonical equivalence (`"\u{212A}ube" == "Kube"`, NFD `café`
/// equals NFC `café`), while the store finds a group by a keyed digest of its bytes: a token's
/// grant must be decided the same way, or a name equivalent to another's reaches its items.
struct ExactName: Hashable, Sendable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: ExactName, rhs: ExactName) -> Bool { lhs.string.isSameBytes(as: rhs.string) }

    func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension String {
    /// Whether the two strings are the same UTF-8 bytes: no Unicode equivalence (`ExactName`).
    public func isSameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}

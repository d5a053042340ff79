/// X.501 names as Apple's keychain stores and compares them.
///
/// Apple keeps a certificate's `issuer` and `subject` attributes as the *normalized content* of
/// the Name (SecCertificate.c, `createNormalizedX501Name`): the RDN SETs without the outer
/// SEQUENCE's tag and length, where every PrintableString value is upper-cased (a–z only) with
/// leading and trailing blanks removed and inner runs of blanks made one space (RFC 5280's
/// rules for comparing PrintableString). Other string types are kept byte for byte.
public enum DistinguishedName {
    /// The normalized content of the DER Name `der` (a whole SEQUENCE), as
    /// `SecDistinguishedNameCopyNormalizedContent`; `nil` when `der` is not one well-formed Name.
    public static func normalizedContent(_ der: [UInt8]) -> [UInt8]? {
        guard let name = DER.element(der, at: 0, limit: der.count), name.tag == DER.sequence, name.end == der.count else {
            return nil
        }
        return normalizedContent(der, rdns: name.content)
    }

    /// What a client's `issuer` or `subject` value stands for: a whole Name (a SEQUENCE) is
    /// normalized, as Apple's SecItem layer does to kSecAttrIssuer; anything else is taken as
    /// it is (already the normalized content, as answers show it).
    public static func canonical(_ value: [UInt8]) -> [UInt8] {
        guard value.first == DER.sequence, let normalized = normalizedContent(value) else { return value }
        return normalized
    }

    static func normalizedContent(_ bytes: [UInt8], rdns content: Range<Int>) -> [UInt8]? {
        guard let rdns = DER.children(bytes, of: content) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(content.count)
        for rdn in rdns {
            // An RDN is a non-empty SET of AttributeTypeAndValue SEQUENCEs.
            guard rdn.tag == DER.set, !rdn.content.isEmpty, let atvs = DER.children(bytes, of: rdn.content) else { return nil }
            var set: [UInt8] = []
            for atv in atvs {
                guard atv.tag == DER.sequence, let parts = DER.children(bytes, of: atv.content), parts.count == 2,
                    parts[0].tag == DER.objectIdentifier, !parts[0].content.isEmpty
                else { return nil }
                let type = Array(bytes[atv.content.lowerBound..<parts[0].end])
                let value = parts[1]
                var encodedValue: [UInt8]
                if value.tag == DER.printableString {
                    encodedValue = DER.encode(tag: DER.printableString, normalizedPrintable(bytes[value.content]))
                } else {
                    encodedValue = Array(bytes[parts[0].end..<value.end])
                }
                set += DER.encode(tag: DER.sequence, type + encodedValue)
                encodedValue.removeAll()
            }
            out += DER.encode(tag: DER.set, set)
        }
        return out
    }

    /// Upper case for a–z; blanks (space, tab) trimmed at both ends and each inner run made one space.
    static func normalizedPrintable(_ text: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var lastWasBlank = false
        for byte in text {
            if byte == 0x20 || byte == 0x09 {
                if !lastWasBlank, !out.isEmpty { out.append(0x20) }
                lastWasBlank = true
            } else {
                lastWasBlank = false
                out.append((0x61...0x7A).contains(byte) ? byte - 0x20 : byte)
            }
        }
        if lastWasBlank, out.last == 0x20 { out.removeLast() }
        return out
    }
}

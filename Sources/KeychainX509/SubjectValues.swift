/// A certificate's subject values as text, read straight from its DER: what the subject match
/// keys compare with, without OpenSSL's whole parse of the certificate, since a
/// `matchSubjectContains` opens every certificate (docs/performance.md#identity-search).
///
/// The same text as `Certificate.subjectValues` (OpenSSL's `ASN1_STRING_to_UTF8` of each entry,
/// `KeychainX509Tests` compares the two): UTF8String as it is (an entry whose UTF-8 is invalid
/// is left out); NumericString, PrintableString, T61String, IA5String, UTCTime, GeneralizedTime
/// and VisibleString one byte a character (Latin-1); UniversalString four bytes and BMPString
/// two, big-endian; any other type is left out, as OpenSSL leaves it out.
extension Certificate {
    /// The subject values of the certificate `der`; `nil` when the walk to the subject fails
    /// (the caller then parses the certificate whole).
    public static func subjectValues(ofDER der: [UInt8]) -> [String]? {
        guard let certificate = DER.element(der, at: 0, limit: der.count), certificate.tag == DER.sequence,
            let tbs = DER.element(der, at: certificate.content.lowerBound, limit: certificate.content.upperBound),
            tbs.tag == DER.sequence
        else { return nil }
        // TBSCertificate: [0] version (optional), serialNumber, signature, issuer, validity, subject.
        var index = tbs.content.lowerBound
        var position = 0
        while index < tbs.content.upperBound {
            guard let element = DER.element(der, at: index, limit: tbs.content.upperBound) else { return nil }
            if position == 0, element.tag == 0xA0 {
                index = element.end
                continue
            }
            if position == 4 {
                guard element.tag == DER.sequence else { return nil }
                return values(der, name: element.content)
            }
            position += 1
            index = element.end
        }
        return nil
    }

    private static func values(_ der: [UInt8], name: Range<Int>) -> [String]? {
        var values: [String] = []
        var rdnIndex = name.lowerBound
        while rdnIndex < name.upperBound {
            guard let rdn = DER.element(der, at: rdnIndex, limit: name.upperBound), rdn.tag == DER.set else { return nil }
            var atvIndex = rdn.content.lowerBound
            while atvIndex < rdn.content.upperBound {
                guard let atv = DER.element(der, at: atvIndex, limit: rdn.content.upperBound), atv.tag == DER.sequence,
                    let type = DER.element(der, at: atv.content.lowerBound, limit: atv.content.upperBound),
                    type.tag == DER.objectIdentifier,
                    let value = DER.element(der, at: type.end, limit: atv.content.upperBound), value.end == atv.content.upperBound
                else { return nil }
                if let text = text(der[value.content], tag: value.tag) { values.append(text) }
                atvIndex = atv.end
            }
            rdnIndex = rdn.end
        }
        return values
    }

    /// `ASN1_STRING_to_UTF8` of one value: its characters by the width its type gives them.
    private static func text(_ bytes: ArraySlice<UInt8>, tag: UInt8) -> String? {
        switch tag {
        case 0x0C:  // UTF8String, valid UTF-8 only
            return String(validating: bytes, as: UTF8.self)
        case 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1A:
            var text = ""
            text.unicodeScalars.reserveCapacity(bytes.count)
            for byte in bytes { text.unicodeScalars.append(Unicode.Scalar(byte)) }
            return text
        case 0x1E:  // BMPString: UCS-2 big-endian
            guard bytes.count % 2 == 0 else { return nil }
            return scalars(bytes, width: 2)
        case 0x1C:  // UniversalString: UCS-4 big-endian
            guard bytes.count % 4 == 0 else { return nil }
            return scalars(bytes, width: 4)
        default:
            return nil
        }
    }

    /// Code points of `width` bytes each; one that is no Unicode scalar value (a surrogate, past
    /// U+10FFFF) leaves the value out, as OpenSSL refuses it.
    private static func scalars(_ bytes: ArraySlice<UInt8>, width: Int) -> String? {
        var text = ""
        var index = bytes.startIndex
        while index < bytes.endIndex {
            var value: UInt32 = 0
            for offset in 0..<width { value = value << 8 | UInt32(bytes[index + offset]) }
            guard let scalar = Unicode.Scalar(value) else { return nil }
            text.unicodeScalars.append(scalar)
            index += width
        }
        return text
    }
}

extension Certificate {
    /// Whether every BOOLEAN in `der` is DER's (content 00 or FF), in the certificate's structure
    /// and in each extension's value: OpenSSL takes BER's other TRUEs, Apple's decoder refuses a
    /// certificate with one (si-61-pkcs12.c `test_cert_decode_error`: errSecDecode), and so does
    /// keychaind. At most `maxDepth` levels deep.
    static func hasOnlyDERBooleans(_ der: [UInt8]) -> Bool {
        walk(der, 0..<der.count, depth: 0)
    }

    private static let maxDepth = 32

    private static func walk(_ der: [UInt8], _ range: Range<Int>, depth: Int) -> Bool {
        guard depth < maxDepth else { return true }
        var index = range.lowerBound
        while index < range.upperBound {
            guard let element = DER.element(der, at: index, limit: range.upperBound) else { return true }
            if element.tag == 0x01 {
                guard element.content.count == 1,
                    der[element.content.lowerBound] == 0x00 || der[element.content.lowerBound] == 0xFF
                else { return false }
            } else if element.tag & 0x20 != 0 {
                guard walk(der, element.content, depth: depth + 1) else { return false }
            } else if element.tag == DER.octetString,
                let inner = DER.element(der, at: element.content.lowerBound, limit: element.content.upperBound),
                inner.end == element.content.upperBound, inner.tag & 0x20 != 0
            {
                // An extension's value (extnValue) is DER inside an OCTET STRING.
                guard walk(der, element.content, depth: depth + 1) else { return false }
            }
            index = element.end
        }
        return true
    }
}

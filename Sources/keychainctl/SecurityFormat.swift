import Foundation
import KeychainClient
import KeychainX509

extension KeychainClient {
    /// The keychain's name in `security`'s output: the server's URL.
    var keychainName: String { configuration.url }
}

/// What `security` prints, byte for byte: `print_buffer`, `print_uint32` and
/// `print_keychain_item_attributes` of SecurityTool's keychain_utilities.c.
enum SecurityFormat {
    /// `print_buffer`: printable ASCII (but `\`) in quotes with octal escapes; any other byte
    /// makes a `0x…` hex form first, followed by a space, and two before a quoted form.
    static func buffer(_ bytes: [UInt8]) -> String {
        let printable = { (byte: UInt8) in byte >= 0x20 && byte <= 0x7E && byte != 0x5C }
        let ascii = bytes.contains(where: printable)
        let hex = bytes.contains { !printable($0) }
        var out = ""
        if hex {
            out += "0x" + bytes.map { String(format: "%02X", $0) }.joined()
            if ascii { out += " " }
            out += " "
        }
        if ascii {
            out += "\""
            for byte in bytes {
                if printable(byte) {
                    out.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    out += "\\" + String(byte >> 6 & 7) + String(byte >> 3 & 7) + String(byte & 7)
                }
            }
            out += "\""
        }
        return out
    }

    /// `print_uint32`: the four big-endian bytes through `print_buffer`.
    static func uint32(_ value: UInt32) -> String {
        buffer([UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    /// A four-character code's value.
    static func fourCharCode(_ text: String) -> UInt32 {
        text.utf8.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    enum Format: String {
        case blob, uint32, sint32, timedate
    }

    /// One attribute of the CSSM schema: its tag (a four-character code, or 7 and 8 for the
    /// print name and alias), its format, and the keychaind attribute it shows.
    struct Attribute {
        let tag: UInt32
        let format: Format
        let name: String?

        init(_ code: String, _ format: Format, _ name: String?) {
            tag = SecurityFormat.fourCharCode(code)
            self.format = format
            self.name = name
        }

        init(tag: UInt32, _ format: Format, _ name: String?) {
            self.tag = tag
            self.format = format
            self.name = name
        }
    }

    /// The attributes each class prints, in the order `security` prints them: by tag.
    static let schemas: [ItemClass: (code: UInt32, attributes: [Attribute])] = [
        .genericPassword: (
            fourCharCode("genp"),
            [
                Attribute(tag: 7, .blob, "label"), Attribute(tag: 8, .blob, nil), Attribute("acct", .blob, "account"),
                Attribute("cdat", .timedate, "creationDate"), Attribute("crtr", .uint32, "creator"),
                Attribute("cusi", .sint32, nil), Attribute("desc", .blob, "description"), Attribute("gena", .blob, "generic"),
                Attribute("icmt", .blob, "comment"), Attribute("invi", .sint32, "isInvisible"),
                Attribute("mdat", .timedate, "modificationDate"), Attribute("nega", .sint32, "isNegative"),
                Attribute("prot", .blob, nil), Attribute("scrp", .sint32, nil), Attribute("svce", .blob, "service"),
                Attribute("type", .uint32, "type"),
            ]
        ),
        .internetPassword: (
            fourCharCode("inet"),
            [
                Attribute(tag: 7, .blob, "label"), Attribute(tag: 8, .blob, nil), Attribute("acct", .blob, "account"),
                Attribute("atyp", .blob, "authenticationType"), Attribute("cdat", .timedate, "creationDate"),
                Attribute("crtr", .uint32, "creator"), Attribute("cusi", .sint32, nil), Attribute("desc", .blob, "description"),
                Attribute("icmt", .blob, "comment"), Attribute("invi", .sint32, "isInvisible"),
                Attribute("mdat", .timedate, "modificationDate"), Attribute("nega", .sint32, "isNegative"),
                Attribute("path", .blob, "path"), Attribute("port", .uint32, "port"), Attribute("prot", .blob, nil),
                Attribute("ptcl", .uint32, "protocol"), Attribute("scrp", .sint32, nil),
                Attribute("sdmn", .blob, "securityDomain"), Attribute("srvr", .blob, "server"),
                Attribute("type", .uint32, "type"),
            ]
        ),
        .certificate: (
            0x8000_1000,
            [
                Attribute("alis", .blob, "alias"), Attribute("cenc", .uint32, "certificateEncoding"),
                Attribute("ctyp", .uint32, "certificateType"), Attribute("hpky", .blob, "publicKeyHash"),
                Attribute("issu", .blob, "issuer"), Attribute("labl", .blob, "label"), Attribute("skid", .blob, "subjectKeyID"),
                Attribute("snbr", .blob, "serialNumber"), Attribute("subj", .blob, "subject"),
            ]
        ),
        .key: (
            0x0000_0010,
            [
                Attribute(tag: 0, .uint32, "keyClass"), Attribute(tag: 1, .blob, "label"),
                Attribute(tag: 6, .blob, "applicationLabel"),
                Attribute(tag: 7, .uint32, "isPermanent"), Attribute(tag: 9, .blob, "applicationTag"),
                Attribute(tag: 10, .blob, "creator"), Attribute(tag: 11, .uint32, "keyType"),
                Attribute(tag: 12, .uint32, "keySizeInBits"), Attribute(tag: 13, .uint32, "effectiveKeySize"),
                Attribute(tag: 14, .timedate, "startDate"), Attribute(tag: 15, .timedate, "endDate"),
                Attribute(tag: 16, .uint32, "isSensitive"), Attribute(tag: 18, .uint32, "isExtractable"),
                Attribute(tag: 20, .uint32, "canEncrypt"), Attribute(tag: 21, .uint32, "canDecrypt"),
                Attribute(tag: 22, .uint32, "canDerive"), Attribute(tag: 23, .uint32, "canSign"),
                Attribute(tag: 24, .uint32, "canVerify"), Attribute(tag: 27, .uint32, "canWrap"),
                Attribute(tag: 28, .uint32, "canUnwrap"),
            ]
        ),
    ]

    /// The value part of one attribute line (after `=`).
    static func value(_ attribute: Attribute, _ value: AttributeValue?) -> String {
        guard let value else { return "<NULL>" }
        switch (attribute.format, value) {
        case (_, .string(let s)) where s.isEmpty: return "<NULL>"
        case (.timedate, .date(let date)): return buffer(Array(timedate(date).utf8) + [0])
        case (.blob, .string):
            return buffer(Array(apple(attribute, value).utf8))
        case (.blob, .data(let d)): return buffer(Array(d))
        case (.uint32, .string), (.sint32, .string):
            let code = apple(attribute, value)
            // Key classes and types are numbers; one without an Apple constant (Ed25519) is 0.
            if attribute.name == "keyClass" || attribute.name == "keyType" { return uint32(UInt32(code) ?? 0) }
            return code.utf8.count == 4 ? uint32(fourCharCode(code)) : buffer(Array(code.utf8))
        case (.uint32, .int(let i)), (.sint32, .int(let i)): return uint32(UInt32(truncatingIfNeeded: i))
        case (.uint32, .bool(let b)), (.sint32, .bool(let b)): return uint32(b ? 1 : 0)
        case (_, .data(let d)): return buffer(Array(d))
        default: return buffer(Array(value.description.utf8))
        }
    }

    /// Apple's value of an enumerated attribute (`https` is `htps`), or the text as it is.
    private static func apple(_ attribute: Attribute, _ value: AttributeValue) -> String {
        guard let name = attribute.name else { return value.description }
        return value.appleValue(ofAttribute: name) as? String ?? value.description
    }

    /// `YYYYMMDDhhmmssZ`, as the keychain stores a time-date.
    static func timedate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02d%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    /// `print_keychain_item_attributes`: the keychain, its version, the class and every
    /// attribute of the class's schema; with `showData`, the `data:` section.
    static func item(_ item: KeychainItem, keychain: String, showData: Bool = false) -> String {
        let itemClass = item.itemClass == .identity ? .certificate : (item.itemClass ?? .genericPassword)
        let schema = schemas[itemClass] ?? schemas[.genericPassword]!
        var out =
            "keychain: " + buffer(Array(keychain.utf8)) + "\nversion: 512\nclass: " + uint32(schema.code) + "\nattributes:\n"
        var attributes = item.attributes
        // A certificate's alias is its email address, which the certificate itself holds.
        if itemClass == .certificate, let der = item.data ?? item.certificateData,
            let email = (try? Certificate(der: Array(der)))?.emailAddresses.first
        {
            attributes["alias"] = .string(email)
        }
        for attribute in schema.attributes {
            out += "    " + uint32(attribute.tag) + "<" + attribute.format.rawValue + ">="
            out += value(attribute, attribute.name.flatMap { attributes[$0] }) + "\n"
        }
        if showData {
            out += "data:\n" + buffer(Array(item.data ?? Data())) + "\n"
        }
        return out
    }

    /// The `-w` form of a password: the bytes as they are, or lowercase hex when any is not
    /// printable; then a newline.
    static func bareSecret(_ data: Data) -> [UInt8] {
        let bytes = Array(data)
        if bytes.allSatisfy({ isprint(Int32($0)) != 0 }) { return bytes + [0x0A] }
        return Array(bytes.map { String(format: "%02x", $0) }.joined().utf8) + [0x0A]
    }

    /// PEM of `der` under `label`, lines of 64 characters, as `print_buffer_pem` writes it.
    static func pem(_ label: String, _ der: Data) -> String {
        let base64 = der.base64EncodedString()
        var lines: [Substring] = []
        var rest = base64[...]
        while !rest.isEmpty {
            lines.append(rest.prefix(64))
            rest = rest.dropFirst(64)
        }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }
}

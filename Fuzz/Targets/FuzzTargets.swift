import ExtrasBase64
import KeychainAPI
import KeychainCore
import KeychainJSON
import KeychainX509
import MicroHTTP

/// The parsers that read bytes a client or a stored row controls, each as a fuzzing target: any
/// input may be refused, none may crash, hang or break the property checked beside it.
///
/// `keychaind-fuzz` runs one under libFuzzer (`Tests/fuzz/run.sh`, `make fuzz`); the
/// `FuzzCorpusTests` replay every committed input through all of them in `swift test`.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The JSON parser: what parses serializes to bytes that parse to the same value.
    case json
    /// A query dictionary as a JSON body (first byte even) or as URL parameters (odd: every
    /// value a string, parsed leniently), through the query parser and its name table.
    case query
    /// Persistent references and canonical base64: what decodes re-encodes to the same text.
    case base64
    /// The decoder of sealed attributes (what a row holds once opened): what decodes
    /// re-encodes to the same bytes; and the exact-value check, which reads the same bytes
    /// where they lie, finds every string the decoder found, and no other value.
    case sealedAttributes = "sealed-attributes"
    /// The transport's framing checks over a request head's fields (`name: value` lines).
    case framing
    /// A certificate's DER (OpenSSL's d2i_X509, then the names' DER walk), and the X.501 name
    /// normalizer on the same bytes: what normalizes normalizes again to the same bytes.
    case certificate
    /// A key item's bytes (`KeyMaterial`: libcrypto's PKCS#1 and X9.63 parsing, the EC point and
    /// scalar checks, 25519's public-key derivation), the first byte choosing type and class.
    case key
    /// PEM text (`PEM.decode`, this module's own parser) and the keys in it (`PEM.importKey`:
    /// PKCS #8, SEC1, PKCS #1 and SubjectPublicKeyInfo through libcrypto), and the same bytes as
    /// a DER key (`PEM.importKey(der:)`): what decodes encodes to text that decodes the same;
    /// an imported key is one `KeyMaterial` accepts, and exports to a block that imports the same.
    case pem
    /// A PKCS #12 file (`PKCS12.parse` with the password "pw": its MAC, iteration counts, bags
    /// and keys through libcrypto): a parsed identity's certificate parses and is the key's,
    /// and parsing twice gives the same.
    case pkcs12

    /// Runs the target on `bytes`; traps when a checked property fails.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .json: Self.json(bytes)
        case .query: Self.query(bytes)
        case .base64: Self.base64(bytes)
        case .sealedAttributes: Self.sealedAttributes(bytes)
        case .framing: Self.framing(bytes)
        case .certificate: Self.certificate(bytes)
        case .key: Self.key(bytes)
        case .pem: Self.pem(bytes)
        case .pkcs12: Self.pkcs12(bytes)
        }
    }

    private static func json(_ bytes: [UInt8]) {
        members(bytes)
        guard let value = try? JSON.parse(bytes) else { return }
        let again = try? JSON.parse(value.serialized())
        precondition(again == value, "JSON: a parsed value does not survive serialization")
    }

    /// `JSON.forEachMember(ofObject:_:)` (a passphrase's body, read without `String`s) takes
    /// exactly the objects `parse` takes, and hands over the same members, strings as their bytes.
    private static func members(_ bytes: [UInt8]) {
        var members: [(String, [UInt8]?)] = []
        let read =
            (try? JSON.forEachMember(ofObject: bytes) { key, value in members.append((key, value.map { Array($0) })) }) != nil
        guard case .object(let object)? = try? JSON.parse(bytes) else {
            precondition(!read, "JSON: forEachMember took what parse refuses as an object")
            return
        }
        precondition(read, "JSON: forEachMember refused an object parse takes")
        let expected = object.map { entry -> (String, [UInt8]?) in
            if case .string(let text) = entry.value { return (entry.key, Array(text.utf8)) }
            return (entry.key, nil)
        }
        precondition(
            members.map(\.0) == expected.map(\.0) && members.map(\.1) == expected.map(\.1),
            "JSON: forEachMember's members differ from parse's")
    }

    private static func query(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        if first % 2 == 0 {
            guard case .object(let object)? = try? JSON.parse(rest) else { return }
            _ = try? QueryParser.parse(object)
        } else {
            // URL parameters: `name=value` pairs separated by `&`, as libmicrohttpd hands them over.
            let pairs = rest.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { pair in
                let sides = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(decoding: sides[0], as: UTF8.self)
                let value = sides.count > 1 ? String(decoding: sides[1], as: UTF8.self) : ""
                return (key: name, value: JSON.string(value))
            }
            _ = try? QueryParser.parse(JSONObject(pairs), lenient: true)
        }
    }

    private static func base64(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let ref = PersistentRef.decode(text) {
            precondition(PersistentRef.encode(ref) == text, "persistent ref: decoded bytes re-encode to other text")
        }
        for urlSafe in [false, true] {
            guard let decoded = Base64.decodeCanonical(text, urlSafe: urlSafe) else { continue }
            precondition(Base64.decodeCanonical(text, urlSafe: urlSafe) == decoded, "base64: two decodings differ")
        }
    }

    private static func sealedAttributes(_ bytes: [UInt8]) {
        let service = Schema.key(canonical: "service")!
        _ = SealedAttributes.hold(bytes, ExactValues(values: [(service, "x")]))
        guard let (group, attributes, access) = SealedAttributes.decode(bytes) else { return }
        // An item with an access object is matched through `decode` (`hold` answers nil).
        if bytes.first == 1, access == nil {
            let strings = attributes.compactMap { key, value -> (key: SchemaKey, value: String)? in
                if case .string(let string) = value { (key, string) } else { nil }
            }
            precondition(
                SealedAttributes.hold(bytes, ExactValues(values: strings)) == true, "sealed attributes: a string not held")
            for (key, string) in strings where !strings.contains(where: { $0.key == key && $0.value == string + "\u{0}" }) {
                precondition(
                    SealedAttributes.hold(bytes, ExactValues(values: [(key, string + "\u{0}")])) == false,
                    "sealed attributes: another value held")
            }
        }
        // The legacy JSON version re-encodes in the current one: compare through a second decode.
        let encoded = SealedAttributes.encode(group: group, attributes: attributes, access: access)
        guard let (again, againAttributes, againAccess) = SealedAttributes.decode(encoded) else {
            preconditionFailure("sealed attributes: a decoded value does not decode once re-encoded")
        }
        precondition(
            again == group && againAttributes.count == attributes.count && againAccess == access,
            "sealed attributes: re-encoding changed them")
        precondition(
            SealedAttributes.encode(group: again, attributes: againAttributes, access: againAccess) == encoded,
            "sealed attributes: not stable")
    }

    private static func certificate(_ bytes: [UInt8]) {
        if let certificate = try? Certificate(der: bytes) {
            precondition(!certificate.serialNumber.isEmpty, "certificate: an empty serial number")
            precondition(certificate.publicKeyHash.count == 20, "certificate: a public key hash that is not SHA-1")
            precondition((1...3).contains(certificate.certificateType), "certificate: an unknown type")
            // The subject read straight from the DER is OpenSSL's, whenever the walk succeeds.
            if let values = Certificate.subjectValues(ofDER: bytes) {
                precondition(values == certificate.subjectValues, "certificate: the DER walk's subject differs from OpenSSL's")
            }
        } else {
            _ = Certificate.subjectValues(ofDER: bytes)
        }
        guard let normalized = DistinguishedName.normalizedContent(bytes) else { return }
        var wrapped: [UInt8] = [0x30]
        let n = normalized.count
        if n < 0x80 {
            wrapped.append(UInt8(n))
        } else {
            let length = withUnsafeBytes(of: UInt32(n).bigEndian, Array.init).drop { $0 == 0 }
            wrapped.append(0x80 | UInt8(length.count))
            wrapped += length
        }
        precondition(
            DistinguishedName.normalizedContent(wrapped + normalized) == normalized, "names: normalizing is not idempotent")
    }

    private static func key(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let pairs = KeyMaterial.Algorithm.allCases.flatMap { algorithm in KeyMaterial.Role.allCases.map { (algorithm, $0) } }
        let (algorithm, role) = pairs[Int(first) % pairs.count]
        let rest = Array(bytes.dropFirst())
        guard let key = try? KeyMaterial(rest, algorithm: algorithm, role: role) else { return }
        precondition(key.sizeInBits > 0, "key: a parsed key without a size")
        precondition((key.publicKeyHash?.count ?? 20) == 20, "key: a public key hash that is not SHA-1")
        precondition((key.publicKeyHash == nil) == (role == .symmetric), "key: a label for a symmetric key, or none for a pair")
        let again = try? KeyMaterial(rest, algorithm: algorithm, role: role)
        precondition(
            again?.publicKeyHash == key.publicKeyHash && again?.sizeInBits == key.sizeInBits, "key: parsing twice differs")
    }

    private static func pem(_ bytes: [UInt8]) {
        if let key = try? PEM.importKey(der: bytes) { checkImported(key) }
        guard let blocks = try? PEM.decode(bytes) else { return }
        precondition(!blocks.isEmpty && blocks.count <= PEM.maxBlocks, "PEM: no block, or too many, without an error")
        for block in blocks {
            let again = try? PEM.decode(PEM.encode(label: block.label, der: block.der))
            precondition(again == [block], "PEM: an encoded block does not decode the same")
            if let key = try? PEM.importKey(block, password: "pw") { checkImported(key) }
        }
    }

    /// An imported key passes KeyMaterial, and its export imports to the same bytes.
    private static func checkImported(_ key: ImportedKey) {
        let material = try? KeyMaterial(key.external, algorithm: key.algorithm, role: key.role)
        precondition(material != nil, "PEM: a key KeyMaterial refuses")
        guard let exported = try? PEM.exportKey(key.external, algorithm: key.algorithm, role: key.role) else {
            preconditionFailure("PEM: an imported key does not export")
        }
        let again = try? PEM.importKey(exported)
        precondition(again?.external == key.external && again?.algorithm == key.algorithm, "PEM: export and import differ")
    }

    private static func pkcs12(_ bytes: [UInt8]) {
        guard let contents = try? PKCS12.parse(bytes, password: "pw") else { return }
        let key = try? contents.key.material
        precondition(key?.publicKeyHash != nil, "PKCS #12: a key KeyMaterial refuses")
        if let certificate = try? Certificate(der: contents.certificate) {
            precondition(certificate.publicKeyHash == key?.publicKeyHash, "PKCS #12: a certificate of another key")
        }
        let again = try? PKCS12.parse(bytes, password: "pw")
        precondition(
            again?.certificate == contents.certificate && again?.key.external == contents.key.external
                && again?.chain == contents.chain,
            "PKCS #12: parsing twice differs")
    }

    private static func framing(_ bytes: [UInt8]) {
        let fields = bytes.split(separator: UInt8(ascii: "\n")).map { line in
            let sides = line.split(separator: UInt8(ascii: ":"), maxSplits: 1, omittingEmptySubsequences: false)
            return (
                name: String(decoding: sides[0], as: UTF8.self),
                value: String(decoding: sides.count > 1 ? sides[1] : [], as: UTF8.self)
            )
        }
        switch RequestFraming.check(HTTPHeaders(fields), maxBodyBytes: 1 << 20) {
        case .accept(let framing):
            precondition((framing.declaredLength ?? 0) <= 1 << 20, "framing: a length over the limit was accepted")
            precondition(!(framing.isChunked && framing.declaredLength != nil), "framing: a length beside chunks was accepted")
        case .refuse:
            break
        }
    }
}

import KeychainCore
import KeychainJSON
import KeychainX509
import MicroHTTP

/// `POST /v1/items/import`: certificates and keys the way operators hold them.
///
/// - `Content-Type: application/x-pem-file`: PEM text, any number of `CERTIFICATE` blocks
///   (a chain) and keys (`PRIVATE KEY` PKCS#8, `RSA PRIVATE KEY` PKCS#1, `EC PRIVATE KEY`
///   SEC1, `PUBLIC KEY`, `RSA PUBLIC KEY`).
/// - `Content-Type: application/x-pkcs12`: a PKCS#12 (`.p12`, `.pfx`), its password in the
///   `X-Keychain-PKCS12-Passphrase` header (never logged, audited or echoed). A wrong password is
///   401 errSecAuthFailed naming the header, as SecPKCS12Import answers errSecAuthFailed.
///
/// URL parameters give what every item gets: `accessGroup`, `accessible`, `synchronizable`
/// and `label` (without one, a PKCS#12's friendlyName labels its identity, as on macOS). What is added (`Keychain.importItems`): each private key with its certificate as
/// an identity, other certificates as certificates (kept when already there), other keys as
/// keys; in one transaction or not at all. 201 `{"items": [...], "keptCertificates": n}`.
extension KeychainResponder {
    static let pkcs12PassphraseHeader = "X-Keychain-PKCS12-Passphrase"
    static let pkcs12Type = "application/x-pkcs12"

    func importItems(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        var parameters = JSONObject()
        for item in request.head.queryItems where item.name != Self.keychainParameter {
            guard ["accessGroup", "accessible", "synchronizable", "label"].contains(item.name) else {
                throw .param(
                    "\(item.name): unknown parameter; an import takes accessGroup, accessible, synchronizable, label and keychain"
                )
            }
            parameters[item.name] = .string(item.value)
        }
        let defaults = try QueryParser.parse(parameters, lenient: true)
        guard !request.body.isEmpty else { throw .param("body: expected a PEM file or a PKCS#12, got an empty body") }
        let type = String((request.head.headers["Content-Type"] ?? "").prefix { $0 != ";" }).trimmingSpaces.lowercased()
        let material: ImportedMaterial
        switch type {
        case Self.pemType: material = try Self.pemMaterial(request.body)
        case Self.pkcs12Type:
            guard let password = request.head.headers[Self.pkcs12PassphraseHeader] else {
                throw .param("\(Self.pkcs12PassphraseHeader): required: the PKCS#12's password (empty for none)")
            }
            material = try Self.pkcs12Material(request.body, password: password)
        default:
            throw .param("Content-Type: expected \(Self.pemType) or \(Self.pkcs12Type)")
        }
        let result = try targetKeychain(request.head, token: token).importItems(material, defaults: defaults, token: token)
        var body: [UInt8] = []
        body.appendLiteral(#"{"items":["#)
        for (n, item) in result.items.enumerated() {
            if n > 0 { body.append(UInt8(ascii: ",")) }
            item.write(into: &body)
        }
        body.appendLiteral(#"],"keptCertificates":"#)
        body.append(contentsOf: String(result.keptCertificates).utf8)
        body.appendLiteral("}")
        var response = Self.json(201, body: body)
        response.touched = result.items.flatMap(\.auditedRefs)
        return response
    }

    /// The certificates and keys of PEM text; anything else in a block is errSecUnknownFormat
    /// naming `body`, and nothing is imported.
    static func pemMaterial(_ text: [UInt8]) throws(KeychainError) -> ImportedMaterial {
        let blocks: [PEM.Block]
        do { blocks = try PEM.decode(text) } catch { throw .unknownFormat("body: not PEM text (\(error.message))") }
        var material = ImportedMaterial(certificates: [], keys: [])
        for (index, block) in blocks.enumerated() {
            if block.label == "CERTIFICATE" || block.label == "X509 CERTIFICATE" {
                material.certificates.append(block.der)
                continue
            }
            do {
                let key = try PEM.importKey(block)
                material.keys.append(.init(algorithm: key.algorithm, role: key.role, bytes: key.external))
            } catch {
                throw .unknownFormat("body: PEM block \(index) (\(block.label.prefix(40))): \(error.message)")
            }
        }
        return material
    }

    /// The identity and chain of a PKCS#12.
    static func pkcs12Material(_ bytes: [UInt8], password: String) throws(KeychainError) -> ImportedMaterial {
        let contents: PKCS12.Contents
        do { contents = try PKCS12.parse(bytes, password: password) } catch {
            if error.isWrongPassword {
                throw .authFailed("\(pkcs12PassphraseHeader): the password does not open the PKCS#12")
            }
            throw .unknownFormat("body: not a PKCS#12 this server reads (\(error.message))")
        }
        return ImportedMaterial(
            certificates: [contents.certificate] + contents.chain,
            keys: [.init(algorithm: contents.key.algorithm, role: contents.key.role, bytes: contents.key.external)],
            label: contents.friendlyName)
    }
}

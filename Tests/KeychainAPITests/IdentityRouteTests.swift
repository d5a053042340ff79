import ExtrasBase64
import Foundation
import KeychainX509
import TestSupport
import Testing

@testable import KeychainCore

/// Identities, PEM answers and imports over HTTP: what a client, nginx
/// or a sidecar sees, checked against what `openssl` says of the same files.
@Suite struct IdentityRouteTests {
    /// A CA, a leaf it issued (with its SEC1 EC key file), and a PKCS#12 of leaf, key and CA.
    struct Material: Sendable {
        let tool: TestCertificates
        let ca, leaf, other: TestCertificates.Made
        let leafKey: [UInt8]
        let p12: [UInt8]
        static let password = "p12 pass"
    }

    static let material: Material = {
        let tool = TestCertificates()
        do {
            let ca = try tool.makeCA("id-ca", subject: "/CN=Identity CA/O=Acme")
            let leaf = try tool.makeLeaf(
                "id-leaf", subject: "/CN=web.example.com/O=Acme", issuer: ca, serial: "77",
                extensions: "subjectKeyIdentifier=hash")
            let other = try tool.makeLeaf("id-other", subject: "/CN=other.example.com", issuer: ca, serial: "78")
            let dir = tool.directory.path
            try tool.openssl([
                "pkcs12", "-export", "-in", leaf.certificatePath, "-inkey", leaf.keyPath, "-certfile", ca.certificatePath,
                "-passout", "pass:\(Material.password)", "-name", "web", "-out", "\(dir)/id.p12",
            ])
            // The leaf's private key as X9.63 04‖X‖Y‖K, from openssl's own text form.
            let leafKey = try TestKeys.x963(ofECKeyFile: leaf.keyPath, tool: tool).privateKey
            return Material(
                tool: tool, ca: ca, leaf: leaf, other: other, leafKey: leafKey,
                p12: try TestCertificates.read("\(dir)/id.p12"))
        } catch {
            fatalError("openssl could not make the identity material: \(error)")
        }
    }()

    static func b64(_ bytes: [UInt8]) -> String { Base64.encode(bytes) }
    static let passphraseHeader = "X-Keychain-PKCS12-Passphrase"

    /// The classes of an answer's items, in order.
    static func classes(_ response: RawResponse) -> [String] {
        response.items.map { $0["attributes"]?.objectValue?["class"]?.stringValue ?? "-" }
    }

    /// Writes `bytes` to a file in the material's directory and returns its path.
    static func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = "\(material.tool.directory.path)/\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func addIdentity(_ f: APIFixture, extra: String = "") throws -> RawResponse {
        let m = material
        return try f.call(
            "POST", "/v1/items",
            json: #"{"class":"identity","valueData":"\#(b64(m.leafKey))","certificateData":"\#(b64(m.leaf.der))"\#(extra)}"#)
    }

    @Test func anIdentityIsAddedFoundWithItsKeyAndDeletedWhole() throws {
        let f = try APIFixture()
        let added = try Self.addIdentity(f, extra: #","label":"web""#)
        #expect(added.status == 201, "\(added.text)")
        let attributes = try #require(added.items.first?["attributes"]?.objectValue)
        #expect(attributes["class"] == "identity")
        #expect(attributes["keyType"] == "ec" && attributes["keyClass"] == "private")
        #expect(attributes["publicKeyHash"] == attributes["applicationLabel"])
        let ref = try #require(added.items.first?["persistentRef"]?.stringValue)
        #expect(added.header("Location") == "/v1/items/\(ref)")

        let found = try f.call("POST", "/v1/items/search", json: #"{"class":"identity","label":"web","returnData":true}"#)
        #expect(found.status == 200, "\(found.text)")
        #expect(found.items.first?["valueData"]?.stringValue.flatMap(Base64.decode) == Self.material.leafKey)
        #expect(found.items.first?["certificateData"]?.stringValue.flatMap(Base64.decode) == Self.material.leaf.der)
        // By reference, with the class: the identity; without: the certificate it is named by.
        let byRef = try f.call("GET", "/v1/items/\(ref)?class=identity&returnRef=true")
        #expect(byRef.status == 200, "\(byRef.text)")
        let reference = try #require(byRef.items.first?["valueRef"]?.objectValue)
        #expect(reference["certificate"]?.stringValue.flatMap(Base64.decode) == Self.material.leaf.der)
        #expect(reference["key"]?.stringValue.flatMap(Base64.decode) == Self.material.leafKey)
        #expect(reference["keyType"] == "ec" && reference["keyClass"] == "private")
        let plain = try f.call("GET", "/v1/items/\(ref)")
        #expect(plain.items.first?["attributes"]?.objectValue?["class"] == "certificate")

        try f.call(
            "POST", "/v1/items",
            json:
                #"{"class":"identity","valueData":"\#(Self.b64(Self.material.leafKey))","certificateData":"\#(Self.b64(Self.material.other.der))"}"#
        )
        .expectError(400, -50, naming: "valueData")
        // Bytes that are no certificate: errSecUnknownFormat naming where they were, not valueData.
        try f.call(
            "POST", "/v1/items",
            json: #"{"class":"identity","valueData":"\#(Self.b64(Self.material.leafKey))","certificateData":"AAAA"}"#
        )
        .expectError(400, -25257, naming: "certificateData")
        try Self.addIdentity(f).expectError(409, -25299)
        let deleted = try f.call("DELETE", "/v1/items", json: #"{"class":"identity","label":"web"}"#)
        #expect(deleted.status == 200 && deleted.json["deleted"] == .int(2), "\(deleted.text)")
        try f.call("POST", "/v1/items/search", json: #"{"class":"key"}"#).expectError(404, -25300)
        try f.call("POST", "/v1/items/search", json: #"{"class":"certificate"}"#).expectError(404, -25300)
    }

    /// By its ref with `class=identity`, an identity is deleted whole, as by query: the answer
    /// counts both rows and neither the key nor the certificate remains. Without the class, the
    /// ref names the certificate alone.
    @Test func anIdentityDeletedByItsRefLeavesNoKey() throws {
        let f = try APIFixture()
        let added = try Self.addIdentity(f)
        let ref = try #require(added.items.first?["persistentRef"]?.stringValue)
        try f.call("DELETE", "/v1/items/\(ref)?class=identity&service=x").expectError(400, -50, naming: "service")
        let relabelled = try f.call("PATCH", "/v1/items/\(ref)?class=identity", json: #"{"label":"both"}"#)
        #expect(relabelled.status == 200, "\(relabelled.text)")
        #expect(try f.call("POST", "/v1/items/search", json: #"{"class":"key","label":"both"}"#).status == 200)
        #expect(try f.call("POST", "/v1/items/search", json: #"{"class":"certificate","label":"both"}"#).status == 200)
        let deleted = try f.call("DELETE", "/v1/items/\(ref)?class=identity")
        #expect(deleted.status == 200 && deleted.json["deleted"] == .int(2), "\(deleted.text)")
        try f.call("POST", "/v1/items/search", json: #"{"class":"key"}"#).expectError(404, -25300)
        try f.call("POST", "/v1/items/search", json: #"{"class":"certificate"}"#).expectError(404, -25300)
        try f.call("DELETE", "/v1/items/\(ref)?class=identity").expectError(404, -25300)

        let again = try #require(Self.addIdentity(f).items.first?["persistentRef"]?.stringValue)
        let certificateOnly = try f.call("DELETE", "/v1/items/\(again)")
        #expect(certificateOnly.status == 200 && certificateOnly.json["deleted"] == .int(1), "\(certificateOnly.text)")
        #expect(try f.call("POST", "/v1/items/search", json: #"{"class":"key"}"#).status == 200)
    }

    /// `Accept: application/x-pem-file`: the certificate then the PKCS#8 key, which openssl reads
    /// back as the same certificate and the private key of its public key.
    @Test func anIdentityAnswersAsPEMThatOpenSSLReads() throws {
        let f = try APIFixture()
        #expect(try Self.addIdentity(f, extra: #","label":"web""#).status == 201)
        let pem = try f.call(
            "GET", "/v1/items?class=identity&label=web", headers: f.auth + [("Accept", "application/x-pem-file")])
        #expect(pem.status == 200, "\(pem.text)")
        #expect(pem.header("Content-Type") == "application/x-pem-file")
        #expect(pem.text.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        #expect(pem.text.contains("-----BEGIN PRIVATE KEY-----\n"))
        let path = try Self.file("answer.pem", pem.body)
        let tool = Self.material.tool
        #expect(try tool.der(path) == Self.material.leaf.der)
        let keyPublic = try tool.openssl(["pkey", "-in", path, "-pubout"])
        let certificatePublic = try tool.openssl(["x509", "-in", Self.material.leaf.certificatePath, "-noout", "-pubkey"])
        #expect(keyPublic == certificatePublic)
        // Several certificates: a CA bundle, one block after another, in the answer's order.
        #expect(
            try f.call(
                "POST", "/v1/items",
                json: #"{"class":"certificate","label":"ca","valueData":"\#(Self.b64(Self.material.ca.der))"}"#
            ).status == 201)
        let bundle = try f.call(
            "POST", "/v1/items/search", json: #"{"class":"certificate","matchLimit":"all"}"#,
            headers: f.auth + [("Accept", "application/x-pem-file")])
        #expect(bundle.status == 200, "\(bundle.text)")
        let blocks = try PEM.decode(bundle.body)
        #expect(blocks.map(\.label) == ["CERTIFICATE", "CERTIFICATE"])
        #expect(Set(blocks.map(\.der)) == [Self.material.leaf.der, Self.material.ca.der])
        // A password has no PEM: 400 naming Accept, nothing of the secret in the answer.
        try f.add(service: "db")
        try f.call("GET", "/v1/items?class=genericPassword", headers: f.auth + [("Accept", "application/x-pem-file")])
            .expectError(400, -50, naming: "Accept")
        // Without the read capability a PEM answer, which opens secrets, is 403.
        let lister = try f.token(groups: ["*"], capabilities: ["list"])
        try f.call(
            "GET", "/v1/items?class=identity",
            headers: [("Authorization", "Bearer \(lister)"), ("Accept", "application/x-pem-file")]
        )
        .expectError(403, -34018, naming: "returnRef")
    }

    @Test func aPEMFileImportsAsAnIdentityAndItsChain() throws {
        let f = try APIFixture()
        let m = Self.material
        let text =
            try String(contentsOfFile: m.leaf.certificatePath, encoding: .utf8)
            + String(contentsOfFile: m.leaf.keyPath, encoding: .utf8)
            + String(contentsOfFile: m.ca.certificatePath, encoding: .utf8)
        // A token without the group writes neither half.
        let other = try f.token(groups: ["other"])
        let refused = f.call(
            "POST", "/v1/items/import?accessGroup=web", body: Array(text.utf8), contentType: "application/x-pem-file",
            headers: [("Authorization", "Bearer \(other)")])
        refused.expectError(403, -34018, naming: "accessGroup")
        try f.call("POST", "/v1/items/search", json: #"{"matchLimit":"all"}"#).expectError(404, -25300)
        let imported = f.call(
            "POST", "/v1/items/import?accessGroup=web&label=tls", body: Array(text.utf8), contentType: "application/x-pem-file")
        #expect(imported.status == 201, "\(imported.text)")
        #expect(Self.classes(imported) == ["identity", "certificate"])
        #expect(imported.items.allSatisfy { $0["attributes"]?.objectValue?["accessGroup"] == "web" })
        #expect(imported.json["keptCertificates"] == .int(0))
        let found = try f.call("POST", "/v1/items/search", json: #"{"class":"identity","label":"tls","returnData":true}"#)
        #expect(found.items.first?["valueData"]?.stringValue.flatMap(Base64.decode) == m.leafKey)
        // Again: the identity is a duplicate, and nothing more is written.
        let again = f.call(
            "POST", "/v1/items/import?accessGroup=web", body: Array(text.utf8), contentType: "application/x-pem-file")
        again.expectError(409, -25299)
        let all = try f.call("POST", "/v1/items/search", json: #"{"matchLimit":"all"}"#)
        #expect(all.items.count == 3)
        // The chain alone again: the CA is kept as it is.
        let chain = f.call(
            "POST", "/v1/items/import?accessGroup=web",
            body: Array(try String(contentsOfFile: m.ca.certificatePath, encoding: .utf8).utf8),
            contentType: "application/x-pem-file")
        #expect(chain.status == 201 && chain.json["keptCertificates"] == .int(1), "\(chain.text)")
        // Not PEM, a bad block, a wrong type: refused, naming what.
        f.call("POST", "/v1/items/import", body: Array("hello".utf8), contentType: "application/x-pem-file")
            .expectError(400, -25257, naming: "body")
        f.call(
            "POST", "/v1/items/import", body: Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8),
            contentType: "application/x-pem-file"
        )
        .expectError(400, -25257, naming: "body")
        f.call(
            "POST", "/v1/items/import", body: Array("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8),
            contentType: "application/x-pem-file"
        )
        .expectError(400, -25257, naming: "body")
        f.call("POST", "/v1/items/import", body: Array(text.utf8), contentType: "text/plain").expectError(
            400, -50, naming: "Content-Type")
        f.call("POST", "/v1/items/import?service=x", body: Array(text.utf8), contentType: "application/x-pem-file")
            .expectError(400, -50, naming: "service")
    }

    @Test func aPKCS12ImportsUnderItsPasswordAndAWrongOneIsAuthFailed() throws {
        let f = try APIFixture()
        let m = Self.material
        let header = Self.passphraseHeader
        f.call("POST", "/v1/items/import", body: m.p12, contentType: "application/x-pkcs12", headers: [(header, "wrong")])
            .expectError(401, -25293, naming: header)
        f.call("POST", "/v1/items/import", body: m.p12, contentType: "application/x-pkcs12").expectError(400, -50, naming: header)
        f.call(
            "POST", "/v1/items/import", body: Array(m.p12.prefix(100)), contentType: "application/x-pkcs12",
            headers: [(header, Material.password)]
        )
        .expectError(400, -25257, naming: "body")
        try f.call("POST", "/v1/items/search", json: #"{"matchLimit":"all"}"#).expectError(404, -25300)
        let imported = f.call(
            "POST", "/v1/items/import?label=p12", body: m.p12, contentType: "application/x-pkcs12",
            headers: [(header, Material.password)])
        #expect(imported.status == 201, "\(imported.text)")
        #expect(Self.classes(imported) == ["identity", "certificate"])
        let pem = try f.call(
            "GET", "/v1/items?class=identity&label=p12", headers: f.auth + [("Accept", "application/x-pem-file")])
        let blocks = try PEM.decode(pem.body)
        #expect(blocks.first?.der == m.leaf.der)
        let found = try f.call("POST", "/v1/items/search", json: #"{"class":"identity","returnData":true}"#)
        #expect(found.items.first?["valueData"]?.stringValue.flatMap(Base64.decode) == m.leafKey)
        // The password never reaches a log line or the audit of the request.
        #expect(!f.logs.all.contains { $0.contains(Material.password) || $0.contains("wrong") && $0.contains(header) })
    }

    /// PKCS#12 out and back: an imported identity answers as a PKCS#12 under a new password, with
    /// the CA that issued it, which OpenSSL and `PKCS12.parse` open to the same bytes; PEM out and
    /// back: the PEM answer imported into another keychain is the same identity, byte for byte.
    @Test func pkcs12AndPEMRoundTrip() throws {
        let f = try APIFixture()
        let m = Self.material
        let imported = f.call(
            "POST", "/v1/items/import?label=rt", body: m.p12, contentType: "application/x-pkcs12",
            headers: [(Self.passphraseHeader, Material.password)])
        #expect(imported.status == 201, "\(imported.text)")
        let accept = ("Accept", "application/x-pkcs12")
        let out = try f.call(
            "GET", "/v1/items?class=identity&label=rt", headers: f.auth + [accept, (Self.passphraseHeader, "new pw")])
        #expect(out.status == 200, "\(out.text)")
        #expect(out.header("Content-Type") == "application/x-pkcs12")
        let contents = try PKCS12.parse(out.body, password: "new pw")
        #expect(contents.certificate == m.leaf.der)
        #expect(contents.key.external == m.leafKey && contents.key.algorithm == .ec && contents.key.role == .private)
        #expect(contents.chain == [m.ca.der])
        let path = try Self.file("out.p12", out.body)
        let text = try m.tool.openssl(["pkcs12", "-in", path, "-passin", "pass:new pw", "-nodes"])
        #expect(
            text.contains("-----BEGIN PRIVATE KEY-----") && text.components(separatedBy: "-----BEGIN CERTIFICATE-----").count == 3
        )
        #expect(throws: (any Error).self) { try m.tool.openssl(["pkcs12", "-in", path, "-passin", "pass:other", "-nodes"]) }
        // One identity, a password given, an identity whose key may leave: else 400, nothing sealed.
        try f.call("GET", "/v1/items?class=identity", headers: f.auth + [accept]).expectError(
            400, -50, naming: Self.passphraseHeader)
        try f.call("GET", "/v1/items?class=certificate&matchLimit=all", headers: f.auth + [accept, (Self.passphraseHeader, "x")])
            .expectError(400, -50, naming: "Accept")

        // PEM out of this keychain, into another: the same certificate and key.
        let pem = try f.call("GET", "/v1/items?class=identity&label=rt", headers: f.auth + [("Accept", "application/x-pem-file")])
        #expect(pem.status == 200, "\(pem.text)")
        let g = try APIFixture()
        let again = g.call("POST", "/v1/items/import", body: pem.body, contentType: "application/x-pem-file")
        #expect(again.status == 201 && Self.classes(again) == ["identity"], "\(again.text)")
        let found = try g.call("POST", "/v1/items/search", json: #"{"class":"identity","returnData":true}"#)
        #expect(found.items.first?["valueData"]?.stringValue.flatMap(Base64.decode) == m.leafKey)
        #expect(found.items.first?["certificateData"]?.stringValue.flatMap(Base64.decode) == m.leaf.der)
    }

    /// The private key's bytes are sealed at rest: no file of the data directory holds them,
    /// in any form an import or an add carried them, and no log line does.
    @Test func aPrivateKeysBytesAreNeverInTheDataFilesOrTheLogs() throws {
        let f = try APIFixture()
        let m = Self.material
        #expect(try Self.addIdentity(f).status == 201)
        let imported = f.call(
            "POST", "/v1/items/import?accessGroup=other", body: m.p12, contentType: "application/x-pkcs12",
            headers: [(Self.passphraseHeader, Material.password)])
        #expect(imported.status == 201, "\(imported.text)")
        let scalar = Array(m.leafKey.suffix(32))
        let base64 = Array(Self.b64(m.leafKey).utf8)
        for name in try FileManager.default.contentsOfDirectory(atPath: f.directory.path) {
            // A -wal file a checkpoint removed between the listing and the read holds nothing.
            guard let bytes = try? TestCertificates.read("\(f.directory.path)/\(name)") else { continue }
            #expect(!Self.contains(bytes, scalar), "\(name) holds the private key")
            #expect(!Self.contains(bytes, base64), "\(name) holds the private key in base64")
        }
        let logged = f.logs.all.joined(separator: "\n")
        #expect(!logged.contains(Self.b64(m.leafKey)) && !logged.contains(Self.b64(scalar)))
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { i in haystack[i..<(i + needle.count)].elementsEqual(needle) }
    }
}

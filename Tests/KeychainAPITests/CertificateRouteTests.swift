import ExtrasBase64
import TestSupport
import Testing

@testable import KeychainCore

/// Certificates over HTTP: the statuses and bodies a client sees.
@Suite struct CertificateRouteTests {
    static let certs: (tool: TestCertificates, ca: TestCertificates.Made, leaf: TestCertificates.Made) = {
        let tool = TestCertificates()
        do {
            let ca = try tool.makeCA("route-ca", subject: "/CN=Route CA/O=Acme")
            let leaf = try tool.makeLeaf(
                "route-leaf", subject: "/CN=api.example.com/O=Acme", issuer: ca, serial: "4242",
                extensions: "subjectKeyIdentifier=hash")
            return (tool, ca, leaf)
        } catch {
            fatalError("openssl could not make the test certificates: \(error)")
        }
    }()

    static var leafBase64: String { Base64.encode(certs.leaf.der) }

    @Test func addSearchAndDeleteACertificate() throws {
        let f = try APIFixture()
        let body = #"{"class":"kSecClassCertificate","valueData":"\#(Self.leafBase64)","labl":"api"}"#
        let added = try f.call("POST", "/v1/items", json: body)
        #expect(added.status == 201, "\(added.text)")
        let attributes = try #require(added.items.first?["attributes"]?.objectValue)
        #expect(attributes["class"] == "certificate")
        #expect(attributes["accessible"] == "always")
        #expect(attributes["serialNumber"] == .string(Base64.encode([0x42, 0x42])))
        #expect(attributes["label"] == "api")
        // returnData gives the DER back byte for byte.
        let found = try f.call(
            "POST", "/v1/items/search", json: #"{"class":"cert","matchSubjectStartsWith":"api.","returnData":true}"#)
        #expect(found.status == 200, "\(found.text)")
        #expect(found.items.first?["valueData"]?.stringValue.flatMap(Base64.decode) == Self.certs.leaf.der)
        // By URL parameters too, the issuer given as the whole DER Name.
        let issuer = try Self.certs.tool.nameDER(Self.certs.leaf, issuer: true)
        let escaped = Base64.encode(issuer).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let byIssuer = try f.call("GET", "/v1/items?class=certificate&issuer=\(escaped)&serialNumber=QkI%3D")
        #expect(byIssuer.status == 200, "\(byIssuer.text)")
        #expect(byIssuer.items.count == 1)
        let deleted = try f.call("DELETE", "/v1/items", json: #"{"class":"certificate","serialNumber":"QkI="}"#)
        #expect(deleted.status == 200, "\(deleted.text)")
        try f.call("POST", "/v1/items/search", json: #"{"class":"certificate"}"#).expectError(404, -25300)
    }

    @Test func aDuplicateCertificateIs409() throws {
        let f = try APIFixture()
        let body = #"{"class":"certificate","valueData":"\#(Self.leafBase64)"}"#
        #expect(try f.call("POST", "/v1/items", json: body).status == 201)
        try f.call("POST", "/v1/items", json: body).expectError(409, -25299)
    }

    @Test func bytesThatAreNotACertificateAre400NamingValueData() throws {
        let f = try APIFixture()
        try f.call("POST", "/v1/items", json: #"{"class":"certificate","valueData":"aGVsbG8="}"#)
            .expectError(400, -25257, naming: "valueData")
        try f.call("POST", "/v1/items", json: #"{"class":"certificate","valueData":"\#(Self.leafBase64)","serialNumber":"AQ=="}"#)
            .expectError(400, -50, naming: "serialNumber")
    }

    @Test func certificateMatchKeysOnAPasswordQueryAre400NamingTheKey() throws {
        let f = try APIFixture()
        try f.add(service: "db")
        try f.call("POST", "/v1/items/search", json: #"{"class":"genericPassword","matchSubjectContains":"db"}"#)
            .expectError(400, -50, naming: "matchSubjectContains")
        try f.call("POST", "/v1/items/search", json: #"{"class":"certificate","matchValidOnDate":"yesterday"}"#)
            .expectError(400, -50, naming: "matchValidOnDate")
        try f.call("POST", "/v1/items/search", json: #"{"matchIssuers":"not an array"}"#)
            .expectError(400, -50, naming: "matchIssuers")
    }

    /// A token of another group gets the same 404 body for a certificate it may not see as for
    /// none, and may add the same certificate in its own group without learning anything.
    @Test func anotherGroupsCertificateIsMissingToAToken() throws {
        let f = try APIFixture()
        #expect(
            try f.call("POST", "/v1/items", json: #"{"class":"certificate","valueData":"\#(Self.leafBase64)","accessGroup":"a"}"#)
                .status == 201)
        let b = [("Authorization", "Bearer \(try f.token(groups: ["b"]))")]
        let hidden = try f.call(
            "POST", "/v1/items/search", json: #"{"class":"certificate","matchSubjectContains":"api"}"#, headers: b)
        let missing = try f.call(
            "POST", "/v1/items/search", json: #"{"class":"certificate","matchSubjectContains":"zzz"}"#, headers: b)
        hidden.expectError(404, -25300)
        #expect(hidden.body == missing.body)
        let own = try f.call("POST", "/v1/items", json: #"{"class":"certificate","valueData":"\#(Self.leafBase64)"}"#, headers: b)
        #expect(own.status == 201, "\(own.text)")
        #expect(own.items.first?["attributes"]?.objectValue?["accessGroup"] == "b")
    }
}

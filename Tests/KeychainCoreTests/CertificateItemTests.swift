import ExtrasBase64
import KeychainX509
import TestSupport
import Testing

@testable import KeychainCore

/// Certificates made once with `openssl` for every test of this file.
enum Certs {
    struct Set: Sendable {
        let tool: TestCertificates
        let alphaCA, betaCA, interCA: TestCertificates.Made
        /// Issued by alphaCA, serial 00C0FFEE01, subjectKeyIdentifier, SAN email ops@example.com.
        let svc: TestCertificates.Made
        /// Issued by betaCA with svc's serial.
        let twin: TestCertificates.Made
        /// Issued by alphaCA, no extensions (v1, no subjectKeyID, no email).
        let plain: TestCertificates.Made
        /// Issued by interCA (itself issued by alphaCA).
        let deep: TestCertificates.Made
    }

    static let shared: Set = {
        let tool = TestCertificates()
        do {
            let alpha = try tool.makeCA("alpha", subject: "/CN=Alpha Root CA/O=Acme")
            let beta = try tool.makeCA("beta", subject: "/CN=Beta Root CA/O=Other")
            let inter = try tool.makeLeaf(
                "inter", subject: "/CN=Alpha Intermediate/O=Acme", issuer: alpha, serial: "0A",
                extensions: "basicConstraints=critical,CA:TRUE\nsubjectKeyIdentifier=hash")
            return Set(
                tool: tool, alphaCA: alpha, betaCA: beta, interCA: inter,
                svc: try tool.makeLeaf(
                    "svc", subject: "/CN=svc.example.com/O=Acme", issuer: alpha, serial: "00C0FFEE01",
                    extensions: "subjectKeyIdentifier=hash\nsubjectAltName=email:ops@example.com"),
                twin: try tool.makeLeaf(
                    "twin", subject: "/CN=twin.example.org/O=Other", issuer: beta, serial: "00C0FFEE01",
                    extensions: "subjectKeyIdentifier=hash"),
                plain: try tool.makeLeaf("plain", subject: "/CN=plain host", issuer: alpha, serial: "2002"),
                deep: try tool.makeLeaf(
                    "deep", subject: "/CN=deep.example.net", issuer: inter, serial: "3003",
                    extensions: "subjectKeyIdentifier=hash"))
        } catch {
            fatalError("openssl could not make the test certificates: \(error)")
        }
    }()
}

extension TestCertificates.Made {
    var base64: JSON { .string(Base64.encode(der)) }
}

extension Fixture {
    @discardableResult
    func addCertificate(
        _ made: TestCertificates.Made, group: String? = nil, extra: JSONObject = [:], token: AccessToken? = nil
    ) throws -> ItemResult {
        var query: JSONObject = ["class": "certificate", "valueData": made.base64]
        if let group { query["accessGroup"] = .string(group) }
        for (k, v) in extra { query[k] = v }
        return try keychain.add(query, token: token ?? admin)
    }

    /// The subject CNs of the certificates `query` finds (none: errSecItemNotFound is empty).
    func commonNames(_ query: JSONObject, token: AccessToken? = nil) throws -> [String] {
        var query = query
        query["matchLimit"] = "all"
        query["returnData"] = true
        let outcome = Result { () throws(KeychainError) in try keychain.search(query, token: token ?? admin) }
        if case .failure(let error) = outcome, error.status == KeychainError.itemNotFound.status { return [] }
        return try outcome.get().map { result in
            let der = try #require(result.json["valueData"]?.stringValue.flatMap(Base64.decode))
            return try Certificate(der: der).subjectValues[0]
        }.sorted()
    }
}

@Suite struct CertificateItemTests {
    static func b64(_ bytes: [UInt8]) -> JSON { .string(Base64.encode(bytes)) }

    @Test func addDerivesApplesAttributesAndReturnsTheDERByteForByte() throws {
        let f = try Fixture()
        let c = Certs.shared
        let added = try f.addCertificate(c.svc)
        let attributes = try #require(added.attributesJSON)
        #expect(attributes["class"] == "certificate")
        #expect(attributes["accessible"] == "always", "certificates default to always, as Apple's")
        #expect(attributes["certificateType"] == 3)
        #expect(attributes["certificateEncoding"] == 3)
        let serial = try #require(TestCertificates.hexBytes(try c.tool.serialHex(c.svc)))
        #expect(attributes["serialNumber"] == Self.b64([0] + serial), "the INTEGER's content: 00 before a high first byte")
        #expect(attributes["subjectKeyID"] == Self.b64(try #require(try c.tool.subjectKeyID(c.svc))))
        #expect(attributes["publicKeyHash"] == Self.b64(try c.tool.publicKeyHash(c.svc)))
        #expect(attributes["issuer"] == Self.b64(Array(try c.tool.nameDER(c.svc, issuer: true).dropFirst(2))))
        #expect(attributes["subject"] == Self.b64(Array(try c.tool.nameDER(c.svc, issuer: false).dropFirst(2))))
        let found = try f.keychain.search(["class": "kSecClassCertificate", "returnData": true], token: f.admin)
        #expect(found.count == 1)
        #expect(found[0].json["valueData"]?.stringValue.flatMap(Base64.decode) == c.svc.der)
    }

    @Test func aCertificateWithoutTheExtensionHasNoSubjectKeyID() throws {
        let f = try Fixture()
        let attributes = try #require(try f.addCertificate(Certs.shared.plain).attributesJSON)
        #expect(attributes["subjectKeyID"] == nil)
        #expect(attributes["certificateType"] == 1)
    }

    @Test func theSameCertificateTwiceIsADuplicate() throws {
        let f = try Fixture()
        let first = try f.addCertificate(Certs.shared.svc)
        let error = expectError(.anyDuplicate) { try f.addCertificate(Certs.shared.svc, extra: ["label": "again"]) }
        #expect(error?.persistentRef == first.persistentRef)
        #expect(try f.commonNames(["class": "certificate"]) == ["svc.example.com"])
    }

    @Test func oneSerialFromTwoIssuersIsTwoCertificates() throws {
        let f = try Fixture()
        let c = Certs.shared
        let a = try #require(try f.addCertificate(c.svc).attributesJSON)
        let b = try #require(try f.addCertificate(c.twin).attributesJSON)
        #expect(a["serialNumber"] == b["serialNumber"])
        #expect(a["issuer"] != b["issuer"])
        #expect(
            try f.commonNames(["class": "certificate", "serialNumber": a["serialNumber"]!]) == [
                "svc.example.com", "twin.example.org",
            ])
    }

    @Test func aDerivedAttributeGivenOnAddMustEqualTheCertificates() throws {
        let f = try Fixture()
        let c = Certs.shared
        expectError(.anyParam, naming: "serialNumber") {
            try f.addCertificate(c.svc, extra: ["serialNumber": Self.b64([1, 2, 3])])
        }
        expectError(.anyParam, naming: "subjectKeyID") { try f.addCertificate(c.plain, extra: ["subjectKeyID": Self.b64([1])]) }
        expectError(.anyParam, naming: "certificateType") { try f.addCertificate(c.svc, extra: ["certificateType": 2]) }
        expectError(.itemNotFound) { _ = try f.keychain.search(["class": "certificate"], token: f.admin) }
        // Equal is accepted; a whole DER Name for issuer is normalized as Apple does.
        let issuerName = try c.tool.nameDER(c.svc, issuer: true)
        try f.addCertificate(c.svc, extra: ["issuer": Self.b64(issuerName), "certificateType": 3, "label": "svc"])
        #expect(try f.commonNames(["issuer": Self.b64(issuerName), "class": "certificate"]) == ["svc.example.com"])
    }

    @Test func bytesThatAreNotACertificateAreUnknownFormatNamingValueData() throws {
        let f = try Fixture()
        let garbage = Array("-----BEGIN CERTIFICATE-----".utf8)
        expectError(.unknownFormat(""), naming: "valueData") {
            _ = try f.keychain.add(["class": "certificate", "valueData": Self.b64(garbage)], token: f.admin)
        }
        expectError(.unknownFormat(""), naming: "valueData") {
            _ = try f.keychain.add(
                ["class": "certificate", "valueData": Self.b64(Array(Certs.shared.svc.der.dropLast()))], token: f.admin)
        }
        expectError(.anyParam, naming: "valueData") {
            _ = try f.keychain.add(["class": "certificate", "label": "x"], token: f.admin)
        }
    }

    @Test func updatingTheDERReDerivesTheAttributes() throws {
        let f = try Fixture()
        let c = Certs.shared
        let ref = try f.addCertificate(c.plain).persistentRef
        let query: JSONObject = ["valuePersistentRef": .string(ref)]
        expectError(.unknownFormat(""), naming: "valueData") {
            try f.keychain.update(query: query, attributesToUpdate: ["valueData": Self.b64([0x30, 0x00])], token: f.admin)
        }
        expectError(.anyParam, naming: "serialNumber") {
            try f.keychain.update(query: query, attributesToUpdate: ["serialNumber": Self.b64([9])], token: f.admin)
        }
        let updated = try f.keychain.update(
            query: query, attributesToUpdate: ["valueData": c.svc.base64, "label": "now svc"], token: f.admin)
        let attributes = try #require(updated.first?.attributesJSON)
        #expect(attributes["subjectKeyID"] == Self.b64(try #require(try c.tool.subjectKeyID(c.svc))))
        #expect(attributes["certificateType"] == 3)
        #expect(attributes["label"] == "now svc")
        #expect(try f.commonNames(["class": "certificate", "subjectKeyID": attributes["subjectKeyID"]!]) == ["svc.example.com"])
        #expect(try f.commonNames(["class": "certificate", "matchSubjectContains": "plain"]) == [])
    }

    @Test func subjectMatchKeysCompareTheSubjectsValues() throws {
        let f = try Fixture()
        let c = Certs.shared
        for made in [c.svc, c.twin, c.plain] { try f.addCertificate(made) }
        let cert: JSONObject = ["class": "certificate"]
        func names(_ key: String, _ value: String, _ extra: JSONObject = [:]) throws -> [String] {
            var query = cert
            query[key] = .string(value)
            for (k, v) in extra { query[k] = v }
            return try f.commonNames(query)
        }
        #expect(try names("matchSubjectContains", "example") == ["svc.example.com", "twin.example.org"])
        #expect(try names("matchSubjectContains", "nowhere") == [])
        #expect(try names("matchSubjectStartsWith", "svc.") == ["svc.example.com"])
        #expect(try names("matchSubjectStartsWith", "example") == [])
        #expect(try names("matchSubjectEndsWith", ".org") == ["twin.example.org"])
        #expect(try names("matchSubjectEndsWith", "svc") == [])
        #expect(try names("matchSubjectWholeString", "plain host") == ["plain host"])
        #expect(try names("matchSubjectWholeString", "plain") == [])
        #expect(try names("matchSubjectWholeString", "Acme") == ["svc.example.com"], "any of the subject's values")
        #expect(try names("matchSubjectContains", "EXAMPLE") == [], "case-sensitive unless asked")
        #expect(
            try names("matchSubjectContains", "EXAMPLE", ["matchCaseInsensitive": true]) == [
                "svc.example.com", "twin.example.org",
            ])
        // Without a class the match keys narrow the search to certificates.
        try f.addGeneric(service: "example", account: "u")
        #expect(try f.keychain.search(["matchSubjectContains": "example", "matchLimit": "all"], token: f.admin).count == 2)
        // matchLimit applies to the filtered answer.
        #expect(try f.keychain.search(["matchSubjectContains": "example", "matchLimit": 1], token: f.admin).count == 1)
    }

    @Test func matchEmailAddressIfPresentKeepsCertificatesWithoutAnAddress() throws {
        let f = try Fixture()
        let c = Certs.shared
        try f.addCertificate(c.svc)
        try f.addCertificate(c.plain)
        #expect(try f.commonNames(["matchEmailAddressIfPresent": "ops@example.com"]) == ["plain host", "svc.example.com"])
        #expect(try f.commonNames(["matchEmailAddressIfPresent": "OPS@example.com"]) == ["plain host", "svc.example.com"])
        #expect(try f.commonNames(["matchEmailAddressIfPresent": "dev@example.com"]) == ["plain host"])
    }

    @Test func matchValidOnDateComparesTheValidityPeriod() throws {
        let f = try Fixture()
        try f.addCertificate(Certs.shared.svc)
        let certificate = try Certificate(der: Certs.shared.svc.der)
        #expect(try f.commonNames(["matchValidOnDate": .null]) == [], "null: the keychain's now, before notBefore")
        f.clock.advance(seconds: (certificate.notBefore - f.clock.now()) / 1000 + 60)
        #expect(try f.commonNames(["matchValidOnDate": .null]) == ["svc.example.com"], "null: now")
        let inside = RFC3339.format(milliseconds: certificate.notBefore + 1000)
        #expect(try f.commonNames(["matchValidOnDate": .string(inside)]) == ["svc.example.com"])
        #expect(try f.commonNames(["matchValidOnDate": "2100-01-01T00:00:00Z"]) == [])
        #expect(try f.commonNames(["matchValidOnDate": "2001-01-01T00:00:00Z"]) == [])
    }

    @Test func matchIssuersClimbsTheChainInTheKeychain() throws {
        let f = try Fixture()
        let c = Certs.shared
        for made in [c.svc, c.twin, c.deep] { try f.addCertificate(made) }
        let alpha = Self.b64(try c.tool.nameDER(c.svc, issuer: true))
        let beta = Self.b64(try c.tool.nameDER(c.twin, issuer: true))
        #expect(try f.commonNames(["matchIssuers": .array([beta])]) == ["twin.example.org"])
        #expect(try f.commonNames(["matchIssuers": .array([alpha, beta])]) == ["svc.example.com", "twin.example.org"])
        // deep is issued by the intermediate: alpha is reached only once the intermediate is stored.
        #expect(try f.commonNames(["matchIssuers": .array([alpha])]) == ["svc.example.com"])
        try f.addCertificate(c.interCA)
        #expect(
            try f.commonNames(["matchIssuers": .array([alpha])]) == ["Alpha Intermediate", "deep.example.net", "svc.example.com"])
        expectError(.anyParam, naming: "matchIssuers") {
            _ = try f.keychain.search(["matchIssuers": .array([Self.b64([1, 2])])], token: f.admin)
        }
    }

    @Test(arguments: [
        ("matchSubjectContains", JSON.string("x")), ("matchSubjectStartsWith", "x"), ("matchSubjectEndsWith", "x"),
        ("matchSubjectWholeString", "x"), ("matchIssuers", JSON.array([.string(Base64.encode([0x30, 0x00]))])),
        ("matchEmailAddressIfPresent", "a@b"), ("matchValidOnDate", .null),
    ])
    func matchKeysAreParamOnOtherClassesAndOutsideASearch(key: String, value: JSON) throws {
        let f = try Fixture()
        try f.addGeneric(service: "s", account: "u")
        expectError(.anyParam, naming: key) {
            _ = try f.keychain.search(["class": "genericPassword", key: value], token: f.admin)
        }
        expectError(.anyParam, naming: key) {
            _ = try f.keychain.search(["class": "internetPassword", key: value], token: f.admin)
        }
        expectError(.anyParam, naming: key) {
            _ = try f.keychain.add(["class": "certificate", "valueData": Certs.shared.svc.base64, key: value], token: f.admin)
        }
        expectError(.anyParam, naming: key) { _ = try f.keychain.delete(["class": "certificate", key: value], token: f.admin) }
    }

    /// A certificate in a group the token lacks does not exist for it: the same errSecItemNotFound
    /// as a missing one, for attribute and match-key searches alike; adding the same certificate
    /// in its own group tells it nothing (the primary key includes the group); and a matchIssuers
    /// walk does not climb through a certificate it may not see.
    @Test func anotherGroupsCertificateIsIndistinguishableFromAMissingOne() throws {
        let f = try Fixture()
        let c = Certs.shared
        let b = try f.token(["b"])
        try f.addCertificate(c.svc, group: "a")
        try f.addCertificate(c.interCA, group: "a")
        let serial = try #require(try f.addCertificate(c.twin, group: "a").attributesJSON?["serialNumber"])
        let hidden = expectError(.itemNotFound) {
            _ = try f.keychain.search(["class": "certificate", "serialNumber": serial], token: b)
        }
        let missing = expectError(.itemNotFound) {
            _ = try f.keychain.search(["class": "certificate", "serialNumber": Self.b64([7])], token: b)
        }
        #expect(hidden?.message == missing?.message)
        expectError(.itemNotFound) { _ = try f.keychain.search(["matchSubjectContains": "svc"], token: b) }
        expectError(.itemNotFound) { _ = try f.keychain.delete(["class": "certificate", "serialNumber": serial], token: b) }
        #expect(try f.addCertificate(c.svc, token: b).attributesJSON?["accessGroup"] == "b")
        try f.addCertificate(c.deep, token: b)
        let alpha = Self.b64(try c.tool.nameDER(c.svc, issuer: true))
        #expect(
            try f.commonNames(["matchIssuers": .array([alpha])], token: b) == ["svc.example.com"], "deep's parent is in group a")
        #expect(try f.commonNames(["matchIssuers": .array([alpha])]).count == 4)
    }

    /// A match-key search's answer pages like any other: the filtered certificates in insertion
    /// order, and a cursor bound to its match keys.
    @Test func matchKeyAnswersPageAndTheirCursorsAreBoundToTheKeys() throws {
        let f = try Fixture { $0.maxAnswerItems = 1 }
        let c = Certs.shared
        for made in [c.svc, c.plain, c.twin, c.deep] { try f.addCertificate(made) }
        var query: JSONObject = ["matchSubjectContains": "example", "matchLimit": "all", "returnData": true]
        var names: [String] = []
        var cursor: String?
        repeat {
            if let cursor { query["pageAfter"] = .string(cursor) }
            let page = try f.keychain.searchPage(query, token: f.admin)
            for item in page.items {
                let der = try #require(item.json["valueData"]?.stringValue.flatMap(Base64.decode))
                names.append(try Certificate(der: der).subjectValues[0])
            }
            cursor = page.next
            if names.count > 10 { break }
        } while cursor != nil
        #expect(names == ["svc.example.com", "twin.example.org", "deep.example.net"])
        let first = try f.keychain.searchPage(["matchSubjectContains": "example", "matchLimit": "all"], token: f.admin)
        let next = try #require(first.next)
        expectError(.anyParam, naming: "pageAfter") {
            _ = try f.keychain.searchPage(
                ["matchSubjectContains": "twin", "matchLimit": "all", "pageAfter": .string(next)], token: f.admin)
        }
    }

    @Test func lockedCertificatesFollowTheirProtectionClass() throws {
        let f = try Fixture()
        let c = Certs.shared
        try f.addCertificate(c.svc)
        try f.addCertificate(c.twin, extra: ["accessible": "whenUnlocked"])
        try f.keychain.lock()
        // always: the DER reads, adds and match keys work while locked.
        #expect(try f.commonNames(["matchSubjectStartsWith": "svc", "accessible": "always"]) == ["svc.example.com"])
        try f.addCertificate(c.plain)
        #expect(
            try f.keychain.search(["subject": Self.b64(try Certificate(der: c.plain.der).subject)], token: f.admin).count == 1)
        // whenUnlocked: attributes yes, the DER no, and a match key needing it fails whole
        // (every candidate's DER is opened: no silent partial answer).
        #expect(try f.keychain.search(["class": "certificate", "accessible": "whenUnlocked"], token: f.admin).count == 1)
        expectError(.anyLocked, naming: "returnData") {
            _ = try f.keychain.search(["class": "certificate", "accessible": "whenUnlocked", "returnData": true], token: f.admin)
        }
        expectError(.anyLocked, naming: "matchSubjectContains") {
            _ = try f.keychain.search(["matchSubjectContains": "example", "matchLimit": "all"], token: f.admin)
        }
        try f.unlock()
        #expect(try f.commonNames(["matchSubjectContains": "example"]) == ["svc.example.com", "twin.example.org"])
    }
}

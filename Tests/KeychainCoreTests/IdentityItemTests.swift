import Dispatch
import ExtrasBase64
import Foundation
import KeychainX509
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

/// Key pairs and self-signed certificates of them, made once with `openssl` for this file.
enum Identities {
    struct Made: Sendable {
        let key: TestKeys.Made
        let certificate: [UInt8]
        let type: String
    }

    struct Set: Sendable {
        let tool: TestKeys
        let rsa, ec, ed25519: Made
        /// A second certificate of `ec`'s key: a renewal.
        let ecRenewed: [UInt8]
    }

    static let shared: Set = {
        let tool = TestKeys()
        do {
            let rsa = try tool.rsa("id-rsa")
            let ec = try tool.ec("id-ec")
            let ed = try tool.raw25519("id-ed", algorithm: "ED25519")
            return Set(
                tool: tool, rsa: Made(key: rsa, certificate: try tool.certificate("rsa.example.com", of: rsa), type: "rsa"),
                ec: Made(key: ec, certificate: try tool.certificate("ec.example.com", of: ec), type: "ec"),
                ed25519: Made(key: ed, certificate: try tool.certificate("ed.example.com", of: ed), type: "ed25519"),
                ecRenewed: try tool.certificate("ec-renewed.example.com", of: ec))
        } catch {
            fatalError("openssl could not make the test identities: \(error)")
        }
    }()
}

extension Fixture {
    @discardableResult
    func addIdentity(_ made: Identities.Made, certificate: [UInt8]? = nil, extra: JSONObject = [:], token: AccessToken? = nil)
        throws(KeychainError) -> ItemResult
    {
        var query: JSONObject = [
            "class": "identity", "valueData": .string(Base64.encode(made.key.privateKey)),
            "certificateData": .string(Base64.encode(certificate ?? made.certificate)),
        ]
        for (k, v) in extra { query[k] = v }
        return try keychain.add(query, token: token ?? admin)
    }

    /// How many certificates and keys the admin sees.
    func rows() throws -> (certificates: Int, keys: Int) {
        func count(_ itemClass: String) throws -> Int {
            do { return try keychain.search(["class": .string(itemClass), "matchLimit": "all"], token: admin).count } catch {
                if error.status == KeychainError.itemNotFound.status { return 0 }
                throw error
            }
        }
        return (try count("certificate"), try count("key"))
    }
}

@Suite struct IdentityItemTests {
    static func bytes(_ json: JSON?) -> [UInt8]? { json?.stringValue.flatMap(Base64.decode) }

    /// One add stores the certificate and the key; an identity search joins them: the key's
    /// bytes as data, the certificate's DER beside them, attributes of both with class identity.
    @Test(arguments: ["rsa", "ec", "ed25519"])
    func anAddStoresBothRowsAndASearchJoinsThem(kind: String) throws {
        let f = try Fixture()
        let made = kind == "rsa" ? Identities.shared.rsa : kind == "ec" ? Identities.shared.ec : Identities.shared.ed25519
        let added = try f.addIdentity(made, extra: ["label": "web", "applicationTag": .string(Base64.encode(Array("t".utf8)))])
        #expect(added.attributes?.itemClass == .identity)
        #expect(added.attributes?.value("keyType") == .string(made.type))
        #expect(added.attributes?.value("keyClass") == .string("private"))
        #expect(added.attributes?.value("publicKeyHash") == .bytes(made.key.publicKeyHash))
        #expect(added.attributes?.value("applicationLabel") == .bytes(made.key.publicKeyHash))
        #expect(try f.rows() == (1, 1))

        let found = try f.keychain.search(
            ["class": "identity", "label": "web", "returnData": true, "returnAttributes": true, "returnPersistentRef": true],
            token: f.admin)
        #expect(found.count == 1)
        let json = found[0].json
        #expect(Self.bytes(json["valueData"]) == made.key.privateKey)
        #expect(Self.bytes(json["certificateData"]) == made.certificate)
        #expect(found[0].attributes?.value("applicationTag") == .bytes(Array("t".utf8)))
        #expect(found[0].ref == added.ref)
        // The identity's reference is its certificate's; the key is its own row.
        let certificate = try f.keychain.search(["class": "certificate", "returnData": true], token: f.admin)[0]
        #expect(certificate.ref == added.ref)
        #expect(certificate.secret == made.certificate)
        let key = try f.keychain.search(["class": "key", "keyClass": "private", "returnData": true], token: f.admin)[0]
        #expect(key.secret == made.key.privateKey)
        #expect(found[0].keyRef == key.ref)
    }

    /// On a store whose adds answer later (SQLite's), the caller of an add with a completion is a
    /// thread that serves other requests: an identity add, two rows in one transaction, waits for
    /// its commit on a thread of its own, never on the caller's, and adds both rows.
    @Test func anIdentityAddAnsweredLaterWaitsOffTheCallersThread() throws {
        let f = try Fixture()
        try #require(f.keychain.addsAnswerLater)
        let made = Identities.shared.ec
        let query = try QueryParser.parse([
            "class": "identity", "valueData": .string(Base64.encode(made.key.privateKey)),
            "certificateData": .string(Base64.encode(made.certificate)),
        ])
        let caller = pthread_self()
        let answered = DispatchSemaphore(value: 0)
        let answer = Mutex<(onCaller: Bool, result: Result<ItemResult, KeychainError>)?>(nil)
        f.keychain.add(query, token: f.admin) { result in
            answer.withLock { $0 = (pthread_equal(pthread_self(), caller) != 0, result) }
            answered.signal()
        }
        try #require(answered.wait(timeout: .now() + 30) == .success)
        let (onCaller, result) = try #require(answer.withLock { $0 })
        #expect(!onCaller)
        _ = try result.get()
        #expect(try f.rows() == (1, 1))
    }

    @Test func returnRefGivesTheCertificateAndTheKeyForEachClass() throws {
        let f = try Fixture()
        let made = Identities.shared.ec
        try f.addIdentity(made)
        let identity = try f.keychain.search(["class": "identity", "returnRef": true], token: f.admin)[0]
        #expect(identity.reference?.certificate == made.certificate)
        #expect(identity.reference?.key == made.key.privateKey)
        #expect(identity.reference?.keyType == "ec")
        #expect(identity.reference?.keyClass == "private")
        #expect(identity.secret == nil && identity.attributes == nil)
        let certificate = try f.keychain.search(["class": "certificate", "returnRef": true], token: f.admin)[0]
        #expect(certificate.reference?.certificate == made.certificate && certificate.reference?.key == nil)
        let key = try f.keychain.search(["class": "key", "returnRef": true], token: f.admin)[0]
        #expect(key.reference?.key == made.key.privateKey && key.reference?.certificate == nil)
        try f.addGeneric(service: "s", account: "a")
        #expect(try f.keychain.search(["class": "genericPassword", "returnRef": true], token: f.admin)[0].reference == nil)
        // returnRef opens secrets: it needs the read capability, as returnData does.
        let lister = try f.token(["*"], [.list])
        expectError(.anyMissingEntitlement, naming: "returnRef") {
            _ = try f.keychain.search(["class": "identity", "returnRef": true], token: lister)
        }
    }

    /// A password has no reference, so returnRef alone opens nothing of it: locked, it answers.
    @Test func returnRefOnALockedPasswordOpensNothing() throws {
        let f = try Fixture()
        try f.addGeneric(service: "s", account: "a")
        try f.keychain.lock()
        let found = try f.keychain.search(
            ["class": "genericPassword", "returnRef": true, "returnAttributes": true], token: f.admin)
        #expect(found.count == 1 && found[0].reference == nil && found[0].secret == nil)
        expectError(.anyLocked, naming: "returnData") {
            _ = try f.keychain.search(["class": "genericPassword", "returnRef": true, "returnData": true], token: f.admin)
        }
    }

    @Test func aKeyThatIsNotTheCertificatesIsErrSecParamAndStoresNothing() throws {
        let f = try Fixture()
        let s = Identities.shared
        expectError(.anyParam, naming: "valueData") {
            try f.addIdentity(s.ec, certificate: s.rsa.certificate)
        }
        expectError(.anyParam, naming: "valueData") {
            try f.addIdentity(s.ec, certificate: s.ecRenewed, extra: ["keyType": "rsa"])
        }
        expectError(.anyParam, naming: "keyClass") { try f.addIdentity(s.ec, extra: ["keyClass": "public"]) }
        expectError(.anyParam, naming: "applicationLabel") {
            try f.addIdentity(s.ec, extra: ["applicationLabel": .string(Base64.encode([1, 2, 3]))])
        }
        expectError(.anyParam, naming: "certificateData") {
            _ = try f.keychain.add(
                ["class": "identity", "valueData": .string(Base64.encode(s.ec.key.privateKey))], token: f.admin)
        }
        expectError(.anyParam, naming: "certificateData") {
            _ = try f.keychain.add(
                [
                    "class": "certificate", "valueData": .string(Base64.encode(s.ec.certificate)),
                    "certificateData": .string(Base64.encode(s.ec.certificate)),
                ], token: f.admin)
        }
        #expect(try f.rows() == (0, 0))
    }

    @Test func aCertificateAndAKeyAddedApartAreAnIdentityAndAPublicKeyIsNot() throws {
        let f = try Fixture()
        let made = Identities.shared.rsa
        _ = try f.keychain.add(["class": "certificate", "valueData": .string(Base64.encode(made.certificate))], token: f.admin)
        expectError(KeychainError.itemNotFound) { _ = try f.keychain.search(["class": "identity"], token: f.admin) }
        _ = try f.keychain.add(
            ["class": "key", "keyType": "rsa", "keyClass": "public", "valueData": .string(Base64.encode(made.key.publicKey))],
            token: f.admin)
        expectError(KeychainError.itemNotFound) { _ = try f.keychain.search(["class": "identity"], token: f.admin) }
        _ = try f.keychain.add(
            ["class": "key", "keyType": "rsa", "keyClass": "private", "valueData": .string(Base64.encode(made.key.privateKey))],
            token: f.admin)
        let found = try f.keychain.search(["class": "identity", "returnData": true], token: f.admin)
        #expect(found.count == 1 && found[0].secret == made.key.privateKey)
    }

    /// Both halves must be in groups the token sees; otherwise the identity is missing, as an
    /// item of an unseen group is.
    @Test func anIdentityNeedsBothHalvesInTheTokensGroups() throws {
        let f = try Fixture()
        let made = Identities.shared.ec
        _ = try f.keychain.add(
            ["class": "certificate", "accessGroup": "certs", "valueData": .string(Base64.encode(made.certificate))],
            token: f.admin)
        _ = try f.keychain.add(
            [
                "class": "key", "accessGroup": "keys", "keyType": "ec", "keyClass": "private",
                "valueData": .string(Base64.encode(made.key.privateKey)),
            ], token: f.admin)
        for groups in [["certs"], ["keys"]] {
            let token = try f.token(groups)
            expectError(KeychainError.itemNotFound) { _ = try f.keychain.search(["class": "identity"], token: token) }
            expectError(KeychainError.itemNotFound) {
                _ = try f.keychain.delete(["class": "identity", "deleteAll": true], token: token)
            }
        }
        let both = try f.token(["certs", "keys"])
        #expect(try f.keychain.search(["class": "identity"], token: both).count == 1)
        // An identity add into a group the token lacks is refused like any add.
        let certsOnly = try f.token(["certs"])
        expectError(.anyMissingEntitlement, naming: "accessGroup") {
            try f.addIdentity(Identities.shared.rsa, extra: ["accessGroup": "keys"], token: certsOnly)
        }
    }

    @Test func theSameIdentityTwiceIsADuplicateAndARenewedCertificateKeepsItsKey() throws {
        let f = try Fixture()
        let s = Identities.shared
        let first = try f.addIdentity(s.ec)
        do {
            try f.addIdentity(s.ec)
            Issue.record("a second add of the same identity succeeded")
        } catch {
            #expect(error.status == KeychainError.anyDuplicate.status)
            #expect(error.persistentRef == first.persistentRef)
        }
        #expect(try f.rows() == (1, 1))
        // A renewed certificate of the same key: a second identity, the one key row.
        try f.addIdentity(s.ec, certificate: s.ecRenewed)
        #expect(try f.rows() == (2, 1))
        let found = try f.keychain.search(["class": "identity", "matchLimit": "all", "returnData": true], token: f.admin)
        #expect(Swift.Set(found.compactMap(\.certificateData)) == [s.ec.certificate, s.ecRenewed])
        #expect(Swift.Set(found.compactMap(\.keyRef)).count == 1)
    }

    @Test func matchKeysAndKeyAttributesFilterIdentities() throws {
        let f = try Fixture()
        let s = Identities.shared
        try f.addIdentity(s.rsa)
        try f.addIdentity(s.ec, extra: ["applicationTag": .string(Base64.encode(Array("ec".utf8)))])
        try f.addIdentity(s.ed25519)
        func names(_ query: JSONObject) throws -> [String] {
            var query = query
            query["class"] = "identity"
            query["matchLimit"] = "all"
            query["returnData"] = true
            do {
                return try f.keychain.search(query, token: f.admin).map { result in
                    try Certificate(der: result.certificateData ?? []).subjectValues[0]
                }.sorted()
            } catch let error as KeychainError where error.status == KeychainError.itemNotFound.status { return [] }
        }
        #expect(try names(["matchSubjectContains": "example"]) == ["ec.example.com", "ed.example.com", "rsa.example.com"])
        #expect(try names(["matchSubjectStartsWith": "ed."]) == ["ed.example.com"])
        #expect(try names(["keyType": "rsa"]) == ["rsa.example.com"])
        #expect(try names(["applicationTag": .string(Base64.encode(Array("ec".utf8)))]) == ["ec.example.com"])
        #expect(try names(["keySizeInBits": 256]) == ["ec.example.com", "ed.example.com"])
        #expect(try names(["matchSubjectContains": "nothing"]) == [])
        // A match key on a password class is still refused.
        expectError(.anyParam, naming: "matchSubjectContains") {
            _ = try f.keychain.search(["class": "genericPassword", "matchSubjectContains": "x"], token: f.admin)
        }
    }

    @Test func anUpdateChangesBothRowsAndADeleteRemovesBoth() throws {
        let f = try Fixture()
        let s = Identities.shared
        try f.addIdentity(s.ec, extra: ["label": "old"])
        try f.addIdentity(s.rsa, extra: ["label": "keep"])
        let updated = try f.keychain.update(
            query: ["class": "identity", "label": "old"], attributesToUpdate: ["label": "new", "canSign": false], token: f.admin)
        #expect(updated.count == 1 && updated[0].attributes?.value("label") == .string("new"))
        let certificate = try f.keychain.search(["class": "certificate", "label": "new"], token: f.admin)
        let key = try f.keychain.search(["class": "key", "label": "new", "returnAttributes": true], token: f.admin)
        #expect(certificate.count == 1 && key.count == 1)
        #expect(key[0].attributes?.value("canSign") == .bool(false))
        expectError(.anyParam, naming: "valueData") {
            try f.keychain.update(
                query: ["class": "identity"], attributesToUpdate: ["valueData": .string(Base64.encode([1]))], token: f.admin)
        }
        #expect(try f.keychain.delete(["class": "identity", "label": "new"], token: f.admin) == 2)
        #expect(try f.rows() == (1, 1))
        expectError(KeychainError.itemNotFound) {
            _ = try f.keychain.search(["class": "identity", "label": "new"], token: f.admin)
        }
        #expect(try f.keychain.search(["class": "identity", "label": "keep"], token: f.admin).count == 1)
    }

    /// A certificate is `always` by default and its key `whenUnlocked`: locked, the identity's
    /// attributes still answer, its key's bytes do not, and the whole search fails rather than
    /// answering without them.
    @Test func aLockedKeychainKeepsAnIdentitysKeyButNotItsCertificate() throws {
        let f = try Fixture()
        let made = Identities.shared.ec
        try f.addIdentity(made)
        try f.keychain.lock()
        #expect(try f.keychain.search(["class": "identity"], token: f.admin).count == 1)
        expectError(.anyLocked, naming: "returnData") {
            _ = try f.keychain.search(["class": "identity", "returnData": true], token: f.admin)
        }
        expectError(.anyLocked, naming: "returnRef") {
            _ = try f.keychain.search(["class": "identity", "returnRef": true], token: f.admin)
        }
        #expect(
            try f.keychain.search(["class": "certificate", "returnData": true], token: f.admin)[0].secret == made.certificate)
        expectError(.anyLocked) { try f.addIdentity(Identities.shared.rsa) }
        try f.unlock()
        #expect(
            try f.keychain.search(["class": "identity", "returnData": true], token: f.admin)[0].secret == made.key.privateKey)
    }

    /// `accessible` given on add goes to both halves; locked, the key's bytes follow it.
    @Test(arguments: [("whenUnlocked", false), ("afterFirstUnlock", true), ("always", true), ("alwaysThisDeviceOnly", true)])
    func eachProtectionClassWhileLocked(accessible: String, readableLocked: Bool) throws {
        let f = try Fixture()
        let made = Identities.shared.ed25519
        try f.addIdentity(made, extra: ["accessible": .string(accessible)])
        let key = try f.keychain.search(["class": "key", "returnAttributes": true], token: f.admin)[0]
        #expect(key.attributes?.accessible.name == accessible)
        try f.keychain.lock()
        let query: JSONObject = ["class": "identity", "returnData": true]
        if readableLocked {
            #expect(try f.keychain.search(query, token: f.admin)[0].secret == made.key.privateKey)
        } else {
            expectError(.anyLocked, naming: "returnData") { _ = try f.keychain.search(query, token: f.admin) }
        }
    }

    @Test func aKeyThatIsNotExtractableNeverLeavesThroughItsIdentity() throws {
        let f = try Fixture()
        let made = Identities.shared.rsa
        try f.addIdentity(made, extra: ["isExtractable": false])
        let found = try f.keychain.search(["class": "identity", "returnData": true, "returnRef": true], token: f.admin)[0]
        #expect(found.secret == nil && found.reference?.key == nil)
        #expect(found.certificateData == made.certificate && found.reference?.certificate == made.certificate)
    }

    /// Identities come a page at a time like any search: every identity once, in order.
    @Test func identitiesArePagedWithoutLossOrRepeat() throws {
        let f = try Fixture(configure: { $0.maxAnswerItems = 2 })
        let s = Identities.shared
        for made in [s.rsa, s.ec, s.ed25519] { try f.addIdentity(made) }
        try f.addIdentity(s.ec, certificate: s.ecRenewed)
        var seen: [[UInt8]] = []
        var query: JSONObject = ["class": "identity", "matchLimit": "all"]
        while true {
            let page = try f.keychain.searchPage(query, token: f.admin)
            #expect(page.items.count <= 2)
            seen += page.items.map(\.ref)
            guard let next = page.next else { break }
            query["pageAfter"] = .string(next)
        }
        #expect(seen.count == 4 && Swift.Set(seen).count == 4)
    }
}

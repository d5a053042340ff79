import Dispatch
import Foundation
import KeychainX509
import Synchronization
import TestSupport
import Testing

/// `OSX/libsecurity_keychain/regressions/kc-*` (Security-61901.0.87.0.1), the certificate, key and
/// identity tests, case by case, as KeychainFileRegressions.swift ports the password
/// ones: Apple's `createNewKeychain` and `getPopulatedTestKeychain` are a fresh `APIFixture`, and
/// an item reference found by a search stands for itself by its persistent ref. How a certificate,
/// key or identity ref is sent and named: AppleRefs.swift.
///
/// Apple's populated keychain (`kc-keychain-file-helpers.c` `test_keychain`, a macOS file keychain)
/// holds three certificates, two symmetric keys, two key pairs, and the Code Signing and S/MIME
/// identities they make. Its certificates are stored in the clear and are used here as they are
/// (AppleTestData.swift); its keys are sealed in Apple's file format, so openssl makes stand-ins
/// of the same kinds (AES-128, RSA-1024), and, in the identity tests, Apple's kc-43 identity (a
/// certificate and its RSA-2048 key, test data of the same directory) stands for the populated
/// identities.
@Suite struct KeychainFileCertificateRegressions {
    /// `kc-05-find-existing-items.c` `tests`, the part KeychainFileRegressions.kc05FindExistingItems
    /// leaves out: in the populated keychain, `kSecMatchLimitAll` finds 2 symmetric, 2 public and 2
    /// private keys and 3 certificates; the certificate whose subject is wholly `test_codesigning`
    /// is found once, and its SHA-1 is 94DF224A…AE34 (`SecCertificateGetSHA1Digest`: here the SHA-1
    /// of the DER its data returns).
    @Test func kc05FindExistingKeysAndCertificates() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        try findKeysAndCertificates(kc)
    }

    /// `kc-05-find-existing-items-locked.c` `tests`, the keys and certificates: locked, the same
    /// searches as kc-05's find the same keys and certificates, and the test_codesigning
    /// certificate's SHA-1 is read (a certificate is `always` by default: docs/certificates-keys-identities.md, Certificates).
    @Test func kc05FindExistingKeysAndCertificatesLocked() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        #expect(try kc.lock().status == errSecSuccess, "SecKeychainLock")
        try findKeysAndCertificates(kc)
    }

    /// `kc-06-cert-search-email.m` `kc_06_cert_search_email`, in part: in the populated keychain
    /// the certificates of `nobody_certificate@apple.com` (SecKeychainSearchCreateForCertificateByEmail:
    /// here `matchEmailAddressIfPresent`) are exactly 1. Left out: SecCertificateSetPreferred and
    /// SecCertificateCopyPreference (certificate preferences, which keychaind does not keep) and the
    /// printing of each certificate's trust status.
    @Test func kc06CertSearchEmail() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        let found = try kc.copyMatching([
            "class": "certificate", "matchEmailAddressIfPresent": "nobody_certificate@apple.com", "matchLimit": "all",
            "returnRef": true,
        ])
        #expect(found.status == errSecSuccess, "SecKeychainSearchCreateForCertificateByEmail: \(found)")
        #expect(found.items.count == 1, "Wrong number of certificates found")
        #expect(certificate(of: found) == AppleTestData.kcTestSMIMECertificate)
    }

    /// `kc-10-item-add-certificate.c` `certTests`: a certificate (keybank_v3.101.cer) is added;
    /// adding it again is errSecDuplicateItem, and so is adding another certificate object made
    /// of the same bytes. Apple runs it on two keychains, the second with the CSSM DL's autocommit
    /// off (a file-keychain detail keychaind has no counterpart of): once here. Left out: retain
    /// counts and SecKeychainItemCopyKeychain (one keychain).
    @Test func kc10ItemAddCertificate() throws {
        let kc = AppleCalls(try APIFixture())
        let certificate = AppleRef.addCertificate(AppleTestData.kc10KeybankCert)
        #expect(try kc.add(certificate).status == errSecSuccess, "SecCertificateAddToKeychain")
        #expect(try kc.add(certificate).status == errSecDuplicateItem, "SecCertificateAddToKeychain twice")
        let certificate2 = AppleRef.addCertificate(Array(AppleTestData.kc10KeybankCert))
        #expect(try kc.add(certificate2).status == errSecDuplicateItem, "SecCertificateAddToKeychain twice")
    }

    /// `kc-12-item-create-keypair.c` `kc_17_item_find_key`: an encryption key pair (public:
    /// encrypt, wrap; private: decrypt, unwrap, sensitive) and a signing pair (public: verify;
    /// private: sign, sensitive) are created; the private keys that decrypt and do not encrypt are
    /// exactly the encryption pair's; those that sign, exactly the signing pair's. Apple's keys are
    /// RSA-256, which openssl no longer makes (512 bits is its least): RSA-512 here. The key
    /// usages Apple gives are the keys' `can…` attributes, every other one false.
    @Test func kc12ItemCreateKeypair() throws {
        let kc = AppleCalls(try APIFixture())
        let keys = TestKeys()
        func add(_ pair: TestKeys.Made, publicUse: [String], privateUse: [String]) throws -> String? {
            _ = try addKey(kc, pair.publicKey, type: "rsa", keyClass: "public", usage: publicUse)
            return try addKey(
                kc, pair.privateKey, type: "rsa", keyClass: "private", usage: privateUse, extra: ["isSensitive": true])
        }
        let prvCrypt = try add(
            try keys.rsa("crypt", bits: 512), publicUse: ["canEncrypt", "canWrap"], privateUse: ["canDecrypt", "canUnwrap"])
        let prvSign = try add(try keys.rsa("sign", bits: 512), publicUse: ["canVerify"], privateUse: ["canSign"])

        let decrypt = try kc.copyMatching([
            "class": "key", "keyClass": "private", "canDecrypt": true, "canEncrypt": false, "matchLimit": "all",
            "returnPersistentRef": true,
        ])
        #expect(decrypt.status == errSecSuccess, "create key search")
        #expect(decrypt.items.count == 1, "get next key: errSecItemNotFound")
        #expect(decrypt.persistentRef == prvCrypt && prvCrypt != nil, "is key found the right one?")
        let sign = try kc.copyMatching([
            "class": "key", "keyClass": "private", "canSign": true, "matchLimit": "all", "returnPersistentRef": true,
        ])
        #expect(sign.status == errSecSuccess, "create private signing key search")
        #expect(sign.items.count == 1, "get next key: errSecItemNotFound")
        #expect(sign.persistentRef == prvSign && prvSign != nil, "is key found the right one?")
    }

    /// `kc-12-key-create-symmetric.c` `tests`: an AES-128 key (decrypt, encrypt, extractable) is
    /// generated in the keychain; the symmetric keys that encrypt are exactly one; every item of
    /// any kind is exactly one; a second AES-128 key is generated. SecKeyGenerate gives each key an
    /// application label of its own (Apple's helpers: "without setting this, it uses the current
    /// datetime"); the port gives each a label of its own too.
    @Test func kc12KeyCreateSymmetric() throws {
        let kc = AppleCalls(try APIFixture())
        let keys = TestKeys()
        let first = try addKey(
            kc, try keys.symmetric("aes1", count: 16).privateKey, type: "aes", keyClass: "symmetric",
            usage: ["canEncrypt", "canDecrypt"],
            extra: ["applicationLabel": data("kc-12 key 1")])
        #expect(first != nil, "SecKeyGenerate")
        let encrypting = try kc.copyMatching(["class": "key", "keyClass": "symmetric", "canEncrypt": true, "matchLimit": "all"])
        #expect(encrypting.status == errSecSuccess, "create symmetric encryption key search")
        #expect(encrypting.items.count == 1, "copy next returns no more keys")
        let any = try kc.copyMatching(["matchLimit": "all"])
        #expect(any.status == errSecSuccess, "create any item search")
        #expect(any.items.count == 1, "copy next returns no more keys")
        let second = try addKey(
            kc, try keys.symmetric("aes2", count: 16).privateKey, type: "aes", keyClass: "symmetric",
            usage: ["canEncrypt", "canDecrypt"],
            extra: ["applicationLabel": data("kc-12 key 2")])
        #expect(second != nil, "SecKeyGenerate and get key")
    }

    /// `kc-15-key-update-valueref.c` `TestUpdateItems` (rdar://10358577: SecItemUpdate by
    /// kSecValueRef updated the wrong item): in the populated keychain an AES-128 key (label "Test
    /// Key (date)", application label Apple's UUID, tag `SecItemUpdate`) and an RSA-1024 pair
    /// labelled "iMessage test key" are created; one private key has that label, none the new
    /// one; the update of the private key's ref to label "iMessage test PRIVATE key" succeeds; then
    /// no private key has the old label and one the new. Left out: SecAccessCreate (no per-item
    /// ACLs).
    @Test func kc15KeyUpdateValueref() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        let keys = TestKeys()
        let symmetric = try kc.add(
            AppleRef.addKey(try keys.symmetric("aes", count: 16).privateKey, type: "aes", keyClass: "symmetric").merging([
                "label": .string("Test Key (\(Self.today))"), "applicationLabel": data("550e8400-e29b-41d4-a716-446655441234"),
                "applicationTag": data("SecItemUpdate"), "isPermanent": true, "canEncrypt": true, "canDecrypt": true,
                "canWrap": false, "canUnwrap": false,
            ]))
        #expect(symmetric.status == errSecSuccess, "CreateSymmetricKey: \(symmetric)")
        let keyLabel = "iMessage test key"
        let newLabel = "iMessage test PRIVATE key"
        let pair = try keys.rsa("imessage", bits: 1024)
        for (bytes, keyClass) in [(pair.publicKey, "public"), (pair.privateKey, "private")] {
            let added = try kc.add(AppleRef.addKey(bytes, type: "rsa", keyClass: keyClass).merging(["label": .string(keyLabel)]))
            #expect(added.status == errSecSuccess, "SecKeyGeneratePair: \(added)")
        }
        try checkN(kc, ["class": "key", "keyClass": "private", "label": .string(keyLabel)], 1)
        try checkN(kc, ["class": "key", "keyClass": "private", "label": .string(newLabel)], 0)
        let query = try AppleRef.key(pair.privateKey, type: "rsa", keyClass: "private")
        #expect(try kc.update(query, ["label": .string(newLabel)]).status == errSecSuccess, "SecItemUpdate")
        try checkN(kc, ["class": "key", "keyClass": "private", "label": .string(keyLabel)], 0)
        try checkN(kc, ["class": "key", "keyClass": "private", "label": .string(newLabel)], 1)
    }

    /// `kc-18-find-combined.c` `kc_18_find_combined`, the certificate, identity and key parts that
    /// KeychainFileRegressions.kc18FindCombined leaves out. `TestAddItems`: the three-certificate
    /// chain Test-5685316 (ROOT, INTERMEDIATE, LEAF), the S/MIME encryption certificate and the
    /// Code Signing certificate are added, and four PKCS#12 identities imported (Test SSL User,
    /// Test-SignOnly (S/MIME), Test Identity SSL 2007, Test Identity SMIME 2007; password "test").
    /// `TestSymmetricKeyLookup`: an AES-128 key (label "Test AES Encryption Key", application
    /// label Apple's UUID) is not found, created, found; one labelled with today's date and tagged
    /// `SecItemFind` likewise; creating that one again is errSecDuplicateItem.
    /// `TestCertificateLookup`: by label (LEAF: exactly 1); by e-mail address
    /// (security-dev@group.apple.com, as ref and as attributes); by subject containing,
    /// starting with, ending with or wholly being a name (found, or errSecItemNotFound for a name
    /// that is not there, not at the start, not at the end, or only part of one); by subject and
    /// validity on 2010-07-20 (at least 2), 1984-07-20 and 2034-07-20 (none).
    /// `TestIdentityLookup`: by subject containing "Test SSL User" (exactly 1), a certificate's name
    /// without a key, or "myxlpytk" (none); by subject and validity (2016-07-20: at least 1;
    /// 1984, 2034: none; " 2007" on 2007-12-20: found; " 2007" now: none).
    /// `TestUpdateItems`: an RSA-1024 pair labelled "AppleID 8658820 test key" is created and its
    /// private key's label updated, by its ref, to "AppleID 8658820 test PRIVATE key".
    /// `TestDeleteItems` (`FindAndDeleteItemsByName`): each name's certificates or identities
    /// (subject starting with it) or keys (label) are found, deleted by the same query, and found
    /// no more: the 3 Test-5685316 certificates, the 2 "Test Identity S…" identities, the
    /// SignOnly identity, the Encryption and Code Signing certificates, the two AES keys and
    /// the two keys of the pair.
    /// The legacy SecCertificateAddToKeychain labels a certificate with its subject's common name
    /// (SecCertificateInferLabel): the port says so in the add.
    /// Intended difference: a delete takes no match key (docs/semantics.md §3: in a delete, any match key
    /// but `matchLimit: "all"` is errSecParam), so the certificates and identities found by subject
    /// are deleted with the same query's `matchSubjectStartsWith` refused (errSecParam), then by
    /// their persistent refs (with `class: identity` for an identity: docs/certificates-keys-identities.md, Identities).
    /// Left out: `kSecMatchPolicy` searches (SSL, S/MIME, Code Signing policies: trust evaluation,
    /// which keychaind does not do), identity and certificate preferences
    /// (`TestPreferredIdentityLookup`, `TestPreferredCertificateLookup`), SecAccessCreate.
    @Test func kc18FindCombinedCertificatesIdentitiesKeys() throws {
        let kc = AppleCalls(try APIFixture())
        // TestAddItems
        for (der, name) in [
            (AppleTestData.kc18LeafCert, "Test-5685316-LEAF"), (AppleTestData.kc18IntermediateCert, "Test-5685316-INTERMEDIATE"),
            (AppleTestData.kc18RootCert, "Test-5685316-ROOT"),
            (AppleTestData.kc18SMIMEEncryptOnlyCert, "Test-Encryption (S/MIME)"),
            (AppleTestData.kc18CodesignCert, "Test-7875801 (Code Signing)"),
        ] {
            let added = try kc.add(AppleRef.addCertificate(der).merging(["label": .string(name)]))
            #expect(added.status == errSecSuccess, "Unable to add \(name) certificate: \(added)")
        }
        for (p12, name) in [
            (AppleTestData.kc18SSLUserP12, "test SSL identity"), (AppleTestData.kc18SMIMESignOnlyP12, "test S/MIME identity"),
            (AppleTestData.kc18IDSSL2007P12, "TestIDSSL2007_p12 identity"),
            (AppleTestData.kc18IDSMIME2007P12, "TestIDSMIME2007_p12 identity"),
        ] {
            let imported = try kc.importPKCS12(p12, password: "test")
            #expect(imported.status == errSecSuccess, "Unable to import \(name): \(imported)")
        }

        // TestSymmetricKeyLookup
        let keys = TestKeys()
        let uuid = data("550e8400-e29b-41d4-a716-446655441234")
        let dateLabel = "Test Key (\(Self.today))"
        func findSymmetricKey(label: String) throws -> Int64 {
            try kc.copyMatching([
                "class": "key", "keyClass": "symmetric", "matchLimit": "one", "returnRef": true, "returnAttributes": true,
                "label": .string(label), "applicationLabel": uuid,
            ]).status
        }
        func createSymmetricKey(label: String, tag: String?, _ n: Int) throws -> Int64 {
            var extra: JSONObject = ["label": .string(label), "applicationLabel": uuid, "isPermanent": true]
            if let tag { extra["applicationTag"] = data(tag) }
            let bytes = try keys.symmetric("g18-\(n)", count: 16).privateKey
            return try kc.add(
                AppleRef.addKey(bytes, type: "aes", keyClass: "symmetric").merging(extra).merging([
                    "canEncrypt": true, "canDecrypt": true, "canWrap": false, "canUnwrap": false,
                ])
            ).status
        }
        #expect(try findSymmetricKey(label: "Test AES Encryption Key") == errSecItemNotFound, "FindSymmetricKey")
        #expect(try createSymmetricKey(label: "Test AES Encryption Key", tag: nil, 1) == errSecSuccess, "CreateSymmetricKey")
        #expect(try findSymmetricKey(label: "Test AES Encryption Key") == errSecSuccess, "FindSymmetricKey")
        #expect(try findSymmetricKey(label: dateLabel) == errSecItemNotFound, "FindSymmetricKey")
        #expect(try createSymmetricKey(label: dateLabel, tag: "SecItemFind", 2) == errSecSuccess, "CreateSymmetricKey")
        #expect(try findSymmetricKey(label: dateLabel) == errSecSuccess, "FindSymmetricKey")
        #expect(
            try createSymmetricKey(label: dateLabel, tag: "SecItemFind", 3) == errSecDuplicateItem,
            "CreateSymmetricKey (duplicate)")

        // TestCertificateLookup
        func certificates(_ query: JSONObject, _ expected: Int64, atLeast: Int, atMost: Int = .max, _ what: String) throws {
            let found = try kc.copyMatching(query.merging(["class": "certificate"]))
            #expect(found.status == expected, "\(what): \(found)")
            if expected == errSecSuccess {
                #expect((atLeast...atMost).contains(found.items.count), "CheckResults: \(what): \(found.items.count)")
            }
        }
        try certificates(
            ["label": "Test-5685316-LEAF", "returnRef": true, "matchLimit": "all"], errSecSuccess, atLeast: 1, atMost: 1,
            "FindCertificateByLabel")
        for returnKey in ["returnRef", "returnAttributes"] {
            try certificates(
                ["matchEmailAddressIfPresent": "security-dev@group.apple.com", returnKey: true, "matchLimit": "one"],
                errSecSuccess,
                atLeast: 0, "FindCertificateByEmail")
        }
        try certificates(
            ["matchSubjectContains": "Test-5685316", "returnRef": true, "matchLimit": "all"], errSecSuccess, atLeast: 3,
            "contains")
        try certificates(
            ["matchSubjectContains": "myxlpytk", "returnRef": true, "matchLimit": "one"], errSecItemNotFound, atLeast: 0,
            "contains")
        try certificates(
            ["matchSubjectContains": "Test-5685316", "returnData": true, "matchLimit": "all"], errSecSuccess, atLeast: 2,
            "contains")
        try certificates(
            ["matchSubjectContains": "Test-5685316", "returnAttributes": true, "matchLimit": "all"], errSecSuccess, atLeast: 2,
            "contains")
        try certificates(
            ["matchSubjectStartsWith": "Test-568", "returnRef": true, "matchLimit": "all"], errSecSuccess, atLeast: 3, "starts")
        try certificates(
            ["matchSubjectStartsWith": "5685316", "returnRef": true, "matchLimit": "one"], errSecItemNotFound, atLeast: 0,
            "starts")
        try certificates(
            ["matchSubjectEndsWith": "LEAF", "returnRef": true, "matchLimit": "all"], errSecSuccess, atLeast: 1, "ends")
        try certificates(
            ["matchSubjectEndsWith": "Test-", "returnRef": true, "matchLimit": "one"], errSecItemNotFound, atLeast: 0, "ends")
        try certificates(
            ["matchSubjectWholeString": "Test-5685316-LEAF", "returnRef": true, "matchLimit": "one"], errSecSuccess, atLeast: 1,
            "whole")
        try certificates(
            ["matchSubjectWholeString": "Test-568", "returnRef": true, "matchLimit": "one"], errSecItemNotFound, atLeast: 0,
            "whole")
        for (date, expected) in [
            ("2010-07-20T12:00:00Z", errSecSuccess), ("1984-07-20T12:00:00Z", errSecItemNotFound),
            ("2034-07-20T12:00:00Z", errSecItemNotFound),
        ] {
            try certificates(
                ["matchSubjectContains": "Test-", "matchValidOnDate": .string(date), "returnRef": true, "matchLimit": "all"],
                expected,
                atLeast: 2, "FindCertificateByNameAndValidDate \(date)")
        }

        // TestIdentityLookup
        func identities(_ query: JSONObject, _ expected: Int64, atLeast: Int, atMost: Int = .max, _ what: String) throws {
            let found = try kc.copyMatching(query.merging(["class": "identity", "returnRef": true]))
            #expect(found.status == expected, "\(what): \(found)")
            if expected == errSecSuccess {
                #expect((atLeast...atMost).contains(found.items.count), "CheckResults: \(what): \(found.items.count)")
            }
        }
        try identities(
            ["matchSubjectContains": "Test SSL User", "matchLimit": "one"], errSecSuccess, atLeast: 1, atMost: 1,
            "FindIdentityByName")
        try identities(
            ["matchSubjectContains": "Test-5685316-LEAF", "matchLimit": "one"], errSecItemNotFound, atLeast: 0,
            "FindIdentityByName")
        try identities(
            ["matchSubjectContains": "myxlpytk", "matchLimit": "one"], errSecItemNotFound, atLeast: 0, "FindIdentityByName")
        let validity: [(String, JSON, Int64, Int)] = [
            ("Test SSL User", "2016-07-20T12:00:00Z", errSecSuccess, 1),
            ("Test SSL User", "1984-07-20T12:00:00Z", errSecItemNotFound, 0),
            ("Test SSL User", "2034-07-20T12:00:00Z", errSecItemNotFound, 0), (" 2007", "2007-12-20T12:00:00Z", errSecSuccess, 0),
            (" 2007", .null, errSecItemNotFound, 0),
        ]
        for (name, date, expected, atLeast) in validity {
            try identities(
                ["matchSubjectContains": .string(name), "matchValidOnDate": date, "matchLimit": "all"], expected,
                atLeast: atLeast,
                "FindIdentityByNameAndValidDate \(name) \(date)")
        }

        // TestUpdateItems
        let pair = try keys.rsa("appleid", bits: 1024)
        for (bytes, keyClass) in [(pair.publicKey, "public"), (pair.privateKey, "private")] {
            let added = try kc.add(
                AppleRef.addKey(bytes, type: "rsa", keyClass: keyClass).merging(["label": "AppleID 8658820 test key"]))
            #expect(added.status == errSecSuccess, "TestUpdateItems: generating key pair")
        }
        let updated = try kc.update(
            try AppleRef.key(pair.privateKey, type: "rsa", keyClass: "private"), ["label": "AppleID 8658820 test PRIVATE key"])
        #expect(updated.status == errSecSuccess, "TestUpdateItems: updating item")

        // TestDeleteItems
        for (name, itemClass, count) in [
            ("Test-5685316-", "certificate", 3), ("Test Identity S", "identity", 2), ("Test-SignOnly (S/MIME)", "identity", 1),
            ("Test-Encryption (S/MIME)", "certificate", 1), ("Test-7875801 (Code Signing)", "certificate", 1),
        ] {
            let query: JSONObject = ["class": .string(itemClass), "matchSubjectStartsWith": .string(name), "matchLimit": "all"]
            let found = try kc.copyMatching(query.merging(["returnPersistentRef": true]))
            #expect(found.status == errSecSuccess, "FindAndDeleteItemsByName: SecItemCopyMatching \(name)")
            #expect(found.items.count >= count, "CheckResults: \(name)")
            #expect(
                try kc.delete(query).status == errSecParam,
                "intended difference: FindAndDeleteItemsByName: deleting items \(name)")
            for item in found.items {
                let ref = JSON.string(item["persistentRef"]?.stringValue ?? "")
                let deleted = try kc.delete(
                    itemClass == "identity" ? ["class": "identity", "valuePersistentRef": ref] : ["valuePersistentRef": ref])
                #expect(deleted.status == errSecSuccess, "deleting \(name) by its persistent ref: \(deleted)")
            }
            #expect(
                try kc.copyMatching(query).status == errSecItemNotFound, "FindAndDeleteItemsByName: find after delete \(name)")
        }
        for label in ["Test AES Encryption Key", dateLabel, "AppleID 8658820 test key", "AppleID 8658820 test PRIVATE key"] {
            let query: JSONObject = ["class": "key", "label": .string(label), "matchLimit": "all"]
            #expect(try kc.copyMatching(query).items.count == 1, "FindAndDeleteItemsByName: SecItemCopyMatching \(label)")
            #expect(try kc.delete(query).status == errSecSuccess, "FindAndDeleteItemsByName: deleting items \(label)")
            #expect(
                try kc.copyMatching(query).status == errSecItemNotFound, "FindAndDeleteItemsByName: find after delete \(label)")
        }
    }

    /// `kc-20-identity-find-stress.c` `tests`: the populated keychain's first identity gives its
    /// certificate and private key; then 7,000 blocks, 64 at a time, each find the identity of that
    /// certificate (SecIdentityCreateWithCertificate: the identity search by the certificate's
    /// ref) and its private key. Scaled down: 640 blocks, 64 at a time.
    @Test func kc20IdentityFindStress() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc, identity: true)
        let identity = try copyFirstIdentity(kc)
        let cert = try #require(certificate(of: identity), "SecIdentityCopyCertificate")
        #expect(keyBytes(of: identity) != nil, "SecIdentityCopyPrivateKey")
        let query = try AppleRef.certificate(cert).merging(["class": "identity", "returnRef": true])
        let found = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            for _ in 0..<10 {
                guard let answer = try? kc.copyMatching(query), answer.status == errSecSuccess, keyBytes(of: answer) != nil else {
                    continue
                }
                found.add(1, ordering: .relaxed)
            }
        }
        #expect(found.load(ordering: .relaxed) == 640, "SecIdentityCreateWithCertificate, SecIdentityCopyPrivateKey")
    }

    /// `kc-20-identity-key-attributes.c` `tests`: the populated keychain's first identity gives
    /// its private key, whose attributes are found by its ref (`PrintPrivateKeyAttributes`, which
    /// Apple only prints: here they are checked to be the private key's).
    @Test func kc20IdentityKeyAttributes() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc, identity: true)
        let identity = try copyFirstIdentity(kc)
        let key = try #require(keyBytes(of: identity), "SecIdentityCopyPrivateKey")
        let type = try #require(identity.valueRef?["keyType"]?.stringValue)
        let found = try kc.copyMatching(
            try AppleRef.key(key, type: type, keyClass: "private").merging(["returnAttributes": true]))
        #expect(found.status == errSecSuccess, "SecItemCopyMatching")
        #expect(found.attributes?["class"] == "key" && found.attributes?["keyClass"] == "private")
    }

    /// `kc-20-identity-persistent-refs.c`: `testCertificatePersistence`: the first identity's
    /// certificate gives a persistent ref (its ref searched with `returnPersistentRef`), which
    /// gives back (with `returnRef`) a certificate equal to it; `testIdentityPersistence`: the
    /// first identity gives a persistent ref, which gives back an identity equal to it.
    /// Intended difference: an identity's persistent ref is its certificate's and names the
    /// identity with `class: identity` (docs/certificates-keys-identities.md, Identities), which the second lookup carries.
    @Test func kc20IdentityPersistentRefs() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc, identity: true)

        let identity = try copyFirstIdentity(kc)
        let cert = try #require(certificate(of: identity), "No certificate returned from SecIdentityCopyCertificate")
        let certRef = try kc.copyMatching(try AppleRef.certificate(cert).merging(["returnPersistentRef": true]))
        #expect(certRef.status == errSecSuccess, "SecItemCopyMatching (copyPersistentReferenceForItem)")
        let cert2 = try kc.copyMatching(["returnRef": true, "valuePersistentRef": .string(certRef.persistentRef ?? "")])
        #expect(cert2.status == errSecSuccess, "SecItemCopyMatching (copyItemForPersistentReference)")
        #expect(certificate(of: cert2) == cert && keyBytes(of: cert2) == nil, "Certificates are equal")

        let identityRef = try kc.copyMatching(
            try AppleRef.identity(certificate: cert).merging(["returnPersistentRef": true]))
        #expect(identityRef.status == errSecSuccess, "SecItemCopyMatching (copyPersistentReferenceForItem)")
        let identity2 = try kc.copyMatching([
            "class": "identity", "returnRef": true, "valuePersistentRef": .string(identityRef.persistentRef ?? ""),
        ])
        #expect(identity2.status == errSecSuccess, "SecItemCopyMatching (copyItemForPersistentReference)")
        #expect(identity2.valueRef == identity.valueRef && keyBytes(of: identity2) != nil, "identities are equal")
    }

    /// `kc-20-key-find-stress.c` `tests`: 7,000 searches for one symmetric key of the populated
    /// keychain, 64 at a time, all succeed. Scaled down: 640 searches, 64 at a time.
    @Test func kc20KeyFindStress() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        let query: JSONObject = ["class": "key", "keyClass": "symmetric", "matchLimit": "one"]
        let found = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            for _ in 0..<10 where (try? kc.copyMatching(query).status) == errSecSuccess {
                found.add(1, ordering: .relaxed)
            }
        }
        #expect(found.load(ordering: .relaxed) == 640, "SecItemCopyMatching")
    }

    /// `kc-23-key-export-symmetric.m`: an extractable, permanent AES-256 key (its label and
    /// application label "Symmetric Cryptotest …") is generated in the populated keychain and
    /// exported raw (SecItemExport, kSecFormatRawKey): 32 bytes. keychaind's raw export of a key
    /// is its data (`returnData`: the key's bytes, docs/certificates-keys-identities.md, Keys).
    @Test func kc23KeyExportSymmetric() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        let label = "Symmetric Cryptotest \(Int(Date().timeIntervalSince1970)) \(UInt32.random(in: 0...UInt32.max))"
        let key = try TestKeys().symmetric("aes256", count: 32).privateKey
        let added = try kc.add(
            AppleRef.addKey(key, type: "aes", keyClass: "symmetric").merging([
                "applicationLabel": data(label), "label": .string(label), "isExtractable": true, "isPermanent": true,
            ]))
        #expect(added.status == errSecSuccess, "SecKeyGenerateSymmetric: \(added)")
        let exported = try kc.copyMatching(["class": "key", "label": .string(label), "returnData": true])
        #expect(exported.status == errSecSuccess, "SecItemExport")
        #expect(exported.dataBytes?.count == 32, "wrong AES-256 key size")
        #expect(exported.dataBytes == key)
    }

    /// `kc-26-key-import-public.m` `testPubKeyImportWithModulusAndExponent`: an RSA-1024 public
    /// key, Apple's modulus and exponent 65537 wrapped as PKCS#1 DER, is imported into the
    /// populated keychain (SecItemImport, kSecFormatBSAFE, kSecItemTypePublicKey). keychaind imports
    /// it as PEM `RSA PUBLIC KEY` (docs/certificates-keys-identities.md, PEM and PKCS#12), the same DER.
    @Test func kc26KeyImportPublic() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        let modulus = derItem(0x02, AppleTestData.kc26PublicKeyModulus)
        let pkcs1 = derItem(0x30, modulus + derItem(0x02, [0x01, 0x00, 0x01]))
        let text = Base64.encode(pkcs1)
        let lines = stride(from: 0, to: text.count, by: 64).map { start in String(text.dropFirst(start).prefix(64)) }
        let pem = "-----BEGIN RSA PUBLIC KEY-----\n" + lines.joined(separator: "\n") + "\n-----END RSA PUBLIC KEY-----\n"
        let imported = try kc.importPEM(pem)
        #expect(imported.status == errSecSuccess, "SecItemImport: \(imported)")
        #expect(imported.attributes?["keyClass"] == "public" && imported.attributes?["keySizeInBits"] == 1024)
    }

    /// `kc-27-key-non-extractable.c` `testExtractable`, three cases: an RSA-1024 pair labelled
    /// test-extractable-YES, generated extractable (explicitly, then implicitly), and one labelled
    /// test-extractable-NO, generated not extractable; the private key is marked as asked; its
    /// export (wrapped PKCS#8, then PKCS#12) succeeds when it is extractable and is
    /// errSecDataNotAvailable when not; both keys are deleted by their refs. keychaind's export of a
    /// key is its PEM (`Accept: application/x-pem-file`, docs/certificates-keys-identities.md, PEM and PKCS#12).
    /// Intended difference: a key that is not extractable has no PEM, 400 errSecParam naming
    /// `Accept` (docs/certificates-keys-identities.md, Non-extractable keys), where Apple answers
    /// errSecDataNotAvailable.
    @Test func kc27KeyNonExtractable() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        let keys = TestKeys()
        for (extractable, explicit) in [(true, true), (false, true), (true, false)] {
            let label = JSON.string(extractable ? "test-extractable-YES" : "test-extractable-NO")
            let pair = try keys.rsa("extractable-\(extractable)-\(explicit)", bits: 1024)
            var attributes: JSONObject = ["label": label, "isPermanent": true]
            if explicit { attributes["isExtractable"] = .bool(extractable) }
            for (bytes, keyClass) in [(pair.publicKey, "public"), (pair.privateKey, "private")] {
                let added = try kc.add(AppleRef.addKey(bytes, type: "rsa", keyClass: keyClass).merging(attributes))
                #expect(added.status == errSecSuccess, "SecKeyGeneratePair: \(added)")
            }
            let privateQuery = try AppleRef.key(pair.privateKey, type: "rsa", keyClass: "private")
            let found = try kc.copyMatching(privateQuery.merging(["returnAttributes": true]))
            #expect(found.status == errSecSuccess, "SecKeyGetCSSMKey")
            #expect(
                found.attributes?["isExtractable"] == .bool(extractable),
                "check private key marked as \(extractable ? "" : "non-")extractable (as requested)")
            for format in ["PKCS8", "PKCS12"] {
                let exported = try kc.export(privateQuery)
                if extractable {
                    #expect(exported.status == errSecSuccess, "SecKeychainItemExport (\(format)): \(exported)")
                    #expect(exported.response.text.contains("-----BEGIN PRIVATE KEY-----"))
                } else {
                    #expect(
                        exported.status == errSecParam, "intended difference for errSecDataNotAvailable (\(format)): \(exported)")
                    #expect(exported.response.json["message"]?.stringValue?.contains("Accept") == true)
                }
            }
            for (bytes, keyClass) in [(pair.publicKey, "public"), (pair.privateKey, "private")] {
                let deleted = try kc.delete(try AppleRef.key(bytes, type: "rsa", keyClass: keyClass))
                #expect(deleted.status == errSecSuccess, "SecKeychainItemDelete")
            }
        }
    }

    /// `kc-28-p12-import.m` `kc_28_p12_import`, in part: `testP12Import` with an extractable key,
    /// through SecItemImport and then the deprecated SecKeychainItemImport (the same import here):
    /// the PKCS#12 `test_import` (password "password") imports one identity, whose key is a
    /// private key marked extractable; its items are deleted.
    /// The imported private key and certificate are labelled `test_import`, the PKCS#12's
    /// friendlyName, and each label finds exactly one item, as Apple checks.
    /// Left out: the two imports with the key not extractable (keychaind's import takes `accessGroup`,
    /// `accessible`, `synchronizable` and `label`, no extractability: docs/certificates-keys-identities.md, PEM and PKCS#12);
    /// identity preferences (SecIdentitySetPreferred).
    @Test func kc28P12Import() throws {
        let kc = AppleCalls(try APIFixture())
        try populate(kc)
        for api in ["SecItemImport", "SecKeychainItemImport"] {
            let imported = try kc.importPKCS12(AppleTestData.kc28ImportP12, password: "password")
            #expect(imported.status == errSecSuccess, "\(api): \(imported)")
            #expect(imported.items.count == 1, "One identity added")
            #expect(imported.attributes?["class"] == "identity")
            let ref = try #require(imported.persistentRef)
            let identity = try kc.copyMatching([
                "class": "identity", "valuePersistentRef": .string(ref), "returnAttributes": true,
            ])
            #expect(identity.status == errSecSuccess, "SecIdentityCopyPrivateKey")
            #expect(identity.attributes?["keyClass"] == "private", "key is private key")
            #expect(identity.attributes?["isExtractable"] == true, "key extractability matches expectations")
            for itemClass in ["key", "certificate"] {
                let labelled = try kc.copyMatching(["class": .string(itemClass), "label": "test_import", "matchLimit": "all"])
                #expect(labelled.items.count == 1, "one \(itemClass) labelled test_import: \(labelled)")
            }
            #expect(
                try kc.delete(["class": "identity", "valuePersistentRef": .string(ref)]).status == errSecSuccess, "deleteItems")
        }
    }

    /// `kc-40-seckey.m` `testkeygen` (1024, 2056 bits), `testkeygen2` (1024) and
    /// `testnonextractable` (1024), the keychain steps, as si-40's (CertificateKeyRegressions);
    /// macOS adds a generated key to the keychain at once, so only the iOS branch asserts the adds.
    /// `testnonextractable`: a permanent, non-extractable RSA-1024 pair labelled
    /// `sectests:nonextractable` has the application label on both keys, 20 bytes and equal
    /// (SecKeyCopyAttributes of the stored keys: their attributes), and both are deleted by their
    /// refs. The SecKey operations (signing, `testsupportedalgos`, `testcopypublickey`,
    /// `testsignverify`) are KeyOperationRegressions' (kc40…). Left out: `testcreatewithdata`,
    /// `testcopyattributes`, `testkeyderivation` (PBKDF2 vectors) and `testcopypubkfromcert`
    /// (SecKey and SecCertificate calls, no keychain).
    @Test func kc40SecKey() throws {
        let kc = AppleCalls(try APIFixture())
        let keys = TestKeys()
        for bits in [1024, 2056] {
            try CertificateKeyRegressions.keygen(
                kc, try keys.rsa("rsa\(bits)", bits: bits), type: "rsa", label: "\(bits) bit RSA")
        }
        try CertificateKeyRegressions.keygen2(kc, try keys.rsa("persistent", bits: 1024), type: "rsa", suffix: "40")

        let pair = try keys.rsa("nonextractable", bits: 1024)
        var labels: [JSON] = []
        for (bytes, keyClass) in [(pair.privateKey, "private"), (pair.publicKey, "public")] {
            let added = try kc.add(
                AppleRef.addKey(bytes, type: "rsa", keyClass: keyClass).merging([
                    "isPermanent": true, "isExtractable": false, "label": "sectests:nonextractable", "returnAttributes": true,
                ]))
            #expect(added.status == errSecSuccess, "Generate 1024 bit RSA keypair: \(added)")
            let applicationLabel = added.attributes?["applicationLabel"]
            #expect(
                applicationLabel?.stringValue.flatMap(Base64.decode)?.count == 20,
                "\(keyClass) appLabel is present and of correct type")
            labels.append(applicationLabel ?? .null)
        }
        #expect(labels.count == 2 && labels[0] == labels[1], "applabels of pub and priv keys are equal")
        for (bytes, keyClass) in [(pair.publicKey, "public"), (pair.privateKey, "private")] {
            #expect(try kc.delete(try AppleRef.key(bytes, type: "rsa", keyClass: keyClass)).status == errSecSuccess, "delete_key")
        }
    }

    /// `kc-41-sececkey.m` `testkeygen` and `testkeygen2` (192, 256, 384 and 521 bits on macOS),
    /// the keychain steps, as si-41's (CertificateKeyRegressions), with its intended difference: a
    /// P-192 key is errSecUnknownFormat (docs/certificates-keys-identities.md, Keys: EC on P-256, P-384, P-521).
    /// The SecKey operations (signing, `testsignformat`, `testkeygen3`, `testkeyexchange`) are
    /// KeyOperationRegressions' (kc41…).
    @Test func kc41SecECKey() throws {
        let kc = AppleCalls(try APIFixture())
        let keys = TestKeys()
        let p192 = try keys.ec("P-192", curve: "P-192")
        for (bytes, keyClass) in [(p192.privateKey, "private"), (p192.publicKey, "public")] {
            let added = try kc.add(AppleRef.addKey(bytes, type: "ec", keyClass: keyClass))
            #expect(added.status == errSecUnknownFormat, "intended difference: add P-192 \(keyClass) key: \(added)")
        }
        for curve in ["P-256", "P-384", "P-521"] {
            try CertificateKeyRegressions.keygen(kc, try keys.ec(curve, curve: curve), type: "ec", label: "\(curve) EC")
            try CertificateKeyRegressions.keygen2(kc, try keys.ec("persistent-\(curve)", curve: curve), type: "ec", suffix: "41")
        }
    }

    /// `kc-43-seckey-interop.m`, the keychain tests. `test_generate_nolegacy`: a permanent RSA-1024
    /// pair labelled `sectests:generate-no-legacy` in the data-protection keychain; its public and
    /// its private key are each found twice by label and key class with `returnRef`, and are the
    /// generated keys; every key of the label is deleted and no more found. `test_add_ios_key`: a
    /// generated private key is added by its ref labelled `sectests:add-ios-key`, found by label as
    /// itself, deleted by label and gone. `test_store_cert_to_ios`: Apple's certificate
    /// (sun.cosmos.god) is added by its ref, labelled, with `returnPersistentRef`; found by class
    /// and label with `returnRef`, the same certificate; deleted by the persistent ref.
    /// `test_store_identity_to_ios`: that certificate with its RSA-2048 key, as an identity, the
    /// same way. `test_convert_key_to_persistent_ref`, `…_cert_…`, `…_identity_…`: a key, the
    /// certificate, the identity added labelled; the ref's persistent ref found
    /// (`returnPersistentRef`), and it finds (`returnRef`) the same object; every item of the label
    /// (the identity: its ref) deleted and gone.
    /// Intended differences: an identity's persistent ref is its certificate's and names the
    /// identity with `class: identity` (docs/certificates-keys-identities.md, Identities), which the port's lookups and
    /// deletes by it carry. Apple's certificate data (`certDataBase64`) ends with one zero byte
    /// after the certificate, which SecCertificateCreateWithData ignores; keychaind takes exactly
    /// one certificate, no trailing bytes (docs/certificates-keys-identities.md), so that data is errSecUnknownFormat
    /// naming `valueData`, and the port sends the certificate without its trailing byte.
    /// Left out: `test_generate_access_control` (SecAccessControl: keychaind has none),
    /// `test_transform_with_ioskey` (SecTransform), `test_cssm_from_ios_key` (CSSM keys), and the
    /// legacy SecKeychainItemCreatePersistentReference / SecKeychainItemCopyFromPersistentReference
    /// comparisons of the convert tests (the file keychain's own refs).
    @Test func kc43SecKeyInterop() throws {
        let kc = AppleCalls(try APIFixture())
        let keys = TestKeys()
        let cert = kc43Certificate
        let certKey = AppleTestData.kc43Key
        let asGiven = try kc.add(AppleRef.addCertificate(AppleTestData.kc43Cert))
        #expect(
            asGiven.status == errSecUnknownFormat,
            "intended difference: the certificate's data with its trailing byte: \(asGiven)")

        // test_generate_nolegacy
        let pair = try keys.rsa("nolegacy", bits: 1024)
        let nolegacy: JSONObject = [
            "label": "sectests:generate-no-legacy", "isPermanent": true, "useDataProtectionKeychain": true,
        ]
        for (bytes, keyClass) in [(pair.publicKey, "public"), (pair.privateKey, "private")] {
            #expect(try kc.add(AppleRef.addKey(bytes, type: "rsa", keyClass: keyClass).merging(nolegacy)).status == errSecSuccess)
        }
        for _ in 0..<2 {
            for (bytes, keyClass) in [(pair.publicKey, "public"), (pair.privateKey, "private")] {
                let key = try kc.copyMatching([
                    "class": "key", "label": "sectests:generate-no-legacy", "keyClass": .string(keyClass),
                    "useDataProtectionKeychain": true, "returnRef": true,
                ])
                #expect(key.status == errSecSuccess)
                #expect(keyBytes(of: key) == bytes, "eq_cf(key, \(keyClass)Key)")
            }
        }
        let nolegacyAll: JSONObject = [
            "class": "key", "label": "sectests:generate-no-legacy", "matchLimit": "all", "useDataProtectionKeychain": true,
        ]
        #expect(try kc.delete(nolegacyAll).status == errSecSuccess)
        #expect(try kc.copyMatching(nolegacyAll).status == errSecItemNotFound)

        // test_add_ios_key
        let iosKey = try keys.rsa("ios", bits: 1024)
        #expect(
            try kc.add(
                AppleRef.addKey(iosKey.privateKey, type: "rsa", keyClass: "private").merging(["label": "sectests:add-ios-key"])
            ).status
                == errSecSuccess)
        let iosFound = try kc.copyMatching([
            "class": "key", "label": "sectests:add-ios-key", "useDataProtectionKeychain": true, "returnRef": true,
        ])
        #expect(iosFound.status == errSecSuccess)
        #expect(keyBytes(of: iosFound) == iosKey.privateKey, "eq_cf(key, privKey)")
        let iosAll: JSONObject = [
            "class": "key", "label": "sectests:add-ios-key", "matchLimit": "all", "useDataProtectionKeychain": true,
        ]
        #expect(try kc.delete(iosAll).status == errSecSuccess)
        #expect(try kc.copyMatching(iosAll).status == errSecItemNotFound)

        // test_store_cert_to_ios, test_store_identity_to_ios
        for (itemClass, add) in [
            ("certificate", AppleRef.addCertificate(cert)), ("identity", AppleRef.addIdentity(certificate: cert, key: certKey)),
        ] {
            let label = JSON.string("sectests:store_\(itemClass == "identity" ? "identity" : "cert")_to_ios")
            let stored = try kc.add(
                add.merging(["label": label, "useDataProtectionKeychain": true, "returnPersistentRef": true]))
            #expect(stored.status == errSecSuccess, "store \(itemClass) into iOS keychain: \(stored)")
            let queried = try kc.copyMatching(["class": .string(itemClass), "label": label, "returnRef": true])
            #expect(queried.status == errSecSuccess, "query \(itemClass) back")
            #expect(certificate(of: queried) == cert, "stored and retrieved \(itemClass)s are the same")
            #expect(
                itemClass == "certificate" || keyBytes(of: queried) == certKey, "stored and retrieved identities are identical")
            var byRef: JSONObject = ["valuePersistentRef": .string(stored.persistentRef ?? "")]
            if itemClass == "identity" { byRef["class"] = "identity" }
            #expect(try kc.delete(byRef).status == errSecSuccess, "delete \(itemClass) from keychain")
        }

        // test_convert_key_to_persistent_ref, test_convert_cert_to_persistent_ref, test_convert_identity_to_persistent_ref
        let convertKey = try keys.rsa("convert", bits: 1024)
        let converts: [(String, JSONObject, JSONObject)] = [
            (
                "key", AppleRef.addKey(convertKey.privateKey, type: "rsa", keyClass: "private"),
                try AppleRef.key(convertKey.privateKey, type: "rsa", keyClass: "private")
            ),
            ("cert", AppleRef.addCertificate(cert), try AppleRef.certificate(cert)),
            ("identity", AppleRef.addIdentity(certificate: cert, key: certKey), try AppleRef.identity(certificate: cert)),
        ]
        for (name, add, ref) in converts {
            let label = JSON.string("sectests:convert-\(name)-to-persistent-ref")
            #expect(
                try kc.add(add.merging(["label": label, "useDataProtectionKeychain": true])).status == errSecSuccess,
                "store \(name)")
            let persistent = try kc.copyMatching(ref.merging(["returnPersistentRef": true, "useDataProtectionKeychain": true]))
            #expect(persistent.status == errSecSuccess, "\(name): the ref's persistent ref")
            var byPersistent: JSONObject = [
                "valuePersistentRef": .string(persistent.persistentRef ?? ""), "returnRef": true,
                "useDataProtectionKeychain": true,
            ]
            if name == "identity" { byPersistent["class"] = "identity" }
            let queried = try kc.copyMatching(byPersistent)
            #expect(queried.status == errSecSuccess, "\(name): the persistent ref's object")
            switch name {
            case "key": #expect(keyBytes(of: queried) == convertKey.privateKey, "eq_cf(privKey, queriedKeyRef)")
            case "cert": #expect(certificate(of: queried) == cert && keyBytes(of: queried) == nil, "eq_cf(cert, queriedCertRef)")
            default: #expect(certificate(of: queried) == cert && keyBytes(of: queried) == certKey, "eq_cf(idnt, queriedIdntRef)")
            }
            let cleanup: JSONObject =
                name == "identity"
                ? ref.merging(["useDataProtectionKeychain": true])
                : ["class": name == "key" ? "key" : "certificate", "label": label, "matchLimit": "all"]
            #expect(try kc.delete(cleanup).status == errSecSuccess, "\(name): cleanup")
            #expect(try kc.copyMatching(cleanup).status == errSecItemNotFound, "\(name): gone")
        }
    }

    // MARK: kc-helpers.h, kc-key-helpers.h and kc-identity-helpers.h, as far as they apply

    /// Today as Apple's labels write it: `%4d-%02d-%02d`.
    static var today: String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

/// The certificates and keys of Apple's populated test keychain: its three certificates
/// (test_smime, test_codesigning, test_smime_certificate), and two AES-128 keys and two RSA-1024
/// key pairs made by openssl in place of its sealed ones; with `identity`, the kc-43 identity in
/// place of its two identities (see the suite's comment).
private func populate(_ kc: AppleCalls, identity: Bool = false) throws {
    for der in [AppleTestData.kcTestSMIME, AppleTestData.kcTestCodesigning, AppleTestData.kcTestSMIMECertificate] {
        let added = try kc.add(AppleRef.addCertificate(der))
        #expect(added.status == errSecSuccess, "populating: \(added)")
    }
    let keys = TestKeys()
    for n in 0..<2 {
        let aes = try kc.add(
            AppleRef.addKey(try keys.symmetric("populated-aes-\(n)", count: 16).privateKey, type: "aes", keyClass: "symmetric")
                .merging(["applicationLabel": data("populated symmetric key \(n)")]))
        #expect(aes.status == errSecSuccess, "populating: \(aes)")
        let pair = try keys.rsa("populated-rsa-\(n)", bits: 1024)
        for (bytes, keyClass) in [(pair.publicKey, "public"), (pair.privateKey, "private")] {
            let added = try kc.add(AppleRef.addKey(bytes, type: "rsa", keyClass: keyClass))
            #expect(added.status == errSecSuccess, "populating: \(added)")
        }
    }
    if identity {
        let added = try kc.add(AppleRef.addIdentity(certificate: kc43Certificate, key: AppleTestData.kc43Key))
        #expect(added.status == errSecSuccess, "populating: \(added)")
    }
}

/// kc-43's certificate as SecCertificateCreateWithData keeps it: its data without the one zero
/// byte after the certificate (docs/certificates-keys-identities.md, Certificates: no trailing bytes).
let kc43Certificate: [UInt8] = {
    precondition(AppleTestData.kc43Cert.last == 0 && AppleTestData.kc43Cert.count == 1095)
    return Array(AppleTestData.kc43Cert.dropLast())
}()

/// kc-05's searches of the populated keychain's keys and certificates (locked or not): 2 keys
/// of each class, 3 certificates, one of them wholly `test_codesigning`, with Apple's SHA-1.
private func findKeysAndCertificates(_ kc: AppleCalls) throws {
    try checkN(kc, ["class": "key", "keyClass": "symmetric"], 2)
    try checkN(kc, ["class": "key", "keyClass": "public"], 2)
    try checkN(kc, ["class": "key", "keyClass": "private"], 2)
    try checkN(kc, ["class": "certificate"], 3)
    let codesigning = try kc.copyMatching([
        "class": "certificate", "matchSubjectWholeString": "test_codesigning", "matchLimit": "all", "returnData": true,
    ])
    #expect(codesigning.items.count == 1, "checkN: 1 item")
    let expectedSHA1: [UInt8] = [
        0x94, 0xdf, 0x22, 0x4a, 0x4d, 0x49, 0x33, 0x27, 0x9e, 0xc5, 0x7e, 0x91, 0x95, 0xcc, 0xbd, 0x51, 0x3d, 0x59, 0xae, 0x34,
    ]
    #expect(try sha1(try #require(codesigning.dataBytes)) == expectedSHA1, "expected SHA1 of certificate does not match")
}

/// kc-identity-helpers.h `copyFirstIdentity`: every identity, with `returnRef`; the first.
private func copyFirstIdentity(_ kc: AppleCalls, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
    let found = try kc.copyMatching(
        ["class": "identity", "matchLimit": "all", "returnRef": true], sourceLocation: sourceLocation)
    #expect(found.status == errSecSuccess, "SecItemCopyMatching", sourceLocation: sourceLocation)
    return found
}

/// kc-helpers.h `checkN`: the query with `matchLimit: all` finds exactly `count` items.
private func checkN(_ kc: AppleCalls, _ query: JSONObject, _ count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws
{
    let found = try kc.copyMatching(query.merging(["matchLimit": "all"]), sourceLocation: sourceLocation)
    #expect(found.status == (count == 0 ? errSecItemNotFound : errSecSuccess), "\(found)", sourceLocation: sourceLocation)
    #expect(found.items.count == count, "checkN: \(count) items", sourceLocation: sourceLocation)
}

/// A key added with Apple's key usages: the `can…` attributes named in `usage` true, the others
/// false. Its persistent ref, or `nil` when the add failed.
private func addKey(
    _ kc: AppleCalls, _ bytes: [UInt8], type: String, keyClass: String, usage: [String], extra: JSONObject = [:]
) throws -> String? {
    var item = AppleRef.addKey(bytes, type: type, keyClass: keyClass).merging(extra)
    for flag in ["canEncrypt", "canDecrypt", "canDerive", "canSign", "canVerify", "canWrap", "canUnwrap"] {
        item[flag] = .bool(usage.contains(flag))
    }
    let added = try kc.add(item)
    #expect(added.status == errSecSuccess, "\(added)")
    return added.persistentRef
}

/// SHA-1 of `bytes`, by `openssl dgst -sha1`.
private func sha1(_ bytes: [UInt8]) throws -> [UInt8] {
    let tool = TestCertificates()
    let path = "\(tool.directory.path)/digest-input"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let line = try tool.openssl(["dgst", "-sha1", "-r", path])
    return try #require(TestCertificates.hexBytes(String(line.prefix(40))))
}

/// A DER item: `tag`, the length, `content`.
private func derItem(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    let count = content.count
    let length: [UInt8] =
        count < 0x80 ? [UInt8(count)] : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
    return [tag] + length + content
}

import Foundation
import KeychainX509
import TestSupport
import Testing

/// `OSX/sec/Security/Regressions/secitem/si-*` (Security-61901.0.87.0.1), the certificate, key and
/// identity tests, case by case. INVENTORY.md lists every program of that directory.
/// Apple's certificates, keys and PKCS#12 files are in AppleTestData.swift; keys Apple generates
/// with SecKeyGeneratePair are made by `openssl` here (TestKeys). How a SecCertificateRef, SecKeyRef
/// or SecIdentityRef is sent, added or named in a query: AppleRefs.swift. The SecKey operations
/// these programs also run (sign, verify, encrypt, decrypt, key exchange, SPKI round trips) are
/// left out: keychaind stores keys and does not use them yet.
@Suite struct CertificateKeyRegressions {
    /// si-05-add.c `tests`: SecItemAdd of a certificate in all its variants. Case 1: added, then
    /// a second add is errSecDuplicateItem, and the ref's delete removes it; case 1b: an add that
    /// asks for nothing returns nothing; case 2: `returnPersistentRef` gives a persistent ref, which
    /// finds the certificate's data (its DER); case 3: `returnRef` gives the certificate; case 4:
    /// `returnData` gives its DER; case 5: `returnAttributes` gives a dictionary with no data, no
    /// ref and no persistent ref, whose certificateType and certificateEncoding are numbers; case 6:
    /// all four at once, each as in cases 2–5, and the class; case 7: `applicationTag`, which
    /// certificates lack, is errSecNoSuchAttr on add and on delete; case 8: a synchronizable
    /// certificate is added and deleted. Every case ends with the delete of the ref.
    /// Intended difference (case 1b): an add that asks for nothing answers the item's attributes
    /// and persistent ref (docs/semantics.md §3: an add's return keys shape its answer as a search of the
    /// new item would, and §7: no return key returns attributes and `persistentRef`); a persistent ref
    /// is an opaque string, not CFData (docs/semantics.md §2).
    @Test func si05Add() throws {
        let kc = AppleCalls(try APIFixture())
        let cert = AppleTestData.si05MyCert
        let dict = AppleRef.addCertificate(cert)
        let ref = try AppleRef.certificate(cert)

        #expect(try kc.add(dict).status == errSecSuccess, "Case 1: add certificate NULL return pointer")
        #expect(try kc.add(dict).status == errSecDuplicateItem, "add certificate again")
        #expect(try kc.delete(ref).status == errSecSuccess, "delete certificate")

        let implicit = try kc.add(dict)
        #expect(implicit.status == errSecSuccess, "Case 1: add certificate dont ask for return type")
        #expect(
            implicit.items.first?.keys.sorted() == ["attributes", "persistentRef"],
            "intended difference for \"nothing returned\": attributes and persistentRef: \(implicit)")
        #expect(try kc.delete(ref).status == errSecSuccess, "delete certificate")

        let persistent = try kc.add(dict.merging(["returnPersistentRef": true]))
        #expect(persistent.status == errSecSuccess, "Case 2: add certificate ask for persistent ref")
        let persist = try #require(persistent.persistentRef, "persistent ref returned")
        try persistentRefIs(kc, persist, cert)
        #expect(try kc.delete(ref).status == errSecSuccess, "delete certificate")

        let withRef = try kc.add(dict.merging(["returnRef": true]))
        #expect(withRef.status == errSecSuccess, "Case 3: add certificate ask for ref to be returned explicitly")
        #expect(certificate(of: withRef) == cert, "certificate ref matches")
        #expect(try kc.delete(ref).status == errSecSuccess, "delete certificate")

        let withData = try kc.add(dict.merging(["returnData": true]))
        #expect(withData.status == errSecSuccess, "Case 4: add certificate ask for data to be returned explicitly")
        #expect(withData.dataBytes == cert, "certificate data matches")
        #expect(try kc.delete(ref).status == errSecSuccess, "delete certificate")

        let withAttributes = try kc.add(dict.merging(["returnAttributes": true]))
        #expect(withAttributes.status == errSecSuccess, "Case 5: add certificate ask for attributes to be returned explicitly")
        let row = try #require(withAttributes.items.first, "result is a dict")
        #expect(row["valueData"] == nil, "result has no data")
        #expect(row["valueRef"] == nil, "result has no ref")
        #expect(row["persistentRef"] == nil, "result has no persistent ref")
        #expect(withAttributes.attributes?["certificateType"]?.intValue != nil, "certificate type is a number")
        #expect(withAttributes.attributes?["certificateEncoding"]?.intValue != nil, "certificate encoding is a number")
        #expect(try kc.delete(ref).status == errSecSuccess, "delete certificate")

        let all = try kc.add(
            dict.merging(["returnData": true, "returnAttributes": true, "returnRef": true, "returnPersistentRef": true]))
        #expect(all.status == errSecSuccess, "Case 6: add certificate ask for attributes, data, ref and persistent ref")
        #expect(all.items.count == 1, "certificate handle returned")
        #expect(all.dataBytes == cert, "certificate data in dict matches")
        #expect(certificate(of: all) == cert, "certificate ref in dict matches")
        try persistentRefIs(kc, try #require(all.persistentRef), cert)
        #expect(all.attributes?["class"] == "certificate", "certificate class in dict matches")
        #expect(all.attributes?["certificateType"]?.intValue != nil, "certificate type is a number")
        #expect(all.attributes?["certificateEncoding"]?.intValue != nil, "certificate encoding is a number")
        #expect(try kc.delete(ref).status == errSecSuccess, "delete certificate")

        let tagData = base64(Array("funnytag".utf8))
        #expect(
            try kc.add(dict.merging(["applicationTag": tagData])).status == errSecNoSuchAttr,
            "Case 7: add certificate with bogus attribute returns errSecNoSuchAttr")
        #expect(
            try kc.delete(ref.merging(["applicationTag": tagData])).status == errSecNoSuchAttr,
            "delete certificate with bogus attribute returns errSecNoSuchAttr")

        #expect(
            try kc.add(dict.merging(["synchronizable": true])).status == errSecSuccess,
            "Case 7: add certificate with synchronizable attribute works")
        #expect(
            try kc.delete(ref.merging(["synchronizable": true])).status == errSecSuccess,
            "delete certificate with synchronizable attribute works")
    }

    /// si-12-item-stress.c `tests`, the items SecItemRegressions.si12ItemStress leaves out: items 2
    /// and 6 are keys, 3 and 7 certificates, made of primary-key attributes alone (`keyClass`
    /// "string-N", `applicationLabel` "data-N", numbers N; a certificate's issuer and serial number
    /// "data-N"), with no key and no certificate; Apple adds and deletes each, synchronizable then
    /// local, twice (securityd stores attributes as given).
    /// Intended difference: a certificate item is its DER and a key item its bytes, from which
    /// their attributes are derived (docs/certificates-keys-identities.md, Certificates: "a certificate add without `valueData`
    /// is errSecParam"; *Keys*: a key item needs its key, `keyClass` and `keyType`), so each add is
    /// errSecParam and stores nothing; a certificate's delete then finds nothing
    /// (errSecItemNotFound), and a key's is errSecParam too, "string-N" being no key class
    /// (docs/semantics.md §2: `keyClass` is one of `public`, `private`, `symmetric`).
    @Test func si12ItemStressKeysAndCertificates() throws {
        let kc = AppleCalls(try APIFixture())
        for num in [2, 3, 6, 7] {
            let text = JSON.string("string-\(num)")
            let bytes = data("data-\(num)")
            let number = JSON.int(Int64(num))
            let isKey = num % 4 == 2
            var item: JSONObject =
                isKey
                ? [
                    "class": "key", "keyClass": text, "applicationLabel": bytes, "applicationTag": bytes, "keyType": number,
                    "keySizeInBits": number, "effectiveKeySize": number,
                ]
                : ["class": "certificate", "certificateType": number, "issuer": bytes, "serialNumber": bytes]
            for sync in [true, false] {
                item["synchronizable"] = sync ? true : nil
                for step in ["add", "add again"] {
                    let added = try kc.add(item)
                    #expect(added.status == errSecParam, "intended difference: \(step) sync=\(sync) (item \(num)): \(added)")
                    let deleted = try kc.delete(item)
                    #expect(
                        deleted.status == (isKey ? errSecParam : errSecItemNotFound),
                        "intended difference: delete sync=\(sync) (item \(num)): \(deleted)")
                }
            }
        }
    }

    /// si-40-seckey.c `testkeygen` (768, 1024 and 2056 bits) and `testkeygen2` (768 bits), the
    /// keychain steps: a generated RSA private key is added by its ref and deleted by it, then the
    /// public key; a key pair generated permanent, each key labelled (a UUID then `-Public-40`,
    /// `-Private-40`), is found by its label with `returnRef` (the private key by its label and
    /// `canSign`), each ref being that key, and each key is deleted with the query that found it.
    /// SecKeyGeneratePair with `kSecAttrIsPermanent` adds both keys with their attributes; here
    /// openssl generates the pair and the port adds both. Left out: signing, verifying, encrypting
    /// and decrypting with the keys, `testsupportedalgos`, `testcreatewithdata`,
    /// `testcopyattributes`, `testcopypublickey`, `testsignverify` and `testspki` (SecKey
    /// operations on keys in memory, no keychain call).
    @Test func si40SecKey() throws {
        let kc = AppleCalls(try APIFixture())
        let keys = TestKeys()
        for bits in [768, 1024, 2056] {
            let pair = try keys.rsa("rsa\(bits)", bits: bits)
            try Self.keygen(kc, pair, type: "rsa", label: "\(bits) bit RSA")
        }
        try Self.keygen2(kc, try keys.rsa("persistent", bits: 768), type: "rsa", suffix: "40")
    }

    /// si-41-sececkey.c `testkeygen` and `testkeygen2` (192, 224, 256, 384 and 521 bits), the
    /// keychain steps, as si-40's for EC keys (labels ending `-Public-41`, `-Private-41`).
    /// Intended difference: keychaind keeps EC keys on P-256, P-384 and P-521 (docs/certificates-keys-identities.md, Keys:
    /// "ANSI X9.63 on P-256, P-384, P-521"); a P-192 or P-224 key is bytes that are no key of
    /// the type, errSecUnknownFormat naming `valueData`, and is not stored, where Apple adds it.
    /// The SecKey operations are KeyOperationRegressions' (si41…). Left out: key wrapping
    /// (`testkeywrap`), `testcreatewithdata`, `testcopyattributes`.
    @Test func si41SecECKey() throws {
        let kc = AppleCalls(try APIFixture())
        let keys = TestKeys()
        for curve in ["P-192", "P-224"] {
            let pair = try keys.ec(curve, curve: curve)
            for (bytes, keyClass) in [(pair.privateKey, "private"), (pair.publicKey, "public")] {
                let added = try kc.add(AppleRef.addKey(bytes, type: "ec", keyClass: keyClass))
                #expect(added.status == errSecUnknownFormat, "intended difference: add \(curve) \(keyClass) key: \(added)")
            }
        }
        for curve in ["P-256", "P-384", "P-521"] {
            try Self.keygen(kc, try keys.ec(curve, curve: curve), type: "ec", label: "\(curve) EC")
            try Self.keygen2(kc, try keys.ec("persistent-\(curve)", curve: curve), type: "ec", suffix: "41")
        }
    }

    /// si-42-identity.m `tests`: a certificate (uranusLeaf) and its RSA private key are added by
    /// their refs; the key is found by its application label (Apple's `_k1_digest`) with
    /// `returnRef` and is the key; the certificate by that digest as its public key hash, and is
    /// the certificate; the identity by the application label, and is the certificate with the
    /// key. The certificate and the key are deleted by their refs and are gone. An unrelated
    /// certificate (Apple Root CA) is added; the identity is added by its ref with
    /// `returnPersistentRef` and gives a persistent ref; added again it is errSecDuplicateItem
    /// with no persistent ref; found by its persistent ref with `returnRef`; the persistent refs
    /// of the identity, the key and the certificate are found by their refs; the identity is
    /// deleted by its ref and its persistent ref finds nothing; added back and deleted by its
    /// persistent ref, which then finds nothing. Added with label `zomg`: the identity, the
    /// certificate and the key are found by it; the key's label becomes `zzzomg` (update by the
    /// key's ref) and the identity is still found as `zomg` (its label is the certificate's);
    /// the certificate's becomes `zzzomg`: no identity `zomg`, one `zzzomg`; that identity is
    /// found by its certificate's normalized issuer and by Apple's issuer Name `DN`; it is
    /// deleted by the `zzzomg` query; the Apple Root CA is deleted by its ref.
    /// Intended differences: an identity's persistent ref is its certificate's, which alone names
    /// the certificate, so the identity is found and deleted by it with `class: identity`
    /// (docs/certificates-keys-identities.md, Identities: "`GET /v1/items/{ref}?class=identity` reads the identity, without the
    /// class the certificate"); the duplicate's error names the identity already there in its
    /// `persistentRef` (docs/semantics.md §5: errSecDuplicateItem carries the colliding
    /// item's `persistentRef`), while its answer carries no item.
    @Test func si42Identity() throws {
        let kc = AppleCalls(try APIFixture())
        let cert = AppleTestData.si42UranusLeaf
        let key = AppleTestData.si42UranusKey
        let digest = AppleTestData.si42UranusKeyDigest
        let certRef = try AppleRef.certificate(cert)
        let keyRef = try AppleRef.key(key, type: "rsa", keyClass: "private")
        let identityRef = try AppleRef.identity(certificate: cert)

        #expect(try kc.add(AppleRef.addCertificate(cert)).status == errSecSuccess, "add certificate")
        #expect(try kc.add(AppleRef.addKey(key, type: "rsa", keyClass: "private")).status == errSecSuccess, "add private key")

        let resultKey = try kc.copyMatching(["class": "key", "applicationLabel": base64(digest), "returnRef": true])
        #expect(resultKey.status == errSecSuccess, "lookup key")
        #expect(keyBytes(of: resultKey) == key, "keys match")
        let resultCert = try kc.copyMatching(["class": "certificate", "publicKeyHash": base64(digest), "returnRef": true])
        #expect(resultCert.status == errSecSuccess, "lookup certificate")
        #expect(certificate(of: resultCert) == cert, "certificates match")

        let resultIdentity = try kc.copyMatching(["class": "identity", "applicationLabel": base64(digest), "returnRef": true])
        #expect(resultIdentity.status == errSecSuccess, "lookup identity")
        #expect(resultIdentity.items.count == 1, "found identity?")
        #expect(keyBytes(of: resultIdentity) == key, "identities match")
        #expect(certificate(of: resultIdentity) == cert, "certificates match")

        #expect(try kc.delete(certRef).status == errSecSuccess, "delete certificate via ref")
        #expect(try kc.copyMatching(certRef).status == errSecItemNotFound, "verify certificate is gone")
        #expect(try kc.delete(keyRef).status == errSecSuccess, "delete key via ref")
        #expect(try kc.copyMatching(keyRef).status == errSecItemNotFound, "verify key is gone")

        let appleCA = AppleTestData.si42AppleRootCA
        #expect(
            try kc.add(AppleRef.addCertificate(appleCA)).status == errSecSuccess,
            "add apple ca certificate to offset key and cert rowid")

        let identityAdd = AppleRef.addIdentity(certificate: cert, key: key).merging(["returnPersistentRef": true])
        let added = try kc.add(identityAdd)
        #expect(added.status == errSecSuccess, "add identity ref: \(added)")
        var persist = try #require(added.persistentRef, "got back persistent ref")
        let again = try kc.add(identityAdd)
        #expect(again.status == errSecDuplicateItem, "fail to add identity ref again")
        #expect(again.items.isEmpty, "no persistent ref this time")
        #expect(
            again.response.json["persistentRef"] == .string(persist),
            "intended difference: the error names the identity already there")

        var persistFind: JSONObject = ["class": "identity", "returnRef": true, "valuePersistentRef": .string(persist)]
        let byPersist = try kc.copyMatching(persistFind)
        #expect(byPersist.status == errSecSuccess, "find identity by persistent ref: \(byPersist)")
        #expect(byPersist.items.count == 1, "results2 rc = 1")

        for (name, query) in [("identity", identityRef), ("key", keyRef), ("certificate", certRef)] {
            let found = try kc.copyMatching(query.merging(["returnPersistentRef": true]))
            #expect(found.status == errSecSuccess, "find persistent ref for \(name) ref")
            #expect(found.persistentRef?.isEmpty == false, "good persistent ref")
            #expect(found.items.count == 1, "results2 rc = 1")
        }

        #expect(try kc.delete(identityRef).status == errSecSuccess, "delete identity by identity ref")
        #expect(
            try kc.copyMatching(persistFind).status == errSecItemNotFound,
            "make sure identity by persistent ref is no longer there")
        let addedBack = try kc.add(identityAdd)
        #expect(addedBack.status == errSecSuccess, "add identity ref back")
        persist = try #require(addedBack.persistentRef)
        persistFind["valuePersistentRef"] = .string(persist)
        let persistDelete: JSONObject = ["class": "identity", "valuePersistentRef": .string(persist)]
        #expect(try kc.delete(persistDelete).status == errSecSuccess, "delete identity by persistent ref")
        #expect(
            try kc.copyMatching(persistDelete).status == errSecItemNotFound,
            "make sure identity by persistent ref is no longer there")

        #expect(
            try kc.add(AppleRef.addIdentity(certificate: cert, key: key).merging(["label": "zomg"])).status == errSecSuccess,
            "add identity ref")
        #expect(try kc.copyMatching(["class": "identity", "label": "zomg"]).status == errSecSuccess, "find identity by label")
        let zomgCert = try kc.copyMatching(["class": "certificate", "label": "zomg", "returnRef": true])
        #expect(zomgCert.status == errSecSuccess, "find cert by label")
        let zomgKey = try kc.copyMatching(["class": "key", "label": "zomg", "returnRef": true])
        #expect(zomgKey.status == errSecSuccess, "find key by label")

        let newLabel: JSONObject = ["label": "zzzomg"]
        let zomgKeyRef = try AppleRef.key(try #require(keyBytes(of: zomgKey)), type: "rsa", keyClass: "private")
        #expect(try kc.update(zomgKeyRef, newLabel).status == errSecSuccess, "update label to zzzomg for key")
        let stillZomg = try kc.copyMatching(["returnRef": true, "label": "zomg", "class": "identity"])
        #expect(stillZomg.status == errSecSuccess, "still finding zomg ident")
        let zomgCertRef = try AppleRef.certificate(try #require(certificate(of: zomgCert)))
        #expect(try kc.update(zomgCertRef, newLabel).status == errSecSuccess, "update label to zzzomg for cert")
        #expect(
            try kc.copyMatching(["returnRef": true, "label": "zomg", "class": "identity"]).status == errSecItemNotFound,
            "no longer find identity by label")
        let labelQuery: JSONObject = ["returnRef": true, "label": "zzzomg", "class": "identity"]
        let zomgIdentity = try kc.copyMatching(labelQuery)
        #expect(zomgIdentity.status == errSecSuccess, "finding ident with zzzomg label")

        let issuer = try Certificate(der: cert).issuer
        for name in [issuer, AppleTestData.si42PlutoDN] {
            let found = try kc.copyMatching(["issuer": base64(name), "class": "identity", "returnRef": true])
            #expect(found.status == errSecSuccess, "find identity by cert issuer: \(found)")
            #expect(found.valueRef == zomgIdentity.valueRef && found.valueRef != nil, "should be same as zomg_idnt")
        }

        #expect(try kc.delete(labelQuery).status == errSecSuccess, "delete ident with zzzomg label")
        #expect(try kc.delete(try AppleRef.certificate(appleCA)).status == errSecSuccess, "delete apple ca certificate")
    }

    /// si-42-identity.m `test_no_identity_for_mismatch_keys`: SecIdentityCreate of the certificate
    /// and its key gives an identity; of the certificate and a freshly generated RSA-2048 key,
    /// none ("No mismatched identity"). SecIdentityCreate pairs in memory; keychaind pairs a
    /// certificate and a key when an identity is added, so the port adds: with the certificate's
    /// key the identity is stored; with another key the add is errSecParam naming `valueData`
    /// (docs/certificates-keys-identities.md, Identities) and stores nothing.
    @Test func si42NoIdentityForMismatchKeys() throws {
        let kc = AppleCalls(try APIFixture())
        let cert = AppleTestData.si42UranusLeaf
        let wrongKey = try TestKeys().rsa("wrong", bits: 2048)
        let mismatched = try kc.add(AppleRef.addIdentity(certificate: cert, key: wrongKey.privateKey))
        #expect(mismatched.status == errSecParam, "No mismatched identity: \(mismatched)")
        #expect(mismatched.response.json["message"]?.stringValue?.contains("valueData") == true)
        #expect(try kc.copyMatching(["class": "certificate"]).status == errSecItemNotFound, "nothing stored")
        #expect(try kc.copyMatching(["class": "key"]).status == errSecItemNotFound, "nothing stored")
        let matched = try kc.add(AppleRef.addIdentity(certificate: cert, key: AppleTestData.si42UranusKey))
        #expect(matched.status == errSecSuccess, "create identity: \(matched)")
    }

    /// si-61-pkcs12.c `tests`: SecPKCS12Import, which on macOS imports into the keychain. A known
    /// good PKCS#12 (user one) with a NULL password is errSecAuthFailed; with its password it gives
    /// one identity, whose private key and certificate are pulled out; the identity is then
    /// deleted from the keychain by the certificate's ref and the key's (`delete_identity`). The
    /// same for user two and for a P-521 identity (`ec521_host_pfx`).
    /// keychaind's import is `POST /v1/items/import` (docs/certificates-keys-identities.md, PEM and PKCS#12), its password in a
    /// header that an empty value leaves without one ("empty for none"); its answer holds each
    /// identity, certificate and key added, so "one identity" counts the identities in it. Apple
    /// does not check its `delete_identity` deletes; the port does.
    /// `ECDSA_fails_import_p12` holds the same certificate and the same P-256 private key twice:
    /// one identity, as Apple's. Its signature test is KeyOperationRegressions.si61PKCS12Signature.
    @Test func si61PKCS12() throws {
        let kc = AppleCalls(try APIFixture())
        let nullPassword = try kc.importPKCS12(AppleTestData.si61UserOneP12, password: "")
        #expect(nullPassword.status == errSecAuthFailed, "try null password on a known good p12: \(nullPassword)")
        for (name, p12, password) in [
            ("user one", AppleTestData.si61UserOneP12, "user-one"), ("user two", AppleTestData.si61UserTwoP12, "user-two"),
            ("p521 PKCS12 cert", AppleTestData.si61EC521HostPFX, "test!123"),
            ("ECDSA_fails_import_p12", AppleTestData.si61ECDSAFailsImportP12, "test"),
        ] {
            let imported = try kc.importPKCS12(p12, password: password)
            #expect(imported.status == errSecSuccess, "import \(name): \(imported)")
            try Self.pullIdentityAndDelete(kc, imported, name: name)
        }
    }

    /// si-61-pkcs12.c `test_cert_decode_error`: a PKCS#12 (password "1234") whose client
    /// certificate encodes its critical flag as BER's BOOLEAN 01, not DER's FF, is refused:
    /// errSecDecode (errSecUnknownFormat on legacy macOS). Intended difference: keychaind answers
    /// 400 errSecUnknownFormat naming `body`, legacy macOS's answer, since errSecDecode is
    /// keychaind's word for a stored item that failed authentication (docs/api.md); and
    /// nothing is imported.
    @Test func si61CertDecodeError() throws {
        let kc = AppleCalls(try APIFixture())
        let imported = try kc.importPKCS12(AppleTestData.si61CertDecodeErrorP12, password: "1234")
        #expect(imported.status == errSecUnknownFormat, "import cert decode failure p12: \(imported)")
        #expect(imported.response.json["message"]?.stringValue?.contains("body") == true)
        #expect(try kc.copyMatching(["matchLimit": "all"]).status == errSecItemNotFound, "nothing imported")
    }

    /// si-61-pkcs12.c `test_data_protection_kc` (macOS): user one imported into the data-protection
    /// keychain as synchronizable gives one identity with its key and certificate; the identity is
    /// found in the test application's access group (`com.apple.security.regressions`) as
    /// synchronizable with `returnRef`, and is the imported one; `delete_identity` removes the
    /// certificate and the key (synchronizable). The application's group is its token's group here,
    /// so the import lands in it, as Apple's does in the application's default group.
    @Test func si61DataProtectionKeychain() throws {
        let fixture = try APIFixture()
        let group = "com.apple.security.regressions"
        let kc = AppleCalls(fixture, token: try fixture.token(groups: [group]))
        let imported = try kc.importPKCS12(AppleTestData.si61UserOneP12, password: "user-one", parameters: "synchronizable=true")
        #expect(imported.status == errSecSuccess, "import to data protection kc: \(imported)")
        let identities = imported.items.filter { $0["attributes"]?.objectValue?["class"] == "identity" }
        #expect(identities.count == 1, "one identity")
        let ref = try #require(identities.first?["persistentRef"]?.stringValue, "pull identity from imported data")
        let identity = try kc.copyMatching(["class": "identity", "valuePersistentRef": .string(ref), "returnRef": true])
        let found = try kc.copyMatching([
            "class": "identity", "accessGroup": .string(group), "useDataProtectionKeychain": true, "synchronizable": true,
            "returnRef": true,
        ])
        #expect(found.status == errSecSuccess, "found identity: \(found)")
        #expect(found.valueRef == identity.valueRef && found.valueRef != nil, "identity matches")
        try Self.deleteIdentity(kc, identity, synchronizable: true)
    }

    /// si-68-secmatchissuer.c `tests`: a root CA, an intermediate CA (serial 42, keyCertSign) it
    /// issued and a leaf (serial 4242, digitalSignature) the intermediate issued, all three of one
    /// RSA-2048 key pair, their organization a fresh UUID; the intermediate certificate and the
    /// leaf identity are added (so the intermediate, whose key is the same, is an identity too);
    /// the intermediate's normalized issuer is under 128 bytes and, wrapped in a SEQUENCE, is the
    /// one Name of `kSecMatchIssuers`: every identity, with `returnRef`, is 2 (the intermediate
    /// issued by the root, the leaf by the intermediate, whose issuer is the root); every
    /// certificate, with a match limit of 0x7fff, is 2 on iOS (rdar://14603111) and errSecParam on
    /// macOS, which refuses kSecMatchIssuers on certificates for speed. keychaind takes it on
    /// certificates (docs/certificates-keys-identities.md, Certificates: `matchIssuers`), so the iOS branch is the one it
    /// follows. openssl makes the hierarchy (Apple's `test_cert_*` helpers). Left out: the
    /// normalization of a sample DN (`SecDistinguishedNameCopyNormalizedContent`, no keychain
    /// call) and the unasserted clean-up deletes.
    @Test func si68SecMatchIssuer() throws {
        let kc = AppleCalls(try APIFixture())
        let keys = TestKeys()
        let key = try keys.rsa("hierarchy", bits: 2048)
        let tool = keys.tool
        let dir = tool.directory.path
        let uuid = UUID().uuidString
        try tool.openssl([
            "req", "-x509", "-new", "-key", key.keyPath, "-subj", "/O=\(uuid)/CN=Root CA", "-days", "2", "-out",
            "\(dir)/root.pem",
        ])
        func issue(_ name: String, subject: String, by issuer: String, serial: String, usage: String) throws -> [UInt8] {
            try tool.openssl(["req", "-new", "-key", key.keyPath, "-subj", subject, "-out", "\(dir)/\(name).csr"])
            try "keyUsage=critical,\(usage)\n".write(toFile: "\(dir)/\(name).ext", atomically: true, encoding: .utf8)
            try tool.openssl([
                "x509", "-req", "-in", "\(dir)/\(name).csr", "-CA", "\(dir)/\(issuer).pem", "-CAkey", key.keyPath, "-set_serial",
                serial, "-days", "2", "-extfile", "\(dir)/\(name).ext", "-out", "\(dir)/\(name).pem",
            ])
            return try tool.der("\(dir)/\(name).pem")
        }
        let intermediate = try issue(
            "intermediate", subject: "/O=\(uuid)/CN=Intermediate CA", by: "root", serial: "42", usage: "keyCertSign")
        let leaf = try issue(
            "leaf", subject: "/O=\(uuid)/CN=Client", by: "intermediate", serial: "4242", usage: "digitalSignature")

        #expect(try kc.add(AppleRef.addCertificate(intermediate)).status == errSecSuccess, "add intermediate")
        #expect(try kc.add(AppleRef.addIdentity(certificate: leaf, key: key.privateKey)).status == errSecSuccess, "add leaf")

        let issuer = try Certificate(der: intermediate).issuer
        #expect(issuer.count < 128, "max 127 bytes of content - or else you'll need to properly encode issuer sequence")
        let canonicalIssuer = [0x30, UInt8(issuer.count)] + issuer
        let identities = try kc.copyMatching([
            "class": "identity", "returnRef": true, "matchLimit": "all", "matchIssuers": .array([base64(canonicalIssuer)]),
        ])
        #expect(identities.status == errSecSuccess, "find all identities matching: \(identities)")
        #expect(identities.items.count == 2, "return 2")
        let certificates = try kc.copyMatching([
            "class": "certificate", "returnRef": true, "matchLimit": 0x7fff, "matchIssuers": .array([base64(canonicalIssuer)]),
        ])
        #expect(certificates.status == errSecSuccess, "find all certificates matching: \(certificates)")
        #expect(certificates.items.count == 2, "return 2")
    }

    // MARK: Apple's helpers

    /// si-05-add.c `persistentRefIs`: the data found by `ref` is `data`.
    private func persistentRefIs(
        _ kc: AppleCalls, _ ref: String, _ data: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let found = try kc.copyMatching(["valuePersistentRef": .string(ref), "returnData": true], sourceLocation: sourceLocation)
        #expect(found.status == errSecSuccess, "lookup item data by persistent ref", sourceLocation: sourceLocation)
        #expect(found.dataBytes == data, "result equals expected data", sourceLocation: sourceLocation)
    }

    /// si-40-seckey.c / si-41-sececkey.c `testkeygen`, the keychain steps: the private key added
    /// by its ref and deleted by it, then the public key.
    static func keygen(_ kc: AppleCalls, _ pair: TestKeys.Made, type: String, label: String) throws {
        for (bytes, keyClass) in [(pair.privateKey, "private"), (pair.publicKey, "public")] {
            let added = try kc.add(AppleRef.addKey(bytes, type: type, keyClass: keyClass))
            #expect(added.status == errSecSuccess, "\(label): add \(keyClass) key: \(added)")
            let deleted = try kc.delete(try AppleRef.key(bytes, type: type, keyClass: keyClass))
            #expect(deleted.status == errSecSuccess, "\(label): delete \(keyClass) key: \(deleted)")
        }
    }

    /// si-40-seckey.c / si-41-sececkey.c `testkeygen2`, the keychain steps: the pair stored with
    /// the labels SecKeyGeneratePair's public and private attributes give, each found by its
    /// label (the private key also by `canSign`) with `returnRef`, then deleted by that query.
    static func keygen2(_ kc: AppleCalls, _ pair: TestKeys.Made, type: String, suffix: String) throws {
        let uuid = UUID().uuidString
        var pubd: JSONObject = ["label": .string("\(uuid)-Public-\(suffix)")]
        var privd: JSONObject = ["label": .string("\(uuid)-Private-\(suffix)")]
        let addedPublic = try kc.add(AppleRef.addKey(pair.publicKey, type: type, keyClass: "public").merging(pubd))
        let addedPrivate = try kc.add(AppleRef.addKey(pair.privateKey, type: type, keyClass: "private").merging(privd))
        #expect(
            addedPublic.status == errSecSuccess && addedPrivate.status == errSecSuccess,
            "Generate persistent \(type) keypair: \(addedPublic) \(addedPrivate)")
        pubd = pubd.merging(["class": "key", "returnRef": true])
        privd = privd.merging(["class": "key", "returnRef": true, "canSign": true])
        let pubKey2 = try kc.copyMatching(pubd)
        #expect(pubKey2.status == errSecSuccess, "retrieve pub key by label")
        #expect(keyBytes(of: pubKey2) == pair.publicKey, "got valid object")
        let privKey2 = try kc.copyMatching(privd)
        #expect(privKey2.status == errSecSuccess, "retrieve priv key by label and kSecAttrCanSign")
        #expect(keyBytes(of: privKey2) == pair.privateKey, "got valid object")
        #expect(try kc.delete(pubd).status == errSecSuccess, "delete generated pub key")
        #expect(try kc.delete(privd).status == errSecSuccess, "delete generated priv key")
    }

    /// si-61-pkcs12.c, after each import: one identity; its private key and certificate
    /// (SecIdentityCopyPrivateKey, SecIdentityCopyCertificate: the identity's `returnRef`), then
    /// `delete_identity`.
    static func pullIdentityAndDelete(_ kc: AppleCalls, _ imported: AppleAnswer, name: String) throws {
        let identities = imported.items.filter { $0["attributes"]?.objectValue?["class"] == "identity" }
        #expect(identities.count == 1, "\(name): one identity")
        let ref = try #require(identities.first?["persistentRef"]?.stringValue, "\(name): pull identity from imported data")
        let identity = try kc.copyMatching(["class": "identity", "valuePersistentRef": .string(ref), "returnRef": true])
        #expect(identity.status == errSecSuccess, "\(name): this is a SecIdentityRef")
        try Self.deleteIdentity(kc, identity, synchronizable: false, name: name)
    }

    /// si-61-pkcs12.c `delete_identity`: the certificate's ref deleted, then the key's (with
    /// `synchronizable` for the data-protection keychain's).
    static func deleteIdentity(_ kc: AppleCalls, _ identity: AppleAnswer, synchronizable: Bool, name: String = "") throws {
        let reference = try #require(identity.valueRef)
        let cert = try #require(reference["certificate"]?.stringValue.flatMap(Base64.decode), "\(name): get certificate")
        let key = try #require(reference["key"]?.stringValue.flatMap(Base64.decode), "\(name): get private key")
        let type = try #require(reference["keyType"]?.stringValue)
        let sync: JSONObject = synchronizable ? ["synchronizable": true] : [:]
        let certDeleted = try kc.delete(try AppleRef.certificate(cert).merging(sync))
        #expect(certDeleted.status == errSecSuccess, "\(name): delete the certificate: \(certDeleted)")
        let keyDeleted = try kc.delete(try AppleRef.key(key, type: type, keyClass: "private").merging(sync))
        #expect(keyDeleted.status == errSecSuccess, "\(name): delete the key: \(keyDeleted)")
    }
}

/// The certificate a kSecReturnRef answer holds (an identity's, or a certificate's own).
func certificate(of answer: AppleAnswer) -> [UInt8]? {
    answer.valueRef?["certificate"]?.stringValue.flatMap(Base64.decode)
}

/// The key a kSecReturnRef answer holds (an identity's, or a key's own).
func keyBytes(of answer: AppleAnswer) -> [UInt8]? {
    answer.valueRef?["key"]?.stringValue.flatMap(Base64.decode)
}

import Foundation
import KeychainClient
import TestSupport
import Testing

/// The typed layer: passwords, certificates, keys, identities, the keychain and tokens.
@Suite struct TypedLayerTests {
    let server: LiveServer
    let client: KeychainClient

    init() throws {
        server = try LiveServer()
        client = try server.client()
    }

    @Test func genericPasswordsAddFindReplaceAndDelete() async throws {
        let added = try await client.addGenericPassword(
            service: "db.example.com", account: "app", password: Data("hunter2".utf8), options: NewItemOptions(label: "db"))
        #expect(added.service == "db.example.com")
        #expect(added.label == "db")
        #expect(added.persistentRef?.count == 22)
        #expect(try await client.genericPassword(service: "db.example.com", account: "app") == Data("hunter2".utf8))
        #expect(
            await status {
                try await client.addGenericPassword(service: "db.example.com", account: "app", password: Data("x".utf8))
            } == errSecDuplicateItem)
        let replaced = try await client.addGenericPassword(
            service: "db.example.com", account: "app", password: Data("s3cr3t".utf8), options: NewItemOptions(label: "new"),
            replacing: true)
        #expect(replaced.label == "new")
        #expect(replaced.persistentRef == added.persistentRef)
        #expect(try await client.genericPassword(service: "db.example.com", account: "app") == Data("s3cr3t".utf8))
        #expect(try await client.delete(.genericPassword(service: "db.example.com")) == 1)
        #expect(
            await status { _ = try await client.genericPassword(service: "db.example.com", account: "app") } == errSecItemNotFound
        )
    }

    @Test func internetPasswordsByTheirPrimaryKey() async throws {
        try await client.addInternetPassword(
            server: "www.example.com", account: "alice", password: Data("pw".utf8), protocol: "https", port: 443, path: "/login",
            authenticationType: "default")
        let item = try await client.item(.internetPassword(server: "www.example.com", account: "alice"), returnData: true)
        #expect(item.itemClass == .internetPassword)
        #expect(item.port == 443)
        #expect(item.path == "/login")
        #expect(item.attributes["protocol"] == "https")
        #expect(item.password == "pw")
        #expect(try await client.update(.internetPassword(server: "www.example.com"), attributes: ["label": "web"]) == 1)
        #expect(try await client.item(persistentRef: item.persistentRef!).label == "web")
    }

    @Test func itemsPageThroughALongAnswer() async throws {
        // About 1 MiB of secrets make a page: 24 secrets of 60 KiB take two.
        let secret = Data(repeating: 0x61, count: 60 * 1024)
        for n in 0..<24 {
            try await client.addGenericPassword(service: "bulk", account: String(format: "%02d", n), password: secret)
        }
        var accounts: [String] = []
        var pagesOfData = 0
        for try await item in client.items(.genericPassword(service: "bulk"), returnData: true) {
            accounts.append(item.account ?? "")
            if item.data == secret { pagesOfData += 1 }
        }
        #expect(accounts == (0..<24).map { String(format: "%02d", $0) })
        #expect(pagesOfData == 24)
        let listed = try await client.SecItemCopyMatching([
            kSecClass: kSecClassGenericPassword, kSecAttrService: "bulk", kSecMatchLimit: kSecMatchLimitAll, kSecReturnData: true,
        ])
        #expect((listed as? [Data])?.count == 24)
    }

    @Test func certificatesKeysAndIdentitiesImportAndExport() async throws {
        let certificates = TestCertificates()
        let ca = try certificates.makeCA("ca", subject: "/CN=Client Test CA")
        let leaf = try certificates.makeLeaf("leaf", subject: "/CN=svc.example.com", issuer: ca, serial: "1001")
        let pem =
            try String(contentsOfFile: leaf.certificatePath, encoding: .utf8)
            + String(contentsOfFile: leaf.keyPath, encoding: .utf8)
        let imported = try await client.importItems(Data(pem.utf8), format: .pem, options: NewItemOptions(label: "svc"))
        #expect(imported.items.map(\.itemClass) == [.identity])
        let identity = try await client.item(.identity(label: "svc"))
        #expect(identity.itemClass == .identity)
        let exported = try await client.export(.certificate(label: "svc"), format: .pem)
        #expect(String(decoding: exported, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))
        let p12 = try await client.export(.identity(label: "svc"), format: .pkcs12(passphrase: "export pass"))
        #expect(p12.first == 0x30)  // a DER SEQUENCE
        // The PKCS#12 goes back in elsewhere: into another group, under its passphrase.
        try await client.delete(.identity(label: "svc"))
        let again = try await client.importItems(
            p12, format: .pkcs12(passphrase: "export pass"), options: NewItemOptions(label: "back"))
        #expect(again.items.map(\.itemClass) == [.identity])
        #expect(
            await status { _ = try await client.importItems(p12, format: .pkcs12(passphrase: "wrong")) } == errSecAuthFailed)
        let ca2 = try await client.addCertificate(Data(ca.der), options: NewItemOptions(label: "ca"))
        #expect(ca2.itemClass == .certificate)
        let key = try await client.addKey(
            Data(repeating: 7, count: 32), keyType: "aes", keyClass: "symmetric", applicationTag: Data("tag".utf8),
            options: NewItemOptions(label: "aes"))
        #expect(key.attributes["applicationTag"] == .data(Data("tag".utf8)))
        #expect(
            try await client.item(.key(applicationTag: Data("tag".utf8)), returnData: true).data == Data(repeating: 7, count: 32))
    }

    @Test func keychainStatusSettingsLockAndUnlock() async throws {
        var status = try await client.status()
        #expect(status.state == "unlocked")
        #expect(status.status == 7)
        try await client.setLockInterval(120)
        #expect(try await client.lockInterval() == 120)
        try await client.lock()
        status = try await client.status()
        #expect(status.isUnlocked == false)
        try await client.unlock(passphrase: server.passphrase)
        #expect(try await client.status().isUnlocked)
    }

    @Test func thePassphraseChangesAndAnItemGoesByItsReference() async throws {
        let added = try await client.addGenericPassword(service: "ref", account: "", password: Data("x".utf8))
        try await client.deleteItem(persistentRef: try #require(added.persistentRef))
        #expect(await status { _ = try await client.item(persistentRef: added.persistentRef!) } == errSecItemNotFound)
        #expect(await status { try await client.changePassphrase(old: "wrong", new: "new passphrase") } == errSecAuthFailed)
        try await client.changePassphrase(old: server.passphrase, new: "new passphrase")
        try await client.lock()
        #expect(await status { try await client.unlock(passphrase: server.passphrase) } == errSecAuthFailed)
        try await client.unlock(passphrase: "new passphrase")
        #expect(try await client.status().isUnlocked)
    }

    @Test func tokensAreCreatedListedAndRevoked() async throws {
        let created = try await client.createToken(name: "reader", accessGroups: ["apps"], capabilities: ["read", "list"])
        #expect(created.secret.hasPrefix("kcd_"))
        #expect(!"\(created)".contains(created.secret))
        #expect(try await client.tokens().contains { $0.id == created.info.id && $0.capabilities == ["read", "list"] })
        let reader = try server.client(token: created.secret)
        #expect(try await reader.currentToken().name == "reader")
        #expect(await status { try await reader.lock() } == errSecMissingEntitlement)
        try await client.revokeToken(id: created.info.id)
        #expect(await status { _ = try await reader.status() } == errSecAuthFailed)
    }
}

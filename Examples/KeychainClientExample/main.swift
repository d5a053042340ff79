import Foundation
import KeychainClient

// KEYCHAIND_URL (default http://127.0.0.1:8700) and KEYCHAIND_TOKEN, as keychainctl reads them.
let keychain = try KeychainClient.fromEnvironment()
try await keychain.SecItemAdd([
    kSecClass: kSecClassGenericPassword, kSecAttrService: "swift.example.com", kSecAttrAccount: "app",
    kSecValueData: Data("from Swift".utf8),
])
let secret =
    try await keychain.SecItemCopyMatching([
        kSecClass: kSecClassGenericPassword, kSecAttrService: "swift.example.com", kSecReturnData: true,
    ]) as? Data
print(String(decoding: secret ?? Data(), as: UTF8.self))
do {
    _ = try await keychain.SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrService: "nowhere"])
} catch {
    print(error.status == errSecItemNotFound, SecCopyErrorMessageString(error.status, nil) ?? "")
}
try await keychain.SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: "swift.example.com"])
await keychain.shutdown()

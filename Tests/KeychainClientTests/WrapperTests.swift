import Foundation
import KeychainClient
import Testing

/// The dictionary wrapper and the per-service helpers.
@Suite struct WrapperTests {
    let server: LiveServer
    let client: KeychainClient

    init() throws {
        server = try LiveServer()
        client = try server.client()
    }

    @Test func subscriptStoresReadsAndNilDeletes() async throws {
        let keychain = KeychainWrapper(service: "com.example.app", client: client)
        // The synchronous subscript blocks: off the concurrency pool, as synchronous code calls it.
        let (stored, read, afterDelete, error) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                keychain["token"] = "abc"
                let stored = keychain["token"]
                keychain["token"] = "def"
                let read = keychain["token"]
                keychain["token"] = nil
                continuation.resume(returning: (stored, read, keychain["token"], keychain.lastError))
            }
        }
        #expect(stored == "abc")
        #expect(read == "def")
        #expect(afterDelete == nil)
        #expect(error == nil)
        #expect(
            await status { _ = try await client.genericPassword(service: "com.example.app", account: "token") }
                == errSecItemNotFound)
    }

    @Test func asyncMethodsAndAllKeys() async throws {
        let keychain = KeychainWrapper(service: "svc", client: client)
        try await keychain.set("1", forKey: "a")
        try await keychain.set(Data("2".utf8), forKey: "b")
        #expect(try await keychain.allKeys().sorted() == ["a", "b"])
        #expect(try await keychain.string(forKey: "a") == "1")
        #expect(try await keychain.data(forKey: "missing") == nil)
        #expect(try await keychain.removeValue(forKey: "a"))
        #expect(try await keychain.removeValue(forKey: "a") == false)
    }

    @Test func subscriptFailureIsKeptInLastError() async throws {
        let keychain = KeychainWrapper(service: "svc", client: client)
        try await keychain.set("1", forKey: "a")
        try await client.lock()
        let (value, error) = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: (keychain["a"], keychain.lastError)) }
        }
        #expect(value == nil)
        #expect(error?.status == errSecInteractionNotAllowed)
    }

    @Test func perServiceHelpers() async throws {
        let helper = KeychainWrapper(service: "com.example.helpers", client: client)
        #expect(try await helper.createKeychainValue("p1", forIdentifier: "user"))
        #expect(try await helper.createKeychainValue("p1", forIdentifier: "user") == false)
        #expect(try await helper.searchKeychainCopyMatching("user") == Data("p1".utf8))
        #expect(try await helper.updateKeychainValue("p2", forIdentifier: "user"))
        #expect(try await helper.searchKeychainCopyMatching("user") == Data("p2".utf8))
        #expect(try await helper.updateKeychainValue("p2", forIdentifier: "nobody") == false)
        try await helper.deleteKeychainValue("user")
        #expect(try await helper.searchKeychainCopyMatching("user") == nil)
        // The helper's item is a generic password like any other: identifier as account and generic.
        #expect(try await helper.createKeychainValue("p3", forIdentifier: "user"))
        let item = try await client.item(.genericPassword(service: "com.example.helpers", account: "user"))
        #expect(item.attributes["generic"] == .data(Data("user".utf8)))
    }
}

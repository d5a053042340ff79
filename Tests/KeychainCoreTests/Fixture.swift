import Foundation
import KeychainCrypto
import Logging
import Synchronization
@_exported import TestSupport
import Testing

@testable import KeychainCore

/// A keychain in its own directory with a manual clock, initialised and unlocked.
final class Fixture {
    let directory = TemporaryDirectory()
    let clock = ManualClock()
    private(set) var keychain: Keychain
    let admin: AccessToken
    let adminSecret: String

    /// The store, when the fixture was asked for one that can fail its writes.
    private(set) var faulty: FaultyStore?

    init(
        lockInterval: Int = 300, faulty: Bool = false, backend: StoreBackend? = nil, passphrase: String = testPassphrase,
        configure: (inout KeychainConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = KeychainConfiguration.testing(directory.path, clock: clock, lockInterval: lockInterval)
        configure(&configuration)
        if faulty {
            let store = try FaultyStore(sqliteIn: directory.path)
            self.faulty = store
            keychain = try Keychain(configuration: configuration, store: store, logger: Logger(label: "test"))
        } else if let backend {
            keychain = try Keychain(
                configuration: configuration, store: backend.open(directory.path), logger: Logger(label: "test"))
        } else {
            keychain = try Keychain.open(configuration)
        }
        let issued = try keychain.initialize(passphrase: SecureBytes(utf8: passphrase))
        admin = issued.token
        adminSecret = issued.secret
    }

    deinit { keychain.close() }

    /// Closes and reopens the keychain on the same directory, as a process restart does.
    func restart() throws {
        keychain.close()
        keychain = try Keychain.open(.testing(directory.path, clock: clock))
    }

    func unlock(_ passphrase: String = testPassphrase) throws {
        try keychain.unlock(passphrase: SecureBytes(utf8: passphrase))
    }

    /// A token with these groups and capabilities.
    func token(_ groups: [String], _ capabilities: Set<Capability> = Set(Capability.allCases)) throws -> AccessToken {
        try keychain.createToken(name: "t", accessGroups: groups, capabilities: capabilities, expiresAt: nil, caller: admin).token
    }

    /// Adds a generic password; returns its persistent ref.
    @discardableResult
    func addGeneric(
        service: String, account: String, secret: String? = "s3cret", group: String? = nil,
        accessible: String? = nil, extra: JSONObject = [:], token: AccessToken? = nil
    ) throws -> String {
        var query: JSONObject = ["class": "genericPassword", "service": .string(service), "account": .string(account)]
        if let secret { query["valueData"] = .string(Base64.encode(Array(secret.utf8))) }
        if let group { query["accessGroup"] = .string(group) }
        if let accessible { query["accessible"] = .string(accessible) }
        for (k, v) in extra { query[k] = v }
        return try keychain.add(query, token: token ?? admin).persistentRef
    }
}

/// Runs `body`, which must throw a KeychainError with `status`; returns it for further checks.
@discardableResult
func expectError(
    _ expected: KeychainError, naming key: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> KeychainError? {
    do {
        try body()
        Issue.record("expected \(expected.name), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as KeychainError {
        #expect(error.status == expected.status, "got \(error)", sourceLocation: sourceLocation)
        #expect(error.name == expected.name, sourceLocation: sourceLocation)
        if let key {
            #expect(
                error.message.contains(key), "message \"\(error.message)\" does not name \(key)", sourceLocation: sourceLocation)
        }
        return error
    } catch {
        Issue.record("expected \(expected.name), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension KeychainError {
    static let anyParam = KeychainError.param("")
    static let anyNoSuchAttr = KeychainError.noSuchAttr("", "")
    static let anyNoSuchClass = KeychainError.noSuchClass("")
    static let anyMissingEntitlement = KeychainError.missingEntitlement("")
    static let anyDuplicate = KeychainError.duplicateItem(persistentRef: nil)
    static let anyLocked = KeychainError.interactionNotAllowed("")
    static let anyAuthFailed = KeychainError.authFailed("")
    static let anyDecode = KeychainError.decode("")
    static let anyTooLarge = KeychainError.dataTooLarge("")
    static let anyUnimplemented = KeychainError.unimplemented("")
    static let anyNotAvailable = KeychainError.notAvailable("")
    static let anyPrecondition = KeychainError.preconditionFailed("")
}

extension ItemResult {
    var attributesJSON: JSONObject? { json["attributes"]?.objectValue }
    var secretString: String? {
        json["valueData"]?.stringValue.flatMap(Base64.decode).map { String(decoding: $0, as: UTF8.self) }
    }
}

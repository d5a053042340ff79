import KeychainCrypto
import Logging
import TestSupport
import Testing

@testable import KeychainCore

@Suite struct LockTests {
    @Test func lockedWhenUnlockedItemsRefuseSecretsButNotAttributes() throws {
        let f = try Fixture()
        try f.addGeneric(service: "wu", account: "u", secret: "pw")
        try f.keychain.lock()
        #expect(f.keychain.state == .locked)
        expectError(.anyLocked, naming: "returnData") {
            _ = try f.keychain.search(["service": "wu", "returnData": true], token: f.admin)
        }
        // Attribute searches, attribute-only updates and deletes still work.
        #expect(try f.keychain.search(["service": "wu"], token: f.admin).count == 1)
        try f.keychain.update(query: ["service": "wu"], attributesToUpdate: ["label": "x"], token: f.admin)
        expectError(.anyLocked, naming: "valueData") {
            try f.keychain.update(query: ["service": "wu"], attributesToUpdate: ["valueData": "eA=="], token: f.admin)
        }
        expectError(.anyLocked, naming: "valueData") { try f.addGeneric(service: "wu2", account: "u", secret: "pw") }
        try f.addGeneric(service: "wu3", account: "u", secret: nil)
        #expect(try f.keychain.delete(["service": "wu"], token: f.admin) == 1)
    }

    @Test func aLockedReturnDataSearchFailsWholeRatherThanPartly() throws {
        let f = try Fixture()
        try f.addGeneric(service: "mixed", account: "always", accessible: "always")
        try f.addGeneric(service: "mixed", account: "locked", accessible: "whenUnlocked")
        try f.keychain.lock()
        expectError(.anyLocked) {
            _ = try f.keychain.search(["service": "mixed", "matchLimit": "all", "returnData": true], token: f.admin)
        }
        let alwaysOnly = try f.keychain.search(["service": "mixed", "account": "always", "returnData": true], token: f.admin)
        #expect(alwaysOnly[0].secretString == "s3cret")
    }

    @Test(arguments: [
        ("whenUnlocked", false, false), ("whenUnlockedThisDeviceOnly", false, false),
        ("afterFirstUnlock", true, false), ("afterFirstUnlockThisDeviceOnly", true, false),
        ("always", true, true), ("alwaysThisDeviceOnly", true, true),
    ])
    func eachProtectionClassWhileLocked(accessible: String, readableAfterLock: Bool, readableAfterRestart: Bool) throws {
        let f = try Fixture()
        try f.addGeneric(service: "p", account: "u", secret: "pw", accessible: accessible)
        try f.keychain.lock()
        let search: JSONObject = ["service": "p", "returnData": true]
        if readableAfterLock {
            #expect(try f.keychain.search(search, token: f.admin)[0].secretString == "pw")
        } else {
            expectError(.anyLocked) { _ = try f.keychain.search(search, token: f.admin) }
        }
        try f.restart()
        #expect(f.keychain.state == .locked)
        if readableAfterRestart {
            #expect(try f.keychain.search(search, token: f.admin)[0].secretString == "pw")
        } else {
            expectError(.anyLocked) { _ = try f.keychain.search(search, token: f.admin) }
        }
        try f.unlock()
        #expect(try f.keychain.search(search, token: f.admin)[0].secretString == "pw")
    }

    @Test func afterFirstUnlockItemsStayReadableAfterALock() throws {
        let f = try Fixture()
        try f.restart()
        try f.unlock()
        try f.addGeneric(service: "afu", account: "u", secret: "pw", accessible: "afterFirstUnlock")
        try f.keychain.lock()
        #expect(try f.keychain.search(["service": "afu", "returnData": true], token: f.admin)[0].secretString == "pw")
        try f.addGeneric(service: "afu2", account: "u", secret: "pw2", accessible: "afterFirstUnlock")
    }

    @Test func unlockingAnUnlockedKeychainSucceedsOnlyWithTheRightPassphrase() throws {
        let f = try Fixture()
        #expect(f.keychain.state == .unlocked)
        try f.unlock()
        expectError(.anyAuthFailed, naming: "passphrase") { try f.unlock("a wrong passphrase on an unlocked keychain") }
        #expect(f.keychain.state == .unlocked)
    }

    /// A wrong passphrase every few seconds kept a keychain with a short `lockInterval` open
    /// forever: a failed unlock must not count as use.
    @Test func aWrongPassphraseDoesNotPostponeTheAutoLock() throws {
        let f = try Fixture(lockInterval: 3)
        f.clock.advance(seconds: 2)
        expectError(.anyAuthFailed) { try f.unlock("wrong") }
        f.clock.advance(seconds: 1)
        #expect(f.keychain.state == .locked)
    }

    /// The keychain's own budget is shared by every network client: 21 failures are free (the
    /// documented number), then Apple's ladder (1 min, 5 min, 15 min, 1 h) applies to every attempt.
    @Test func theFailureBudgetIsTwentyOneThenApplesLadder() throws {
        let f = try Fixture()
        try f.keychain.lock()
        for _ in 0..<UnlockThrottle.freeFailures { expectError(.anyAuthFailed, naming: "passphrase") { try f.unlock("wrong") } }
        expectError(.anyAuthFailed, naming: "passphrase") { try f.unlock("wrong") }
        for expected in [60, 300, 900, 3600] {
            let throttled = expectError(.anyAuthFailed) { try f.unlock(testPassphrase) }
            #expect(throttled?.retryAfter == expected)
            f.clock.advance(seconds: Int64(expected - 1))
            #expect(expectError(.anyAuthFailed) { try f.unlock(testPassphrase) }?.retryAfter == 1)
            f.clock.advance(seconds: 1)
            let wrong = expectError(.anyAuthFailed) { try f.unlock("wrong") }
            #expect(wrong?.retryAfter == nil)
        }
        #expect(f.keychain.state == .locked)
    }

    @Test func theBudgetSurvivesARestartAndResetsOnSuccess() throws {
        let f = try Fixture()
        try f.keychain.lock()
        for _ in 0...UnlockThrottle.freeFailures { expectError(.anyAuthFailed) { try f.unlock("wrong") } }
        try f.restart()
        #expect(expectError(.anyAuthFailed) { try f.unlock(testPassphrase) }?.retryAfter == 60)
        f.clock.advance(seconds: 60)
        try f.unlock()
        try f.keychain.lock()
        expectError(.anyAuthFailed) { try f.unlock("wrong") }
        #expect(expectError(.anyAuthFailed) { try f.unlock("wrong") }?.retryAfter == nil)
    }

    /// The host (the passphrase file) is never throttled by network failures, its own failures
    /// do not count, and its success resets the budget.
    @Test func anUnlockFromTheHostIsNeverThrottledAndResetsTheBudget() throws {
        let f = try Fixture()
        try f.keychain.lock()
        for _ in 0...UnlockThrottle.freeFailures { expectError(.anyAuthFailed) { try f.unlock("wrong") } }
        #expect(expectError(.anyAuthFailed) { try f.unlock(testPassphrase) }?.retryAfter == 60)
        for _ in 0..<3 {
            let wrong = expectError(.anyAuthFailed, naming: "passphrase") {
                try f.keychain.unlock(passphrase: SecureBytes(utf8: "wrong"), from: .host)
            }
            #expect(wrong?.retryAfter == nil)
        }
        try f.keychain.unlock(passphrase: SecureBytes(utf8: testPassphrase), from: .host)
        #expect(f.keychain.state == .unlocked)
        try f.keychain.lock()
        expectError(.anyAuthFailed) { try f.unlock("wrong") }
        try f.unlock()
    }

    /// On a full disk the attempt cannot be counted, so it is not made: the right passphrase and
    /// a wrong one get the same errSecNotAvailable, and neither unlocks nor is a free guess.
    @Test func anAttemptThatCannotBeCountedIsNotMade() throws {
        let f = try Fixture(faulty: true)
        try f.keychain.lock()
        let store = try #require(f.faulty)
        store.failsWrites = true
        let wrong = expectError(.anyNotAvailable) { try f.unlock("wrong") }
        let right = expectError(.anyNotAvailable) { try f.unlock() }
        #expect(wrong?.message == right?.message)
        #expect(f.keychain.state == .locked)
        store.failsWrites = false
        try f.unlock()
        #expect(f.keychain.state == .unlocked)
    }

    @Test func aPassphraseChangeKeepsEveryItemReadable() throws {
        let f = try Fixture()
        try f.addGeneric(service: "a", account: "u", secret: "one", accessible: "whenUnlocked")
        try f.addGeneric(service: "b", account: "u", secret: "two", accessible: "afterFirstUnlock")
        try f.addGeneric(service: "c", account: "u", secret: "three", accessible: "always")
        expectError(.anyAuthFailed, naming: "old") {
            try f.keychain.changePassphrase(old: SecureBytes(utf8: "wrong"), new: SecureBytes(utf8: "new passphrase"))
        }
        try f.keychain.changePassphrase(old: SecureBytes(utf8: testPassphrase), new: SecureBytes(utf8: "new passphrase"))
        try f.restart()
        expectError(.anyAuthFailed) { try f.unlock(testPassphrase) }
        try f.unlock("new passphrase")
        let secrets = try f.keychain.search(["matchLimit": "all", "returnData": true, "returnAttributes": true], token: f.admin)
        #expect(Set(secrets.compactMap(\.secretString)) == ["one", "two", "three"])
        #expect(secrets.allSatisfy { $0.version == 1 })
    }

    @Test func autoLockAfterTheIntervalWithoutSecretUse() throws {
        let f = try Fixture(lockInterval: 60)
        try f.addGeneric(service: "a", account: "u", secret: "pw")
        f.clock.advance(seconds: 59)
        #expect(try f.keychain.search(["service": "a", "returnData": true], token: f.admin)[0].secretString == "pw")
        f.clock.advance(seconds: 59)
        #expect(f.keychain.state == .unlocked)
        f.clock.advance(seconds: 1)
        f.keychain.checkAutoLock()
        #expect(f.keychain.state == .locked)
        expectError(.anyLocked) { _ = try f.keychain.search(["service": "a", "returnData": true], token: f.admin) }
    }

    @Test func aZeroLockIntervalNeverLocks() throws {
        let f = try Fixture()
        try f.keychain.setLockInterval(0)
        f.clock.advance(seconds: 86_400 * 30)
        f.keychain.checkAutoLock()
        #expect(f.keychain.state == .unlocked)
        try f.restart()
        #expect(f.keychain.lockInterval == 0)
        expectError(.anyParam, naming: "lockInterval") { try f.keychain.setLockInterval(-1) }
    }

    @Test func anUninitializedKeychainIsNotAvailable() throws {
        let directory = TemporaryDirectory()
        let keychain = try Keychain.open(.testing(directory.path, clock: ManualClock()))
        #expect(keychain.state == .uninitialized)
        expectError(.notAvailable("")) { try keychain.unlock(passphrase: SecureBytes(utf8: "x")) }
        expectError(.notAvailable("")) { _ = try keychain.authenticate(bearer: "kcd_x") }
    }

    @Test func weakKDFLimitsAreRefusedOutsideTests() throws {
        let directory = TemporaryDirectory()
        var configuration = KeychainConfiguration(dataDirectory: directory.path)
        configuration.kdfLimits = .insecureMinimumForTesting
        let keychain = try Keychain.open(configuration)
        expectError(.anyParam, naming: "kdfLimits") { _ = try keychain.initialize(passphrase: SecureBytes(utf8: "x")) }
        #expect(KeychainConfiguration(dataDirectory: "/x").kdfLimits.isAtLeastModerate)
    }
}

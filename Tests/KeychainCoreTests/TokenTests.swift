import TestSupport
import Testing

@testable import KeychainCore

@Suite struct TokenTests {
    @Test func aTokenAuthenticatesUntilRevoked() throws {
        let f = try Fixture()
        let issued = try f.keychain.createToken(
            name: "svc", accessGroups: ["a"], capabilities: [.read, .write], expiresAt: nil, caller: f.admin)
        #expect(issued.secret.hasPrefix("kcd_"))
        let token = try f.keychain.authenticate(bearer: issued.secret)
        #expect(token.accessGroups == ["a"])
        #expect(token.capabilities == [.read, .write])
        #expect(try f.keychain.listTokens(caller: f.admin).map(\.id).contains(token.id))
        try f.keychain.revokeToken(id: token.id, caller: f.admin)
        expectError(.anyAuthFailed, naming: "token") { _ = try f.keychain.authenticate(bearer: issued.secret) }
        expectError(.itemNotFound) { try f.keychain.revokeToken(id: token.id, caller: f.admin) }
    }

    @Test func anExpiredTokenIsRefused() throws {
        let f = try Fixture()
        let issued = try f.keychain.createToken(
            name: "short", accessGroups: ["a"], capabilities: [.read], expiresAt: f.clock.now() + 60_000, caller: f.admin)
        _ = try f.keychain.authenticate(bearer: issued.secret)
        f.clock.advance(seconds: 60)
        expectError(.anyAuthFailed) { _ = try f.keychain.authenticate(bearer: issued.secret) }
        expectError(.anyParam, naming: "expiresAt") {
            _ = try f.keychain.createToken(
                name: "past", accessGroups: ["a"], capabilities: [.read], expiresAt: 1, caller: f.admin)
        }
    }

    @Test func anUnknownTokenIsAuthFailedAndItsMessageHoldsNoSecret() throws {
        let f = try Fixture()
        let error = expectError(.anyAuthFailed) { _ = try f.keychain.authenticate(bearer: "kcd_guess-guess-guess") }
        #expect(error?.message.contains("guess") == false)
    }

    @Test func tokensSurviveARestart() throws {
        let f = try Fixture()
        try f.restart()
        #expect(try f.keychain.authenticate(bearer: f.adminSecret) == f.admin)
    }

    @Test func aTokenCannotGrantGroupsItsCreatorLacks() throws {
        let f = try Fixture()
        let limitedAdmin = try f.token(["a"], [.admin])
        expectError(.anyMissingEntitlement, naming: "accessGroups") {
            _ = try f.keychain.createToken(
                name: "n", accessGroups: ["b"], capabilities: [.read], expiresAt: nil, caller: limitedAdmin)
        }
    }
}

/// The token cache honours revocation at once, even for a verification under way when it happened.
@Suite struct TokenCacheTests {
    static let token = AccessToken(
        id: "tok_1", name: "t", accessGroups: ["a"], capabilities: [.read], expiresAt: nil, createdAt: 0)

    func lookup(_ cache: TokenCache, _ secret: String, now: Int64) -> (token: AccessToken?, slot: TokenCache.Slot) {
        var secret = secret
        return secret.withUTF8 { cache.lookup($0, now: now) }
    }

    @Test func aVerifiedTokenIsFoundAgainUntilItsEntryExpires() throws {
        let cache = try TokenCache()
        let (missed, slot) = lookup(cache, "kcd_secret", now: 0)
        #expect(missed == nil)
        cache.insert(Self.token, at: slot, now: 0)
        #expect(lookup(cache, "kcd_secret", now: TokenCache.lifetimeMilliseconds - 1).token === Self.token)
        #expect(lookup(cache, "kcd_other", now: 1).token == nil)
        #expect(lookup(cache, "kcd_secret", now: TokenCache.lifetimeMilliseconds).token == nil)
    }

    @Test func aRevocationDropsTheEntryAndRefusesAVerificationThatReadTheStoreBeforeIt() throws {
        let cache = try TokenCache()
        cache.insert(Self.token, at: lookup(cache, "kcd_secret", now: 0).slot, now: 0)
        // A second verification looks up (missing its own secret's entry), then reads the store...
        let (_, slot) = lookup(cache, "kcd_second", now: 0)
        // ...while the token is revoked.
        cache.revoke(id: Self.token.id)
        #expect(lookup(cache, "kcd_secret", now: 1).token == nil)
        cache.insert(Self.token, at: slot, now: 1)
        #expect(lookup(cache, "kcd_second", now: 2).token == nil, "cached from a read older than the revocation")
    }
}

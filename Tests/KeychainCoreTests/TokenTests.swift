@testable import KeychainCore
import Testing

@Suite struct TokenTests {
    @Test func aTokenAuthenticatesUntilRevoked() throws {
        let f = try Fixture()
        let issued = try f.keychain.createToken(name: "svc", accessGroups: ["a"], capabilities: [.read, .write], expiresAt: nil, caller: f.admin)
        #expect(issued.secret.hasPrefix("kcd_"))
        let token = try f.keychain.authenticate(bearer: issued.secret)
        #expect(token.accessGroups == ["a"])
        #expect(token.capabilities == [.read, .write])
        #expect(try f.keychain.listTokens(caller: f.admin).map(\.id).contains(token.id))
        try f.keychain.revokeToken(id: token.id, caller: f.admin)
        expectError(.anyAuthFailed, naming: "Authorization") { _ = try f.keychain.authenticate(bearer: issued.secret) }
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
            _ = try f.keychain.createToken(name: "past", accessGroups: ["a"], capabilities: [.read], expiresAt: 1, caller: f.admin)
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
            _ = try f.keychain.createToken(name: "n", accessGroups: ["b"], capabilities: [.read], expiresAt: nil, caller: limitedAdmin)
        }
    }
}

import TestSupport
import Testing

@testable import KeychainAPI

/// The router matches paths on their bytes: every route, and the near misses that must not match.
@Suite struct RouteTests {
    @Test(arguments: [
        ("/v1/items", Route.items), ("/v1/items/search", .itemsSearch), ("/v1/items/abc_-1", .item(ref: "abc_-1")),
        ("/v1/keychain", .keychain), ("/v1/keychain/lock", .lock), ("/v1/keychain/unlock", .unlock),
        ("/v1/keychain/passphrase", .passphrase), ("/v1/keychain/settings", .settings), ("/v1/keychain/backup", .backup),
        ("/v1/tokens", .tokens),
        ("/v1/tokens/self", .tokenSelf), ("/v1/tokens/tok_1", .token(id: "tok_1")), ("/v1/health", .health),
        ("/v1/items/é", .item(ref: "é")),
    ])
    func matches(path: String, route: Route) {
        #expect(Route(path: path) == route)
    }

    @Test(arguments: [
        "", "/", "/v1", "/v1/", "v1/items", "/v2/items", "//v1/items", "/V1/items", "/v1/Items", "/v1/items/",
        "/v1/items/a/b", "/v1/items/search/", "/v1/keychain/", "/v1/keychain/open", "/v1/keychain/lock/x", "/v1/keychain/backup/",
        "/v1/keychain/backups",
        "/v1/tokens/", "/v1/tokens/a/b", "/v1/health/", "/v1/unknown", "/v1/items?x", "/v1/itemsx",
    ])
    func refuses(path: String) {
        #expect(Route(path: path) == nil)
    }
}

/// `Authorization` values are read on their bytes: the scheme in any case, spaces trimmed.
@Suite struct BearerCredentialsTests {
    @Test(arguments: [
        ("Bearer kcd_abc", "kcd_abc"), ("bearer kcd_abc", "kcd_abc"), ("BEARER kcd_abc", "kcd_abc"),
        ("Bearer   kcd_abc  ", "kcd_abc"), ("BeArEr k", "k"),
    ])
    func credentialsAfterTheScheme(value: String, expected: String) {
        let found = Array(value.utf8).withUnsafeBufferPointer { KeychainResponder.bearerCredentials($0).map { Array($0) } }
        #expect(found == Array(expected.utf8))
    }

    @Test(arguments: ["", "Bearer", "Bearer ", "Bearer    ", "Basic kcd_abc", "Bearerkcd_abc", "Token kcd_abc", "Bearer\tkcd"])
    func noCredentials(value: String) {
        #expect(Array(value.utf8).withUnsafeBufferPointer { KeychainResponder.bearerCredentials($0) } == nil)
    }
}

@testable import KeychainAPI
import Testing

/// The router matches paths on their bytes: every route, and the near misses that must not match.
@Suite struct RouteTests {
    @Test(arguments: [
        ("/v1/items", Route.items), ("/v1/items/search", .itemsSearch), ("/v1/items/abc_-1", .item(ref: "abc_-1")),
        ("/v1/keychain", .keychain), ("/v1/keychain/lock", .lock), ("/v1/keychain/unlock", .unlock),
        ("/v1/keychain/passphrase", .passphrase), ("/v1/keychain/settings", .settings), ("/v1/tokens", .tokens),
        ("/v1/tokens/self", .tokenSelf), ("/v1/tokens/tok_1", .token(id: "tok_1")), ("/v1/health", .health),
        ("/v1/items/é", .item(ref: "é")),
    ])
    func matches(path: String, route: Route) {
        #expect(Route(path: path) == route)
    }

    @Test(arguments: [
        "", "/", "/v1", "/v1/", "v1/items", "/v2/items", "//v1/items", "/V1/items", "/v1/Items", "/v1/items/",
        "/v1/items/a/b", "/v1/items/search/", "/v1/keychain/", "/v1/keychain/open", "/v1/keychain/lock/x",
        "/v1/tokens/", "/v1/tokens/a/b", "/v1/health/", "/v1/unknown", "/v1/items?x", "/v1/itemsx",
    ])
    func refuses(path: String) {
        #expect(Route(path: path) == nil)
    }
}

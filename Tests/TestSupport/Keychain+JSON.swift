public import KeychainAPI
public import KeychainCore
public import KeychainJSON

/// The four operations with query dictionaries written as JSON, parsed as the API parses a
/// body (or, `lenient`, URL parameters): semantic tests read like Apple's, as dictionaries.
extension Keychain {
    @discardableResult
    public func add(_ object: JSONObject, token: AccessToken) throws(KeychainError) -> ItemResult {
        try add(QueryParser.parse(object), token: token)
    }

    public func search(_ object: JSONObject, token: AccessToken, lenient: Bool = false) throws(KeychainError) -> [ItemResult] {
        try search(QueryParser.parse(object, lenient: lenient), token: token)
    }

    public func searchPage(_ object: JSONObject, token: AccessToken) throws(KeychainError) -> SearchPage {
        try searchPage(QueryParser.parse(object), token: token)
    }

    @discardableResult
    public func update(
        query: JSONObject, attributesToUpdate: JSONObject, token: AccessToken, expectedVersion: Int64? = nil
    ) throws(KeychainError) -> [ItemResult] {
        try update(
            QueryParser.parse(query), attributesToUpdate: QueryParser.parse(attributesToUpdate), token: token,
            expectedVersion: expectedVersion)
    }

    @discardableResult
    public func delete(
        _ object: JSONObject, token: AccessToken, lenient: Bool = false, expectedVersion: Int64? = nil
    ) throws(KeychainError) -> Int {
        try delete(QueryParser.parse(object, lenient: lenient), token: token, expectedVersion: expectedVersion)
    }
}

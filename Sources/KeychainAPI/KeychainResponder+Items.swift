import KeychainCore
import MicroHTTP

extension KeychainResponder {
    /// `POST /v1/items`: 201 with `Location` and `ETag`.
    func add(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let result = try keychain.add(Self.bodyObject(request), token: token)
        return Self.items(
            201, [result], headers: [(name: "Location", value: "/v1/items/\(result.persistentRef)"), Self.etag(result)])
    }

    /// `GET /v1/items` (URL parameters or a JSON body) and `POST /v1/items/search`.
    func search(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let body = try Self.bodyObject(request, allowEmpty: request.head.method == "GET")
        let parameters = Self.parameterObject(request.head)
        if !body.isEmpty, !parameters.isEmpty {
            throw .param("query: give it either in URL parameters or in the body, not both")
        }
        let results =
            body.isEmpty && request.head.method == "GET"
            ? try keychain.search(parameters, token: token, lenient: true)
            : try keychain.search(body, token: token)
        return Self.items(200, results)
    }

    /// `PATCH /v1/items`: `{"query": {…}, "attributesToUpdate": {…}}`.
    func update(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let body = try Self.bodyObject(request)
        for key in body.keys where key != "query" && key != "attributesToUpdate" {
            throw .param("\(key): unknown key; expected \"query\" and \"attributesToUpdate\"")
        }
        guard case .object(let query)? = body["query"] else { throw .param("query: expected an object") }
        guard case .object(let changes)? = body["attributesToUpdate"] else {
            throw .param("attributesToUpdate: expected an object")
        }
        let results = try keychain.update(query: query, attributesToUpdate: changes, token: token)
        return Self.items(200, results)
    }

    /// `DELETE /v1/items` (URL parameters or a JSON body): `{"deleted": n}`.
    func delete(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let body = try Self.bodyObject(request, allowEmpty: true)
        let parameters = Self.parameterObject(request.head)
        if !body.isEmpty, !parameters.isEmpty {
            throw .param("query: give it either in URL parameters or in the body, not both")
        }
        let count =
            body.isEmpty
            ? try keychain.delete(parameters, token: token, lenient: true)
            : try keychain.delete(body, token: token)
        return Self.json(200, .object(["deleted": .int(Int64(count))]))
    }

    /// `GET /v1/items/{persistentRef}`: return keys from URL parameters; attributes and ref by default.
    func getItem(_ ref: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        var query = Self.parameterObject(request.head)
        for key in query.keys where !["returnData", "returnAttributes", "returnPersistentRef"].contains(key) {
            throw .param("\(key): only returnData, returnAttributes and returnPersistentRef apply to one item")
        }
        query["valuePersistentRef"] = .string(try Self.checkedRef(ref))
        query["synchronizable"] = .string("any")
        let results = try keychain.search(query, token: token, lenient: true)
        return Self.items(200, results, headers: [Self.etag(results[0])])
    }

    /// `PATCH /v1/items/{persistentRef}`: the body is the attributes to update; `If-Match` honoured.
    func patchItem(_ ref: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let changes = try Self.bodyObject(request)
        let results = try keychain.update(
            query: Self.refQuery(ref), attributesToUpdate: changes, token: token, expectedVersion: try Self.ifMatch(request))
        return Self.items(200, results, headers: [Self.etag(results[0])])
    }

    /// `DELETE /v1/items/{persistentRef}`; `If-Match` honoured.
    func deleteItem(_ ref: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let count = try keychain.delete(Self.refQuery(ref), token: token, expectedVersion: try Self.ifMatch(request))
        return Self.json(200, .object(["deleted": .int(Int64(count))]))
    }

    // MARK: helpers

    /// `{"items": [...]}`, written straight from the results.
    static func items(_ status: Int, _ results: [ItemResult], headers: [(name: String, value: String)] = []) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(16 + 96 * results.count)
        body.appendLiteral(#"{"items":["#)
        for n in results.indices {
            if n > 0 { body.append(UInt8(ascii: ",")) }
            results[n].write(into: &body)
        }
        body.appendLiteral("]}")
        return json(status, body: body, headers: headers)
    }

    static func etag(_ result: ItemResult) -> (name: String, value: String) {
        (name: "ETag", value: "\"\(result.version)\"")
    }

    /// A malformed reference names no item: the same 404 as a missing one.
    static func checkedRef(_ ref: String) throws(KeychainError) -> String {
        guard PersistentRef.decode(ref) != nil else { throw .itemNotFound }
        return ref
    }

    static func refQuery(_ ref: String) throws(KeychainError) -> JSONObject {
        ["valuePersistentRef": .string(try checkedRef(ref)), "synchronizable": .string("any")]
    }

    /// The version `If-Match` names (`"3"` or `W/"3"`); `nil` without the header or for `*`.
    static func ifMatch(_ request: HTTPRequest) throws(KeychainError) -> Int64? {
        guard let header = request.head.headers["If-Match"]?.trimmingSpaces, header != "*" else { return nil }
        var tag = Substring(header)
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        guard tag.count >= 3, tag.first == "\"", tag.last == "\"", let version = Int64(tag.dropFirst().dropLast()) else {
            throw .preconditionFailed("If-Match: not an ETag this server issued")
        }
        return version
    }
}

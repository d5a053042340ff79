import KeychainAudit
import KeychainCore
import KeychainJSON
import MicroHTTP

extension KeychainResponder {
    /// `POST /v1/items`: 201 with `Location` and `ETag`.
    func add(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let query = try QueryParser.parse(Self.bodyObject(request))
        return Self.added(try keychains.keychainForAdd(query, token: token).add(query, token: token))
    }

    /// `POST /v1/items` answered through `reply` once the item is durable.
    func add(
        _ request: HTTPRequest, _ token: AccessToken, reply: @escaping @Sendable (Result<HTTPResponse, KeychainError>) -> Void
    ) {
        let query: ItemQuery
        do { query = try QueryParser.parse(Self.bodyObject(request)) } catch {
            return reply(.failure(error))
        }
        let keychain: Keychain
        do { keychain = try keychains.keychainForAdd(query, token: token) } catch { return reply(.failure(error)) }
        keychain.add(query, token: token) { outcome in reply(outcome.map(Self.added)) }
    }

    static func added(_ result: ItemResult) -> HTTPResponse {
        items(201, [result], headers: [(name: "Location", value: "/v1/items/\(result.persistentRef)"), etag(result)])
    }

    /// `GET /v1/items` (URL parameters or a JSON body) and `POST /v1/items/search`.
    func search(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let search = try searchRequest(request)
        return try response(search, token: token)
    }

    /// A search route's query, and how its results are answered: `GET /v1/items` (URL parameters
    /// or a JSON body), `POST /v1/items/search` and `GET /v1/items/{persistentRef}`; `nil` for
    /// another route.
    func searchRequest(_ route: Route, _ request: HTTPRequest) throws(KeychainError) -> SearchRequest? {
        switch (route, request.head.method) {
        case (.items, "GET"), (.itemsSearch, "POST"): try searchRequest(request)
        case (.item(let ref), "GET"): try itemRequest(ref, request)
        default: nil
        }
    }

    private func searchRequest(_ request: HTTPRequest) throws(KeychainError) -> SearchRequest {
        let body = try Self.bodyObject(request, allowEmpty: request.head.method == "GET")
        let parameters = request.head.queryItems
        if !body.isEmpty, !parameters.isEmpty {
            throw .param("query: give it either in URL parameters or in the body, not both")
        }
        let query =
            body.isEmpty && request.head.method == "GET"
            ? try QueryParser.parse(parameters: parameters) : try QueryParser.parse(body)
        return try Self.shaped(SearchRequest(query: consume query, oneItem: false), request.head)
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
        let results = try keychains.update(
            QueryParser.parse(query), attributesToUpdate: QueryParser.parse(changes), token: token)
        return Self.updated(200, results, token)
    }

    /// `DELETE /v1/items` (URL parameters or a JSON body): `{"deleted": n}`.
    func delete(_ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let body = try Self.bodyObject(request, allowEmpty: true)
        let parameters = request.head.queryItems
        if !body.isEmpty, !parameters.isEmpty {
            throw .param("query: give it either in URL parameters or in the body, not both")
        }
        let query = body.isEmpty ? try QueryParser.parse(parameters: parameters) : try QueryParser.parse(body)
        return Self.deleted(try keychains.deleteItems(query, token: token))
    }

    /// `GET /v1/items/{persistentRef}`: return keys from URL parameters; attributes and ref by default.
    func getItem(_ ref: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let search = try itemRequest(ref, request)
        return try response(search, token: token)
    }

    private func itemRequest(_ ref: String, _ request: HTTPRequest) throws(KeychainError) -> SearchRequest {
        let parameters = request.head.queryItems
        let allowed = ["class", "returnData", "returnAttributes", "returnPersistentRef", "returnRef"]
        for (key, _) in parameters where !allowed.contains(key) {
            throw .param("\(key): only class and the return keys apply to one item")
        }
        var query = try QueryParser.parse(parameters: parameters)
        try Self.name(ref, in: &query)
        query.synchronizable = .any
        return try Self.shaped(SearchRequest(query: query, oneItem: true), request.head)
    }

    /// `PATCH /v1/items/{persistentRef}`: the body is the attributes to update; `If-Match` honoured.
    func patchItem(_ ref: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let changes = try QueryParser.parse(Self.bodyObject(request))
        let results = try keychains.update(
            Self.refQuery(ref, request.head), attributesToUpdate: changes, token: token,
            expectedVersion: try Self.ifMatch(request))
        return Self.updated(200, results, token, headers: [Self.etag(results[0])])
    }

    /// `DELETE /v1/items/{persistentRef}`; `If-Match` honoured. With `?class=identity`, the
    /// identity named by its certificate's ref: its certificate and its private key, in one
    /// transaction, as a delete by query removes them.
    func deleteItem(_ ref: String, _ request: HTTPRequest, _ token: AccessToken) throws(KeychainError) -> HTTPResponse {
        Self.deleted(
            try keychains.deleteItems(Self.refQuery(ref, request.head), token: token, expectedVersion: try Self.ifMatch(request)))
    }

    /// The query of a change to one item by its ref: the ref, and the `class` URL parameter
    /// (an identity is named by its certificate's ref); any other parameter is errSecParam.
    private static func refQuery(_ ref: String, _ head: HTTPRequestHead) throws(KeychainError) -> ItemQuery {
        for (key, _) in head.queryItems where key != "class" {
            throw .param("\(key): only class applies to a change of one item")
        }
        var query = try QueryParser.parse(parameters: head.queryItems)
        try name(ref, in: &query)
        return query
    }

    // MARK: helpers

    /// `{"items": [...]}`, written straight from the results.
    /// With `next` (a page of a longer answer), `{"items": [...], "next": "<pageAfter cursor>"}`.
    static func items(_ status: Int, _ results: [ItemResult], next: String? = nil, headers: [(name: String, value: String)] = [])
        -> HTTPResponse
    {
        var body: [UInt8] = []
        body.reserveCapacity(16 + 96 * results.count)
        body.appendLiteral(#"{"items":["#)
        for n in results.indices {
            if n > 0 { body.append(UInt8(ascii: ",")) }
            results[n].write(into: &body)
        }
        body.appendLiteral("]")
        if let next {
            // A cursor is base64url: nothing in it needs escaping.
            body.appendLiteral(#","next":""#)
            body.append(contentsOf: next.utf8)
            body.append(UInt8(ascii: "\""))
        }
        body.appendLiteral("}")
        var response = json(status, body: body, headers: headers)
        // Only an identity's answer reads two items (its key's ref beside it).
        response.touched =
            results.contains { $0.keyRef != nil } ? results.flatMap(\.auditedRefs) : results.map(\.auditedRef)
        response.carriesSecret = results.contains(where: \.carriesSecret)
        return response
    }

    /// An update's answer: the items as a search would give them, or `{"updated": n}` to a token
    /// that may not search (write without read or list), which learns nothing of their attributes.
    static func updated(
        _ status: Int, _ results: [ItemResult], _ token: AccessToken, headers: [(name: String, value: String)] = []
    )
        -> HTTPResponse
    {
        guard token.has(.read) || token.has(.list) else {
            var response = json(status, .object(["updated": .int(Int64(results.count))]), headers: headers)
            response.touched = results.map(\.auditedRef)
            return response
        }
        return items(status, results, headers: headers)
    }

    /// `{"deleted": n}`, touching the deleted items' refs.
    static func deleted(_ refs: [(keychain: String, ref: [UInt8])]) -> HTTPResponse {
        var response = json(200, .object(["deleted": .int(Int64(refs.count))]))
        response.touched = refs.map { AuditRecord.refBytes($0.ref, keychain: $0.keychain) }
        return response
    }

    static func etag(_ result: ItemResult) -> (name: String, value: String) {
        (name: "ETag", value: "\"\(result.version)\"")
    }

    /// Names the reference's item, and its keychain, in `query`; a malformed reference names
    /// no item: the same 404 as a missing one.
    static func name(_ ref: String, in query: inout ItemQuery) throws(KeychainError) {
        guard let (keychain, bytes) = PersistentRef.parse(ref) else { throw .itemNotFound }
        query.persistentRef = bytes
        query.keychain = keychain
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

/// A search as a route asks it: the query, whether the route names one item (whose answer
/// carries its `ETag`), and the form the client asked for (`Accept`).
struct SearchRequest: Sendable {
    enum Form: Sendable {
        case json
        /// `application/x-pem-file`.
        case pem
        /// `application/x-pkcs12`, sealed under this password.
        case pkcs12(password: String)
    }

    var query: ItemQuery
    let oneItem: Bool
    var form = Form.json

    /// Whether the answer is made where the search ran (a PKCS#12 is sealed with PBKDF2 and
    /// carries the certificates that issued its identity's), never on the store's thread.
    var answersAtOnce: Bool {
        if case .pkcs12 = form { return true }
        return false
    }

    func response(_ page: SearchPage) throws(KeychainError) -> HTTPResponse {
        switch form {
        case .pem: return try KeychainResponder.pemResponse(page, oneItem: oneItem)
        case .pkcs12: throw .param("Accept: a PKCS#12 answer is made by the responder")
        case .json:
            return oneItem
                ? KeychainResponder.items(200, page.items, headers: [KeychainResponder.etag(page.items[0])])
                : KeychainResponder.items(200, page.items, next: page.next)
        }
    }
}

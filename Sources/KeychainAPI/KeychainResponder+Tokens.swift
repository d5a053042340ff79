import KeychainCore
import KeychainJSON
import MicroHTTP

extension KeychainResponder {
    /// `POST /v1/tokens`: 201 with the token's description and, this once, its secret.
    func createToken(_ request: HTTPRequest, _ caller: AccessToken) throws(KeychainError) -> HTTPResponse {
        let body = try Self.bodyObject(request)
        for key in body.keys where !["name", "accessGroups", "keychains", "capabilities", "expiresAt"].contains(key) {
            throw .param("\(key): unknown key")
        }
        guard case .string(let name)? = body["name"] else { throw .param("name: expected a string") }
        guard case .array(let groupValues)? = body["accessGroups"] else {
            throw .param("accessGroups: expected an array of strings")
        }
        var groups: [String] = []
        for value in groupValues {
            guard case .string(let group) = value else { throw .param("accessGroups: expected an array of strings") }
            groups.append(group)
        }
        var keychains: [String]?
        if let value = body["keychains"] {
            guard case .array(let values) = value else { throw .param("keychains: expected an array of keychain names") }
            keychains = try values.map { (value) throws(KeychainError) in
                guard case .string(let name) = value else { throw .param("keychains: expected an array of keychain names") }
                return name
            }
        }
        guard case .array(let capabilityValues)? = body["capabilities"] else {
            throw .param("capabilities: expected an array of \(Capability.names)")
        }
        var capabilities = Set<Capability>()
        for value in capabilityValues {
            guard case .string(let name) = value, let capability = Capability(rawValue: name) else {
                throw .param("capabilities: expected an array of \(Capability.names)")
            }
            capabilities.insert(capability)
        }
        var expiresAt: Int64?
        switch body["expiresAt"] {
        case nil, .null?: break
        case .string(let text)?:
            guard let ms = RFC3339.parse(text) else { throw .param("expiresAt: expected an RFC 3339 date-time") }
            expiresAt = ms
        default: throw .param("expiresAt: expected an RFC 3339 date-time or null")
        }
        let issued = try keychain.createToken(
            name: name, accessGroups: groups, keychains: keychains, capabilities: capabilities, expiresAt: expiresAt,
            caller: caller)
        guard case .object(var json) = issued.token.json else { return Self.json(500, .null) }
        json["token"] = .string(issued.secret)
        var response = Self.json(201, .object(json), headers: [(name: "Location", value: "/v1/tokens/\(issued.token.id)")])
        // The bearer secret is a credential: not answered unless its audit line is written (the
        // token then stays, its secret never given; `GET /v1/tokens` lists it, to revoke).
        response.carriesSecret = true
        return response
    }

    /// `GET /v1/tokens`: every token's description, never a secret.
    func listTokens(_ caller: AccessToken) throws(KeychainError) -> HTTPResponse {
        let tokens = try keychain.listTokens(caller: caller)
        return Self.json(200, .object(["tokens": .array(tokens.map(\.json))]))
    }

    /// `DELETE /v1/tokens/{id}`: 204, or 404 for an unknown id.
    func revokeToken(_ id: String, _ caller: AccessToken) throws(KeychainError) -> HTTPResponse {
        try keychains.revokeToken(id: id, caller: caller)
        return HTTPResponse(status: 204)
    }
}

public import KeychainCore
public import KeychainJSON

extension AccessToken {
    /// The public description (never the secret), as the token routes show it.
    public var json: JSON {
        var object: JSONObject = [
            "id": .string(id), "name": .string(name), "accessGroups": .array(accessGroups.map { .string($0) }),
            "keychains": .array(keychains.map { .string($0) }),
            "capabilities": .array(capabilities.sorted().map { .string($0.rawValue) }),
            "createdAt": .string(RFC3339.format(milliseconds: createdAt)),
        ]
        object["expiresAt"] = expiresAt.map { .string(RFC3339.format(milliseconds: $0)) } ?? .null
        return .object(object)
    }
}

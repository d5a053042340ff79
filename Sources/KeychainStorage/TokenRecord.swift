/// A token as storage sees it: a public id, a keyed hash of the secret, a sealed description.
public struct TokenRecord: Sendable, Equatable {
    public var id: String
    public var hash: [UInt8]
    public var sealed: [UInt8]
    /// Milliseconds since 1970; `nil` never expires.
    public var expires: Int64?
    public var created: Int64

    public init(id: String, hash: [UInt8], sealed: [UInt8], expires: Int64?, created: Int64) {
        self.id = id
        self.hash = hash
        self.sealed = sealed
        self.expires = expires
        self.created = created
    }
}

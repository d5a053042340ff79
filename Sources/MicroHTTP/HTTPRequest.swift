/// A whole request: its head and its body.
public struct HTTPRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: [UInt8]
    /// The body, when it was written to a file as it arrived (`HTTPSpooledBody`); `body` is
    /// then empty.
    public var spooled: HTTPSpooledBody?

    public init(head: HTTPRequestHead, body: [UInt8] = [], spooled: HTTPSpooledBody? = nil) {
        self.head = head
        self.body = body
        self.spooled = spooled
    }

    /// Whether the request carries no body, held or spooled.
    public var hasNoBody: Bool { body.isEmpty && (spooled?.count ?? 0) == 0 }
}

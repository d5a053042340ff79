/// Refusals the transport makes before the application sees a request.
public enum HTTPTransportError: Sendable, Equatable {
    /// `Content-Length` with `Transfer-Encoding`, two `Content-Length`, two `Host` headers, or an unparsable length.
    case malformedFraming(String)
    /// The body (declared or counted so far) exceeds `maxBodyBytes`, or preflight's lower limit.
    case bodyTooLarge(limit: Int)
    /// The serial worker already has `serialWorkerQueueLimit` requests waiting (each one, say,
    /// an Argon2id derivation): answered at once instead of queued.
    case serialWorkerBusy(queued: Int)
    /// The transfer worker already has `serialWorkerQueueLimit` requests waiting.
    case transferWorkerBusy(queued: Int)
    /// A large body could not be written to its spool file (a full disk): 503.
    case spoolFailed
    /// A part of the head that a proxy in front could read differently from this server, so
    /// refused (400) before any routing or authentication: `field` names the part ("method",
    /// "path", "request-line", "header", "Host", "Authorization"), `reason` says what is wrong.
    /// Neither holds a header value.
    case malformedHead(field: String, reason: String)
    /// The request target is longer than `maxRequestTargetBytes`, or its query has more than
    /// `maxQueryItems` parameters (414).
    case requestTargetTooLong(String)
    /// The client's address already holds `limit` connections, none of them idle: its new
    /// connection's first request is answered at once (503 with `Retry-After`), then closed.
    case tooManyConnections(limit: Int)
}

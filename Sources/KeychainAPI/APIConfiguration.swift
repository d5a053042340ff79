public import KeychainAudit
public import KeychainLog

/// Settings of the HTTP API above the transport.
public struct APIConfiguration: Sendable {
    /// Peers whose `X-Forwarded-For` is believed (the reverse proxy's addresses).
    public var trustedProxies: [String] = []
    /// Client addresses whose unlock failures are counted apart (`AddressThrottle`); past it
    /// the least recent is forgotten.
    public var unlockAddressCapacity = 16_384
    /// Access lines a second for requests without a valid token (health checks, unlocks,
    /// refusals); past it they are counted, and the count is logged once the next second.
    public var anonymousLogLinesPerSecond = 100
    /// Where access lines go straight as bytes, in `BufferedLogHandler`'s format under the
    /// logger's label (`LogWriter.append(level:label:source:message:)`); `nil`: through the logger.
    /// keychaind sets it to the writer its logger writes through: the same lines, at about two
    /// thirds of the cost.
    public var accessLogWriter: LogWriter?
    /// Where every request's audit line goes (`AuditLog`); `nil`: no audit log.
    public var auditLog: AuditLog?
    /// Where every request is counted and `GET /metrics` reads from; `nil`: a registry of the
    /// responder's own. keychaind makes it before the store, which reports its commits to it.
    public var metrics: KeychainMetrics?
    /// The largest migration bundle an import takes as its body, held in memory whole (larger
    /// is 413 before any of it is read, whatever the transport's `maxBodyBytes`). An export
    /// streams its bundle, of any size.
    public var maxBundleBytes = 256 << 20
    /// Vault KV version 2 mounts and the access group each stands for (docs/vault-kv.md).
    public var kvMounts: [String: String] = ["secret": "default"]

    public init() {}

    /// The path segments no mount may take, for messages: `items, keychain, … or keys`.
    public static var reservedMountNames: String { Route.reservedNames }

    /// The mounts of `mount=group` entries; `nil` names the entry at fault: a mount is one path
    /// segment that no route of the API takes, a group is not empty, and no mount comes twice.
    public static func kvMounts(_ entries: [String]) -> Result<[String: String], KVMountError> {
        var mounts: [String: String] = [:]
        for entry in entries {
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, let mount = parts.first, let group = parts.last, !mount.isEmpty, !group.isEmpty,
                !mount.contains("/"), !mount.contains("%"),
                !Route.reservedSegments.contains(where: { $0.description == mount }), mounts[mount] == nil
            else {
                return .failure(KVMountError(entry: entry))
            }
            mounts[mount] = group
        }
        return .success(mounts)
    }
}

/// A `mount=group` entry that names no usable mount.
public struct KVMountError: Error, Sendable {
    public let entry: String
}

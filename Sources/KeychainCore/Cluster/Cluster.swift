import KeychainCrypto

/// What replicas sharing one store (`SharedStore`) tell each other through it, in the
/// meta table: the lock state, a count of token revocations, and each replica's heartbeat.
enum Cluster {
    static let lockStateKey = "cluster.lockState"
    static let revocationsKey = "cluster.revocations"
    static let replicasKey = "cluster.replicas"
    /// A replica whose heartbeat is older than this is not live.
    static let leaseMilliseconds: Int64 = 5_000
    /// How often a replica publishes its heartbeat.
    static let heartbeatMilliseconds: Int64 = 1_000
}

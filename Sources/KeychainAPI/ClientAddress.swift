import MicroHTTP

/// Which address a request comes from, honouring `X-Forwarded-For` only from trusted proxies.
///
/// Addresses are compared in `IPAddressText.canonical` form, so that a proxy written as IPv4
/// matches its IPv4-mapped peer address and a mapped client counts as its IPv4 address.
struct ClientAddress: Sendable {
    let trustedProxies: Set<String>

    init(trustedProxies: Set<String>) {
        self.trustedProxies = Set(trustedProxies.map(IPAddressText.canonical))
    }

    /// The client: the peer itself, unless the peer is a trusted proxy; then the right-most
    /// `X-Forwarded-For` entry that is not itself a trusted proxy (entries further left are
    /// the client's own claims and cannot be trusted). `forwardedFor` is read only for a trusted
    /// peer: the headers are not searched for it on every other request.
    func resolve(peer: String, forwardedFor: @autoclosure () -> [String]) -> String {
        let peer = IPAddressText.canonical(peer)
        guard trustedProxies.contains(peer) else { return peer }
        let forwardedFor = forwardedFor()
        guard !forwardedFor.isEmpty else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: " \t") }.filter {
            !$0.isEmpty
        }
        .map(IPAddressText.canonical)
        for hop in hops.reversed() where !trustedProxies.contains(hop) {
            return hop
        }
        return hops.first ?? peer
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = self[...]
        while let c = s.first, chars.contains(c) { s = s.dropFirst() }
        while let c = s.last, chars.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

import KeychainCore
import KeychainJSON
import MicroHTTP
import Synchronization

/// `GET /v1/events`: the keychain's events as server-sent events (docs/events.md).
extension KeychainResponder {
    /// How long a lock's answer waits for its event to reach every subscriber, at most.
    static let lockEventWaitMilliseconds = 1000

    func events(_ request: HTTPRequest, _ token: AccessToken) -> HTTPResponse {
        let lastEventID = request.head.headers.values("Last-Event-ID").last
        let target = WeakBody()
        let subscription = keychain.events.subscribe(after: lastEventID, tokenID: token.id) { target.body?.wake() }
        let stream = EventStream(subscription: subscription, token: token, clock: keychain.clock)
        let body = HTTPStreamBody(live: { stream.next() })
        target.body = body
        var response = HTTPResponse(
            status: 200,
            headers: [
                (name: "Content-Type", value: "text/event-stream"), (name: "Cache-Control", value: "no-store"),
                // nginx passes each event on at once instead of buffering the stream.
                (name: "X-Accel-Buffering", value: "no"),
            ])
        response.bodyStream = body
        return response
    }
}

/// The body a subscription's wake-ups reach: weakly, since the body owns the stream that owns
/// the subscription.
final class WeakBody: Sendable {
    private struct Reference {
        weak var body: HTTPStreamBody?
    }

    private let slot = Mutex(Reference())

    var body: HTTPStreamBody? {
        get { slot.withLock { $0.body } }
        set { slot.withLock { $0.body = newValue } }
    }
}

/// One subscriber's stream: its subscription's events that its token may see, in the
/// `text/event-stream` format, a comment line when nothing was sent for a while, and the end
/// after a `reset` for falling behind (cut off), the token's own revocation, or its expiry.
final class EventStream: Sendable {
    /// Milliseconds without an event after which a comment line is sent: a proxy keeps the
    /// stream open, and a client gone shows itself.
    static let keepAliveMilliseconds: Int64 = 15_000

    private let subscription: Subscription
    private let token: AccessToken
    private let clock: any KeychainClock
    private let state: Mutex<State>

    private struct State {
        var started = false
        var ending = false
        var lastSent: Int64
    }

    init(subscription: Subscription, token: AccessToken, clock: any KeychainClock) {
        self.subscription = subscription
        self.token = token
        self.clock = clock
        state = Mutex(State(lastSent: clock.uptime()))
    }

    deinit {
        subscription.cancel()
    }

    /// The live body's producer: called by the transport once all it was given before is sent.
    func next() -> HTTPStreamBody.Next {
        subscription.handedOver()
        return state.withLock { state -> HTTPStreamBody.Next in
            if state.ending { return .end }
            // An expired token reads nothing more, events included.
            if let expiry = token.expiresAt, clock.now() >= expiry { return .end }
            let now = clock.uptime()
            var text = ""
            if !state.started {
                state.started = true
                // How long a client waits before reconnecting, and bytes that show the stream is open.
                text = "retry: 2000\n: keychaind events\n\n"
            }
            switch subscription.next() {
            case .reset(let id, let fellBehind):
                text += Self.event(id: id, name: "reset", data: ["reason": .string(fellBehind ? "behind" : "resume")])
                // A subscriber a whole history behind is cut off: it reconnects from the reset.
                if fellBehind { state.ending = true }
            case .events(let events):
                for event in events where event.isVisible(to: token) {
                    text += Self.event(id: event.id, name: event.name.rawValue, data: Self.data(event))
                    // A revoked token's stream ends with its revocation.
                    if event.name == .tokenRevoked { state.ending = true }
                }
                if events.isEmpty && text.isEmpty {
                    guard now - state.lastSent >= Self.keepAliveMilliseconds else { return .wait }
                    text = ": keep-alive\n\n"
                }
            }
            if text.isEmpty { return .piece([]) }
            state.lastSent = now
            return .piece(Array(text.utf8))
        }
    }

    /// One event in the `text/event-stream` format.
    static func event(id: String, name: String, data: JSONObject) -> String {
        "id: \(id)\nevent: \(name)\ndata: \(String(decoding: JSON.object(data).serialized(), as: UTF8.self))\n\n"
    }

    /// An event's data: what happened to what, never an attribute value or a secret.
    static func data(_ event: KeychainEvent) -> JSONObject {
        var data: JSONObject = [
            "keychain": .string(event.keychain), "time": .string(RFC3339.format(milliseconds: event.time)),
        ]
        if let itemClass = event.itemClass { data["class"] = .string(itemClass.name) }
        if let group = event.accessGroup { data["accessGroup"] = .string(group) }
        if let ref = event.persistentRef { data["persistentRef"] = .string(PersistentRef.encode(ref, keychain: event.keychain)) }
        if let tokenID = event.tokenID { data["tokenID"] = .string(tokenID) }
        return data
    }
}

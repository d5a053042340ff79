import Foundation
import KeychainJSON
import Synchronization

/// One keychain event from the server's stream (`GET /v1/events`): what Keychain Services
/// reports to a callback (`SecKeychainAddCallback`'s event and `SecKeychainCallbackInfo`).
public struct KeychainEventInfo: Sendable, Equatable {
    /// The event, named as the server sends it.
    public enum Event: String, Sendable {
        /// The keychain locked (`kSecLockEvent`).
        case lock
        /// The keychain unlocked (`kSecUnlockEvent`).
        case unlock
        /// An item was added (`kSecAddEvent`).
        case add
        /// An item changed (`kSecUpdateEvent`).
        case update
        /// An item was deleted (`kSecDeleteEvent`).
        case delete
        /// The keychain's passphrase changed (`kSecPasswordChangedEvent`).
        case passwordChanged
        /// The keychains the token may use changed (`kSecKeychainListChangedEvent`).
        case keychainListChanged
        /// This client's token was revoked; the stream ends after it.
        case tokenRevoked
        /// Events were missed: drop whatever was cached from the keychain.
        case reset
    }

    /// Its place in the stream: give it to ``KeychainClient/events(after:)`` to resume after it.
    public let id: String
    /// What happened.
    public let event: Event
    /// The keychain's name.
    public let keychain: String?
    /// An item event's item's class (`genericPassword`).
    public let itemClass: String?
    /// An item event's item's access group.
    public let accessGroup: String?
    /// An item event's item's persistent reference.
    public let persistentRef: String?
    /// A `tokenRevoked` event's token id.
    public let tokenID: String?

    /// An event read from the stream: nil for an event this client does not know.
    init?(id: String, name: String, data: JSONObject) {
        guard let event = Event(rawValue: name) else { return nil }
        self.id = id
        self.event = event
        keychain = data["keychain"]?.stringValue
        itemClass = data["class"]?.stringValue
        accessGroup = data["accessGroup"]?.stringValue
        persistentRef = data["persistentRef"]?.stringValue
        tokenID = data["tokenID"]?.stringValue
    }
}

extension KeychainClient {
    /// The keychain's events as they happen, after `lastEventID` (resumed from the server's
    /// history, a ``KeychainEventInfo/Event/reset`` first when it no longer has it) or from now.
    /// The sequence ends when the server ends the stream (after a revocation of the token) and
    /// throws when the connection is lost; iterate it again with the last id to resume.
    public func events(after lastEventID: String? = nil) -> AsyncThrowingStream<KeychainEventInfo, any Error> {
        Self.events(transport, token: configuration.token, after: lastEventID)
    }

    /// `events(after:)` over `transport`, holding no client: the cache's follower uses it too.
    static func events(_ transport: Transport, token: BearerToken?, after lastEventID: String?)
        -> AsyncThrowingStream<KeychainEventInfo, any Error>
    {
        AsyncThrowingStream { continuation in
            let task = Task {
                var request = Request.get("/v1/events")
                if let lastEventID { request.headers.append((name: "Last-Event-ID", value: lastEventID)) }
                var parser = EventStreamParser()
                do {
                    try await transport.stream(request, token: token) { bytes in
                        for event in parser.feed(bytes) { continuation.yield(event) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// The `text/event-stream` format, read piece by piece: an event ends at an empty line; `id:`,
/// `event:` and `data:` lines make it, comment lines (`:`) and `retry:` are skipped.
struct EventStreamParser {
    private var pending: [UInt8] = []

    /// The events the bytes complete.
    mutating func feed(_ bytes: [UInt8]) -> [KeychainEventInfo] {
        pending += bytes
        var events: [KeychainEventInfo] = []
        while let end = Self.blockEnd(in: pending) {
            let block = String(decoding: pending[..<end], as: UTF8.self)
            pending.removeSubrange(..<(end + 2))
            var id = ""
            var name = ""
            var data: JSONObject = [:]
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = (try? JSON.parse(Array(line.dropFirst(6).utf8)))?.objectValue ?? [:] }
            }
            if !name.isEmpty, let event = KeychainEventInfo(id: id, name: name, data: data) { events.append(event) }
        }
        return events
    }

    /// Where the first block ends (its `\n\n`).
    private static func blockEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for n in 0..<(bytes.count - 1) where bytes[n] == 0x0A && bytes[n + 1] == 0x0A { return n }
        return nil
    }
}

/// Keeps a client's cache in step with the keychain: follows its events and empties the cache
/// on every event but an unlock, and whenever the stream is lost (events may have been missed
/// meanwhile); reconnects with the last id, waiting longer after each failure (up to 30 s).
/// Stops for good when the server refuses the stream (a token revoked, a server without events).
final class CacheFollower: Sendable {
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(transport: Transport, token: BearerToken?, cache: SecretCache) {
        let follow = Task.detached {
            var last: String?
            var wait = Duration.seconds(1)
            while !Task.isCancelled {
                do {
                    for try await event in KeychainClient.events(transport, token: token, after: last) {
                        last = event.id
                        wait = .seconds(1)
                        if event.event != .unlock { cache.removeAll() }
                    }
                    cache.removeAll()
                } catch let error as KeychainError where Self.refusals.contains(error.status) {
                    cache.removeAll()
                    return
                } catch {
                    cache.removeAll()
                }
                try? await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(30))
            }
        }
        task.withLock { $0 = follow }
    }

    /// What ends the following for good: the token refused, or no event stream on the server.
    static let refusals = [errSecAuthFailed, errSecMissingEntitlement, errSecUnimplemented]

    func stop() {
        task.withLock { $0?.cancel() }
    }

    deinit {
        stop()
    }
}

import ArgumentParser
import KeychainClient

/// `keychainctl events`: the keychain's events as they happen, a line each (as
/// `SecKeychainAddCallback` would report them), until interrupted or the token is revoked.
struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the keychain's events as they happen, one line each.",
        discussion: """
            Each line is the event's name, then its fields as name=value: id (to resume with \
            --after), keychain, and for an item event class, accessGroup and persistentRef. \
            A reset line says events were missed. Ends when the token is revoked.
            """)
    @Option(name: .customLong("after"), help: "Resume after this event id.") var after: String?
    @Option(name: .customLong("count"), help: "Stop after this many events.") var count: Int?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        var printed = 0
        do {
            for try await event in client.events(after: after) {
                Terminal.out(Self.line(event))
                printed += 1
                if let count, printed >= count { break }
            }
        } catch let error as KeychainError {
            throw SecurityFailure("events", error)
        }
    }

    static func line(_ event: KeychainEventInfo) -> String {
        let fields: [(String, String?)] = [
            ("id", event.id), ("keychain", event.keychain), ("class", event.itemClass), ("accessGroup", event.accessGroup),
            ("persistentRef", event.persistentRef), ("tokenID", event.tokenID),
        ]
        return ([event.event.rawValue] + fields.compactMap { name, value in value.map { "\(name)=\($0)" } })
            .joined(separator: " ") + "\n"
    }
}

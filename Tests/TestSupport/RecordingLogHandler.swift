import Logging
import Synchronization

/// A log handler that keeps every record, to check what the server writes (and never writes).
public struct RecordingLogHandler: LogHandler {
    public final class Store: Sendable {
        private let lines = Mutex<[String]>([])
        public init() {}
        public var all: [String] { lines.withLock { $0 } }
        public func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    public let store: Store
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(store: Store) {
        self.store = store
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        store.append("\(event.level) \(event.message) \(fields)")
    }
}

public import Logging

/// A swift-log handler that writes through a `LogWriter`, in swift-log's `StreamLogHandler`
/// format (`timestamp level label : key=value … [source] message`), timestamps in UTC.
///
/// Lines at notice and above are written at once; the rest (the per-request line) in batches.
public struct BufferedLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:] {
        didSet { prettyMetadata = Self.pretty(metadata) }
    }
    public var metadataProvider: Logger.MetadataProvider?

    private let label: String
    private let writer: LogWriter
    private var prettyMetadata = ""

    public init(label: String, writer: LogWriter, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.writer = writer
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let extra = event.metadata.map { $0.isEmpty ? nil : $0 } ?? nil
        let provided = metadataProvider?.get()
        let pretty: String
        if extra == nil, provided?.isEmpty ?? true {
            pretty = prettyMetadata
        } else {
            pretty = Self.pretty(metadata.merging(provided ?? [:]) { $1 }.merging(extra ?? [:]) { $1 })
        }
        let message = event.message.description
        writer.append(level: event.level, label: label, metadata: pretty, source: event.source) { line in
            line.append(contentsOf: message.utf8)
        }
    }

    private static func pretty(_ metadata: Logger.Metadata) -> String {
        metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}

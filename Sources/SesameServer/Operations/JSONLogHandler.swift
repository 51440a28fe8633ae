import Foundation
public import Logging
import SesameCore
import Synchronization

/// Writes one JSON object per line to standard error (`log_format = json`): `timestamp`,
/// `level`, `message`, `logger`, `source`, then every metadata field (the request's
/// `request_id` among them) as a string.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    /// One writer for the process, so lines of concurrent requests never interleave.
    private static let output = Mutex(FileHandle.standardError)

    /// A handler for loggers labelled `label`.
    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) { fields[key] = "\(value)" }
        fields["timestamp"] = ISO8601.string(Date())
        fields["level"] = event.level.rawValue
        fields["message"] = "\(event.message)"
        fields["logger"] = label
        fields["source"] = event.source
        guard var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        line.append(0x0A)
        Self.output.withLock { $0.write(line) }
    }
}

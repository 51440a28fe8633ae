public import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The text log format (`log_format = text`, the default): the lines swift-log's
/// `StreamLogHandler` writes to standard error, byte for byte, at less cost per request.
///
/// `StreamLogHandler` formats its whole metadata again each time one field is set, and every
/// request sets two (Hummingbird's `hb.request.id`, then our `request_id`) before the one
/// access line that needs them: three sorted renderings per request instead of one
/// (docs/performance.md). Here a field is stored as set and rendered when a line is written.
public struct TextLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    /// A handler for loggers labelled `label`, with the process's metadata provider.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        Self.emit(line(event, at: Self.timestamp()))
    }

    /// `event` as one line: time, level, label, the fields sorted by key, source, message.
    func line(_ event: LogEvent, at timestamp: String) -> String {
        var line = "\(timestamp) \(event.level)\(label.isEmpty ? "" : " ")\(label):"
        for (key, value) in fields(of: event).sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
        return line + " [\(event.source)] \(event.message)\n"
    }

    /// The handler's metadata, then the provider's, then the line's own, then its error: a
    /// later source wins a key, as in `StreamLogHandler`.
    private func fields(of event: LogEvent) -> Logger.Metadata {
        var fields = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            fields.merge(provided) { $1 }
        }
        if let explicit = event.metadata, !explicit.isEmpty {
            fields.merge(explicit) { $1 }
        }
        if let error = event.error {
            fields["error.message"] = "\(error)"
            fields["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return fields
    }

    /// Local time as `2026-11-26T10:47:34+0000`, the zone read once (``LocalTimeZone``).
    private static func timestamp() -> String {
        var now = time(nil)
        var local = tm()
        guard localtime_r(&now, &local) != nil else { return "<unknown>" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let count = strftime(buffer.baseAddress!, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
    }

    /// Serialises writers, so lines of concurrent requests never interleave.
    private static let output = Mutex(())

    /// One unbuffered write per line (looping over partial writes): nothing logged waits in
    /// a buffer for a crash to lose.
    private static func emit(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            output.withLock { _ in
                var offset = 0
                while offset < bytes.count {
                    let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
        }
    }
}

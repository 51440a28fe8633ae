import ArgumentParser
import Foundation
import NIOCore
import SesameCore
import SesameServer
import SesameStorageSQL

/// What `serve` writes besides its log: the start banner on standard output and the reasons
/// it will not start on standard error. With `log_format = json` each is one JSON object a
/// line, shaped as the log's lines, so a collector that reads JSON reads every line.
struct ServeOutput: Sendable {
    /// Whether lines are JSON objects.
    let json: Bool

    /// Plain text: what every command but a JSON-logging `serve` writes.
    static let text = ServeOutput(json: false)

    /// The banner, then `ready in N ms`, written unbuffered: scripts wait for that line to
    /// know the server is up.
    func started(_ banner: Banner, port: Int, after elapsed: Duration) {
        let ready = "ready in \(elapsed.milliseconds) ms"
        let text =
            json
            ? line(banner.fields(port: port)) + line(["message": ready, "ready_ms": String(elapsed.milliseconds)])
            : banner.text(port: port) + "\n" + ready + "\n"
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// A reason not to start, on standard error.
    func error(_ message: String) {
        FileHandle.standardError.write(Data((json ? line(["message": message], level: "error") : message + "\n").utf8))
    }

    /// One JSON object with the fields of ``JSONLogHandler``'s lines.
    private func line(_ fields: [String: String], level: String = "info") -> String {
        var fields = fields
        fields["timestamp"] = ISO8601.string(Date())
        fields["level"] = level
        fields["logger"] = "sesame"
        fields["source"] = "SesameCLI"
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]))
        return String(decoding: data ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }

    /// Whether `error` is a listener's port taken by another process.
    static func isAddressInUse(_ error: any Error) -> Bool {
        if let error = error as? IOError, error.errnoCode == EADDRINUSE { return true }
        return "\(error)".contains("Address already in use")
    }

    /// The one line a taken port gets, naming the address and port.
    static func addressInUse(host: String, port: Int) -> String {
        "sesame: cannot listen on \(host):\(port): the address is already in use; stop what listens there or "
            + "choose another port"
    }
}

/// Loads configuration for a command, printing every problem and exiting 78 (EX_CONFIG).
enum CLIConfiguration {
    static func load(flags: [String: String]) async throws -> ServerConfiguration {
        try await reporting { try await ServerConfiguration.load(flags: flags, environment: ProcessInfo.processInfo.environment) }
    }

    /// Runs `load`, printing a ``ConfigurationError``'s problems (or why the schema is not
    /// this version's) and exiting 78: restarting cannot help, the operator must act.
    static func reporting<T>(_ output: ServeOutput = .text, _ load: () async throws -> T) async throws -> T {
        do {
            return try await load()
        } catch let error as ConfigurationError {
            output.error(error.description)
            throw ExitCode(78)
        } catch let error as SchemaVersionError {
            output.error("sesame: \(error.description)")
            throw ExitCode(78)
        }
    }
}

import Foundation

/// Runs the built `sesame` executable, as an operator or a script would.
enum Sesame {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let binary = packageRoot.appendingPathComponent(".build/debug/sesame").path

    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `sesame arguments…` to completion.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SESAME_") }
            .merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Parses a command's JSON output.
    static func json(_ arguments: [String]) throws -> Any {
        let output = try run(arguments)
        guard output.status == 0 else { throw CLIError("sesame \(arguments) failed: \(output.stderr)") }
        return try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
    }

    /// A fresh data directory, removed by the caller.
    static func temporaryDirectory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-cli-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// A `sesame serve` child process on a free port.
final class RunningServer {
    let process = Process()
    let port: Int

    init(dataDirectory: String, environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: Sesame.binary)
        process.arguments = ["serve", "--port", "0", "--data-dir", dataDirectory]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SESAME_") }
            .merging(environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("ready in"), let data = try out.fileHandleForReading.read(upToCount: 1), !data.isEmpty {
            text += String(decoding: data, as: UTF8.self)
        }
        guard let range = text.range(of: "listening on 127.0.0.1:"),
            let port = Int(text[range.upperBound...].prefix { $0.isNumber })
        else { throw CLIError("server did not start: \(text)") }
        self.port = port
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// POSTs JSON with curl-like simplicity through Foundation-free sockets: uses the CLI's
    /// sibling tool `curl`, which every CI image here has.
    func post(_ path: String, _ body: [String: String]) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: body)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = [
            "-s", "-X", "POST", "http://127.0.0.1:\(port)\(path)", "-H", "content-type: application/json",
            "--data-binary", String(decoding: data, as: UTF8.self),
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let response = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (try JSONSerialization.jsonObject(with: response) as? [String: Any]) ?? [:]
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

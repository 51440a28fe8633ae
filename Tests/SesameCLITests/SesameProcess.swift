import Foundation

/// Runs blocking work (a child process, a pipe read) on a Dispatch thread. Swift's cooperative
/// pool has one thread per core, and a test blocked in `waitUntilExit` there stalls every other
/// test of the run: on a 2-core CI machine two such tests stopped the whole run for half a
/// minute, and a helper server's readiness wait timed out meanwhile.
func offPool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// Runs the built `sesame` executable, as an operator or a script would.
enum Sesame {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// `$SESAME_BIN` (scripts/test: the release build's), else the `sesame` built beside this
    /// test bundle, whichever configuration built it.
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["SESAME_BIN"], !path.isEmpty { return path }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("sesame").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return packageRoot.appendingPathComponent(".build/debug/sesame").path
    }()

    struct Output: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `sesame arguments…` to completion.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Output {
        try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            process.environment = childEnvironment(environment)
            return try collect(process)
        }
    }

    /// Runs `process` with its standard output and error captured, to completion.
    static func collect(_ process: Process, stdin: Data? = nil) throws -> Output {
        let input = Pipe()
        let out = Pipe()
        let err = Pipe()
        if stdin != nil { process.standardInput = input }
        process.standardOutput = out
        process.standardError = err
        try process.run()
        if let stdin {
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// This process's environment without any `SESAME_` setting, plus `overrides`.
    static func childEnvironment(_ overrides: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SESAME_") }.merging(overrides) { $1 }
    }

    /// Parses a command's JSON output.
    static func json(_ arguments: [String]) async throws -> Any {
        let output = try await run(arguments)
        guard output.status == 0 else { throw CLIError("sesame \(arguments) failed: \(output.stderr)") }
        return try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
    }

    /// Runs `curl arguments…` and returns what it printed.
    static func curl(_ arguments: [String]) async throws -> Data {
        try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = arguments
            return Data(try collect(process).stdout.utf8)
        }
    }

    /// A fresh data directory, removed by the caller.
    static func temporaryDirectory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-cli-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// A `sesame serve` child process on a free port.
final class RunningServer: Sendable {
    let process: Process
    let port: Int

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    /// Starts `sesame serve` and returns once it printed that it is ready.
    static func start(dataDirectory: String, environment: [String: String] = [:]) async throws -> RunningServer {
        try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Sesame.binary)
            process.arguments = ["serve", "--port", "0", "--data-dir", dataDirectory]
            process.environment = Sesame.childEnvironment(environment)
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
            else {
                process.terminate()
                throw CLIError("server did not start: \(text)")
            }
            return RunningServer(process: process, port: port)
        }
    }

    /// Stops the server. SIGTERM ends it within milliseconds, so the short wait stays here.
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// POSTs JSON through `curl`, which every CI image here has.
    func post(_ path: String, _ body: [String: String]) async throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: body)
        let response = try await Sesame.curl([
            "-s", "-X", "POST", "http://127.0.0.1:\(port)\(path)", "-H", "content-type: application/json",
            "--data-binary", String(decoding: data, as: UTF8.self),
        ])
        return (try JSONSerialization.jsonObject(with: response) as? [String: Any]) ?? [:]
    }

    /// The HTTP status of a GET with a bearer token.
    func status(_ path: String, bearer: String) async throws -> String {
        let response = try await Sesame.curl([
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)\(path)",
            "-H", "authorization: Bearer \(bearer)",
        ])
        return String(decoding: response, as: UTF8.self)
    }

    /// Runs the first start (default application, keys) and stops.
    static func startAndStop(_ directory: String) async {
        (try? await start(dataDirectory: directory))?.stop()
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

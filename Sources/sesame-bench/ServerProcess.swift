import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SesameServer

/// A `sesame serve` child process: started, measured (ready time, RSS) and stopped.
final class ServerProcess: Sendable {
    let process = Process()
    let port: Int
    /// Time from spawning the process to the first successful `/health`.
    let readyMilliseconds: Double

    /// Starts a server on a free port over `dataDirectory` and waits until it answers.
    convenience init(dataDirectory: String, environment: [String: String]) async throws {
        let (executable, arguments) = Self.command(dataDirectory: dataDirectory)
        try await self.init(executable: executable, arguments: arguments, environment: environment)
    }

    /// Runs `executable`, which prints "listening on 127.0.0.1:PORT" and answers `/health`.
    init(executable: String, arguments: [String], environment: [String: String]) async throws {
        let started = ContinuousClock.now
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        port = try Self.readPort(from: output.fileHandleForReading)
        try await Self.waitForHealth(port: port)
        let elapsed = ContinuousClock.now - started
        readyMilliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
    }

    /// The server process's memory now (Linux /proc).
    var memory: ProcessMemory { ProcessMemory.read(String(process.processIdentifier)) }

    /// Resident memory of the server process now.
    var residentBytes: Int { memory.residentBytes }

    /// The most resident memory the server process has had since it started.
    var peakResidentBytes: Int { memory.peakResidentBytes }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// Prefers the real `sesame` binary built beside the benchmark; otherwise runs this
    /// benchmark's `server` subcommand, which runs the same server code.
    static func command(dataDirectory: String) -> (String, [String]) {
        let here = benchExecutable
        let sesame = here.deletingLastPathComponent().appendingPathComponent("sesame").path
        if FileManager.default.isExecutableFile(atPath: sesame) {
            return (sesame, ["serve", "--port", "0", "--data-dir", dataDirectory])
        }
        return (here.path, ["server", "--port", "0", "--data-dir", dataDirectory])
    }

    /// This benchmark's own executable.
    static var benchExecutable: URL { URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath() }

    static var usesSesameBinary: Bool { command(dataDirectory: "").1.first == "serve" }

    private static func readPort(from handle: FileHandle) throws -> Int {
        var text = ""
        while let data = try handle.read(upToCount: 1), !data.isEmpty {
            text += String(decoding: data, as: UTF8.self)
            if text.hasSuffix("\n"), let range = text.range(of: "listening on 127.0.0.1:") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { return port }
            }
        }
        throw BenchError("the server exited before listening:\n\(text)")
    }

    private static func waitForHealth(port: Int) async throws {
        for _ in 0..<500 {
            let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/health")
            if let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(1)), response.status == .ok {
                return
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw BenchError("the server did not become healthy")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import SesameStorageSQL

/// `sesame-bench otp-login`: complete email-code logins over HTTP against a real server
/// process, reported against the RSA-2048 signing bound measured in the same run.
struct OTPLoginBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "otp-login", abstract: "Complete email-code logins per second (start + read code + token).")

    @Option(help: "Seconds of load.") var duration = 10
    @Option(help: "Logins in flight at once.") var concurrency = 32
    @Option(help: "Target an already running server instead of starting one (needs --data-dir).") var url: String?
    @Option(help: "The target server's data directory, to read codes from its console outbox.") var dataDir: String?
    @Flag(help: "Print one JSON object.") var json = false

    /// The per-IP limit guards /passwordless/start; a benchmark from one IP raises it by
    /// configuration, the same way an operator would.
    static let environment = [
        "SESAME_RATE_LIMIT_START_PER_IP": "100000000", "SESAME_RATE_LIMIT_START_PER_RECIPIENT": "100000000",
    ]

    func validate() throws {
        if url != nil && dataDir == nil { throw ValidationError("--url needs --data-dir to read codes") }
    }

    func run() async throws {
        let bound = try await CryptoBound.rsa2048SignsPerSecond()
        let directory = dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("sesame-bench-\(UUID())").path
        var server: ServerProcess?
        var report = Report(rsa2048SignsPerSecond: bound, concurrency: concurrency, duration: duration)
        if url == nil {
            // First start creates the data directory; the measured start is a restart of it.
            try await ServerProcess(dataDirectory: directory, environment: Self.environment).stop()
            let restarted = try await ServerProcess(dataDirectory: directory, environment: Self.environment)
            try await Task.sleep(for: .seconds(1))
            report.idleRSSBytes = restarted.residentBytes
            report.readyMilliseconds = restarted.readyMilliseconds
            server = restarted
        }
        defer {
            server?.stop()
            if url == nil { try? FileManager.default.removeItem(atPath: directory) }
        }
        let base = url ?? "http://127.0.0.1:\(server!.port)"
        try await measure(base: base, directory: directory, report: &report)
        print(json ? try report.json() : report.text)
    }

    private func measure(base: String, directory: String, report: inout Report) async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let outbox = try await SQLStorage.sqlite(path: directory + "/sesame.sqlite", logger: logger)
        guard let clientID = try await outbox.listApplications().first(where: \.isDefault)?.clientID else {
            throw BenchError("no default application in \(directory)")
        }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let generator = { (seconds: Int) in
            LoadGenerator(baseURL: base, clientID: clientID, outbox: outbox, concurrency: concurrency, duration: .seconds(seconds))
        }
        _ = try await generator(1).run(client: client)  // warm-up: connections, caches, JIT-free but page-warm
        let result = try await generator(duration).run(client: client)
        try await client.shutdown()
        try await outbox.shutdown()
        report.record(result)
    }
}

import ArgumentParser
import Foundation
import SesameServer

/// The options every HTTP benchmark takes.
struct LoadOptions: ParsableArguments {
    @Option(help: "Seconds of load.") var duration = 10
    @Option(help: "Logins (or grants) in flight at once.") var concurrency = 32
    @OptionGroup var target: TargetOptions
    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "Then measure latency again at half the rate reached, as an open-loop load (p99 at half the peak).")
    var halfRate = false

    /// These options again as arguments, for another benchmark's parser.
    var arguments: [String] {
        var arguments = ["--duration", String(duration), "--concurrency", String(concurrency)]
        if let url = target.url { arguments += ["--url", url] }
        if let dataDir = target.dataDir { arguments += ["--data-dir", dataDir] }
        if let database = target.database { arguments += ["--database", database] }
        if halfRate { arguments.append("--half-rate") }
        return arguments + ["--instances", String(target.instances)]
    }
}

/// A benchmark that drives servers over HTTP and prints a ``Report``.
protocol LoadBenchmark: AsyncParsableCommand {
    var load: LoadOptions { get }
    /// Runs the benchmark and returns its figures.
    func measure() async throws -> Report
}

extension LoadBenchmark {
    func run() async throws {
        let report = try await measure()
        print(load.json ? try report.json() : report.text)
    }
}

/// The shape every HTTP benchmark shares: measure the bound, start the servers, prepare the
/// operation, warm up for a second, measure with every process's CPU watched, then measure the
/// bound again.
enum HTTPBench {
    /// One login (or grant) a worker repeats; false for a failed try.
    typealias Operation = @Sendable (_ worker: Int, _ index: Int) async throws -> Bool

    static func measure(
        kind: String, _ load: LoadOptions, prepare: (BenchTarget) async throws -> Operation
    ) async throws -> Report {
        // The load generator shares the cores with the servers: it keeps its freed memory
        // as the servers do, so its allocator churn does not take from them.
        MallocTuning.apply()
        let (options, concurrency, duration) = (load.target, load.concurrency, load.duration)
        var report = Report(
            rsa2048SignsPerSecond: try await CryptoBound.rsa2048SignsPerSecond(), concurrency: concurrency,
            duration: duration)
        report.kind = kind
        let target = try await BenchTarget.start(
            options, environment: OTPLoginBench.environment, concurrency: concurrency, report: &report)
        do {
            let operation = try await prepare(target)
            try await run(
                operation, concurrency: concurrency, seconds: duration, on: target.executor, servers: target.servers,
                into: &report)
            if load.halfRate { try await atHalfRate(operation, concurrency: concurrency, seconds: duration, target, &report) }
        } catch {
            try? await target.stop(removeDirectory: options.ownsDirectory)
            throw error
        }
        try await target.stop(removeDirectory: options.ownsDirectory)
        return report
    }

    /// A second's warm-up (connections, caches), then `seconds` measured with every process's
    /// CPU watched, then the bound again; the figures go into `report`.
    static func run(
        _ operation: @escaping Operation, concurrency: Int, seconds: Int, on executor: LoopExecutor,
        servers: [ServerProcess], into report: inout Report
    ) async throws {
        let runner = { (seconds: Int) in
            LoadRunner(concurrency: concurrency, duration: .seconds(seconds), executor: executor)
        }
        _ = try await runner(1).run(operation)
        let watch = CPUWatch(serverIDs: servers.map(\.process.processIdentifier))
        let result = try await runner(seconds).run(operation)
        report.record(result, cpu: watch.finish())
        report.peakRSSBytes = servers.first?.peakResidentBytes
        report.boundAfter(try await CryptoBound.rsa2048SignsPerSecond())
    }

    /// The latency an operator sees below saturation: the same logins started evenly at half
    /// the rate the closed-loop run reached (open loop, so a slow answer cannot hold back the
    /// logins behind it). The same workers run it, each with its own state (a refresh token, a
    /// device key): at half the rate each is idle half the time, so a login waits only when
    /// the server is slow.
    static func atHalfRate(
        _ operation: @escaping Operation, concurrency: Int, seconds: Int, _ target: BenchTarget, _ report: inout Report
    ) async throws {
        let rate = report.loginsPerSecond / 2
        guard rate > 0 else { return }
        let runner = LoadRunner(
            concurrency: concurrency, duration: .seconds(seconds), executor: target.executor, rate: rate)
        report.recordHalfRate(try await runner.run(operation), rate: rate)
    }
}

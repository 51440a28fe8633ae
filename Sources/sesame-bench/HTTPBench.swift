import ArgumentParser
import Foundation
import SesameServer
import Synchronization

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

    /// The floor `all` measures in slices between a login benchmark's (nil: none).
    @TaskLocal static var alongside: FloorRig?

    /// A second's warm-up (connections, caches), then `seconds` measured with every process's
    /// CPU watched, then the bound again; the figures go into `report`. With a floor
    /// ``alongside``, the seconds alternate between the two (``interleaved(_:with:concurrency:seconds:on:servers:into:)``).
    static func run(
        _ operation: @escaping Operation, concurrency: Int, seconds: Int, on executor: LoopExecutor,
        servers: [ServerProcess], into report: inout Report
    ) async throws {
        if let floor = alongside {
            try await interleaved(
                operation, with: floor, concurrency: concurrency, seconds: seconds, on: executor, servers: servers,
                into: &report)
            return
        }
        let login = Slices(
            operation, concurrency: concurrency, seconds: seconds, executor: executor, servers: servers, pause: .zero)
        try await login.warmUp()
        try await login.measureSlice()
        report.record(login.result, cpu: login.cores)
        report.peakRSSBytes = servers.first?.peakResidentBytes
        report.boundAfter(try await CryptoBound.rsa2048SignsPerSecond())
    }

    /// The login and its floor measured in alternating one-second slices, `seconds` of each,
    /// so that the machine's drift (a quarter of its speed within a minute on a shared host)
    /// lands on both alike instead of on whichever ran in the slower minute. A pause after each
    /// slice, not measured, lets the work a server defers (its outbox, its log's checkpoint)
    /// finish before the other server's slice. The floor's figures go to `floor.measured`.
    static func interleaved(
        _ operation: @escaping Operation, with floor: FloorRig, concurrency: Int, seconds: Int, on executor: LoopExecutor,
        servers: [ServerProcess], into report: inout Report
    ) async throws {
        let bound = report.rsa2048SignsPerSecond
        var floorReport = floor.report(bound: bound, concurrency: concurrency, duration: seconds)
        let login = Slices(operation, concurrency: concurrency, seconds: 1, executor: executor, servers: servers)
        let ceiling = Slices(
            floor.operation, concurrency: concurrency, seconds: 1, executor: floor.executor, servers: [floor.server])
        try await login.warmUp()
        try await ceiling.warmUp()
        for _ in 0..<seconds {
            try await login.measureSlice()
            try await ceiling.measureSlice()
        }
        report.record(login.result, cpu: login.cores)
        floorReport.record(ceiling.result, cpu: ceiling.cores)
        report.peakRSSBytes = servers.first?.peakResidentBytes
        let after = try await CryptoBound.rsa2048SignsPerSecond()
        report.boundAfter(after)
        floorReport.boundAfter(after)
        floor.measured.withLock { $0 = floorReport }
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

/// A measured load in slices of `seconds` each (one slice for a run on its own, many for an
/// interleaved one): their results and the CPU they used, summed.
private final class Slices {
    private let operation: HTTPBench.Operation
    private let concurrency: Int
    private let executor: LoopExecutor
    private let runner: LoadRunner
    private let serverIDs: [Int32]
    /// Unmeasured time after the warm-up and each slice, for the work its server deferred.
    private let pause: Duration
    private(set) var result = LoadRunner.Result()
    private var used: (generator: Double, servers: Double, elapsed: Double) = (0, 0, 0)

    init(
        _ operation: @escaping HTTPBench.Operation, concurrency: Int, seconds: Int, executor: LoopExecutor,
        servers: [ServerProcess], pause: Duration = .milliseconds(250)
    ) {
        (self.operation, self.concurrency, self.executor, self.pause) = (operation, concurrency, executor, pause)
        runner = LoadRunner(concurrency: concurrency, duration: .seconds(seconds), executor: executor)
        serverIDs = servers.map(\.process.processIdentifier)
    }

    /// Average cores used over the measured slices.
    var cores: (generator: Double, servers: Double) {
        let elapsed = max(used.elapsed, 0.001)
        return (used.generator / elapsed, used.servers / elapsed)
    }

    /// A second of load, not measured (connections, caches).
    func warmUp() async throws {
        _ = try await LoadRunner(concurrency: concurrency, duration: .seconds(1), executor: executor).run(operation)
        try await rest()
    }

    func measureSlice() async throws {
        let watch = CPUWatch(serverIDs: serverIDs)
        let slice = try await runner.run(operation)
        let sliceUse = watch.finishSeconds()
        result.latencies += slice.latencies
        result.failures += slice.failures
        result.elapsed += slice.elapsed
        used = (used.generator + sliceUse.generator, used.servers + sliceUse.servers, used.elapsed + sliceUse.elapsed)
        try await rest()
    }

    private func rest() async throws {
        if pause > .zero { try await Task.sleep(for: pause) }
    }
}

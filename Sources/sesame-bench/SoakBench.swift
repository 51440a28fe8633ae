import ArgumentParser
import Foundation
import NIOCore
import SesameServer
import Synchronization

/// `sesame-bench soak`: email-code logins at a steady rate against one server for minutes,
/// its memory read each minute. A server's resident memory should level off once its caches,
/// pools and allocator have warmed up; this shows whether it does.
struct SoakBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Email-code logins at a steady rate for --minutes; the server's resident memory each minute.")

    @Option(help: "Minutes of load (30 is the full run).") var minutes = 30
    @Option(help: "Minutes of warm-up: RSS is held to 10 % from the end of the last of them on.") var warmUp = 1
    @Option(help: "Logins started a second.") var rate = 100
    @Option(help: "Logins in flight at most (the rate is shared by this many workers).") var concurrency = 8
    @Option(help: "A postgres:// URL: the server runs on this PostgreSQL database instead of SQLite.")
    var postgres: String?
    @Flag(help: "Print one JSON object.") var json = false

    func validate() throws {
        guard minutes >= 1, rate >= 1, concurrency >= 1, (1...minutes).contains(warmUp) else {
            throw ValidationError("--minutes, --rate and --concurrency must be at least 1, and --warm-up 1 to --minutes")
        }
    }

    func run() async throws {
        let report = try await measure()
        print(json ? try report.json() : report.text)
    }

    func measure() async throws -> SoakReport {
        MallocTuning.apply()
        let options = try TargetOptions.parse(postgres.map { ["--database", $0] } ?? [])
        var start = Report(rsa2048SignsPerSecond: 0, concurrency: concurrency, duration: minutes * 60)
        let target = try await BenchTarget.start(
            options, environment: OTPLoginBench.environment, concurrency: concurrency, report: &start)
        var report = SoakReport(rate: rate, concurrency: concurrency, warmUpMinutes: warmUp, start: start)
        do {
            report.samples = try await soak(target)
        } catch {
            try? await target.stop(removeDirectory: options.ownsDirectory)
            throw error
        }
        try await target.stop(removeDirectory: options.ownsDirectory)
        return report
    }

    /// Runs the paced workers and reads the server's memory at the end of every minute.
    private func soak(_ target: BenchTarget) async throws -> [SoakReport.Sample] {
        let generator = LoadGenerator(bases: target.bases, clientID: target.clientID, codes: target.codes)
        let tally = SoakTally()
        let begin = ContinuousClock.now
        let end = begin + .seconds(minutes * 60)
        // Each worker starts a login every `period`, offset from the others, so the server
        // sees `rate` logins a second spread evenly rather than in bursts.
        let period = Duration.seconds(concurrency) / rate
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                let (first, executor) = (begin + period * worker / concurrency, target.executor)
                group.addTask(executorPreference: executor) {
                    try await Self.paced(worker, first: first, period: period, until: end, executor, generator, tally)
                }
            }
            var samples: [SoakReport.Sample] = []
            for minute in 1...minutes {
                try await Task.sleep(until: begin + .seconds(minute * 60))
                let (logins, failures) = tally.take()
                let memory = target.servers.first?.memory ?? ProcessMemory()
                samples.append(.init(minute: minute, memory: memory, logins: logins, failures: failures))
            }
            try await group.waitForAll()
            return samples
        }
    }

    /// One worker: a login every `period` from `first` until `end`. A worker that fell behind
    /// (a slow login) starts the next at once but does not burst to catch up.
    private static func paced(
        _ worker: Int, first: ContinuousClock.Instant, period: Duration, until end: ContinuousClock.Instant,
        _ executor: LoopExecutor, _ generator: LoadGenerator, _ tally: SoakTally
    ) async throws {
        let bases = generator.bases
        var connections = try await BenchConnections(bases: bases, loop: executor.loop)
        var next = first
        var index = 0
        while next < end {
            let wait = next - .now
            if wait > .zero { await executor.sleep(.nanoseconds(Int64(wait.seconds * 1e9))) }
            index += 1
            let email = "soak-\(worker)-\(index)-\(UInt32.random(in: 0...UInt32.max))@example.com"
            do {
                tally.add(try await generator.login(email: email, route: 0, client: connections))
            } catch {
                // A broken connection: count the failure and carry on over a new one.
                tally.add(false)
                connections = try await BenchConnections(bases: bases, loop: executor.loop)
            }
            next = max(next + period, .now - period)
        }
    }
}

/// Logins and failures counted by the workers, taken once a minute.
final class SoakTally: Sendable {
    private let counts = Mutex((logins: 0, failures: 0))

    func add(_ succeeded: Bool) {
        counts.withLock { counts in
            if succeeded { counts.logins += 1 } else { counts.failures += 1 }
        }
    }

    /// The counts since the last call.
    func take() -> (logins: Int, failures: Int) {
        counts.withLock { counts in
            defer { counts = (0, 0) }
            return counts
        }
    }
}

import Foundation

/// What `otp-login` prints, as text or one JSON object.
struct Report: Encodable {
    /// What one login is: `email-code` or `device-key`.
    var kind = "email-code"
    var loginsPerSecond = 0.0
    var p50Milliseconds = 0.0
    var p99Milliseconds = 0.0
    /// With `--half-rate`: the rate asked for (half of ``loginsPerSecond``), the rate reached,
    /// and the latencies of that open-loop run, timed from when each login was due.
    var halfRate: HalfRate?
    /// In `all`: the floor (`sesame-bench floor`, as many requests a login as this benchmark)
    /// measured right after this benchmark, and this benchmark's rate against it.
    var floorLoginsPerSecond: Double?
    var floorRatio: Double?
    /// In `all --postgres`, on the PostgreSQL run: SQLite's rate in the same run, and this
    /// rate against it.
    var sqliteLoginsPerSecond: Double?
    var sqliteRatio: Double?
    /// The bound the ratio is read against: the mean of the bounds measured just before and
    /// just after the load, once both are known (``boundAfter(_:)``).
    var rsa2048SignsPerSecond: Double
    var rsa2048SignsPerSecondBefore: Double?
    var rsa2048SignsPerSecondAfter: Double?
    var ratio = 0.0
    var idleRSSBytes: Int?
    /// The first server's `VmRSS` one second after its first answer on a fresh data directory,
    /// every worker running: the idle memory an operator sees (docs/performance.md).
    var idleRSSFreshBytes: Int?
    /// Of that, memory not backed by a file (heap, stacks), and the server's threads then.
    var idleAnonymousFreshBytes: Int?
    var idleThreads: Int?
    /// The first server's most resident memory, by the end of the measured run.
    var peakRSSBytes: Int?
    var readyMilliseconds: Double?
    var failures = 0
    var logins = 0
    var concurrency: Int
    var duration: Int
    var cores = ProcessInfo.processInfo.activeProcessorCount
    /// How many servers took the load, and on which database.
    var instances = 1
    var database = "sqlite"
    var server = ServerProcess.usesSesameBinary ? "sesame serve" : "sesame-bench server (same server code)"
    /// Cores the load generator (this process) and the servers used during the measured run.
    var loadGeneratorCPUCores = 0.0
    var serverCPUCores = 0.0
    /// Whether the load generator used (nearly) a whole core: the figure may then be the
    /// generator's limit rather than the server's.
    var loadGeneratorSaturated = false

    init(rsa2048SignsPerSecond: Double, concurrency: Int, duration: Int) {
        self.rsa2048SignsPerSecond = rsa2048SignsPerSecond
        self.concurrency = concurrency
        self.duration = duration
    }

    mutating func record(_ result: LoadRunner.Result, cpu: (generator: Double, servers: Double)) {
        loadGeneratorCPUCores = cpu.generator
        loadGeneratorSaturated = cpu.generator >= 0.9
        serverCPUCores = cpu.servers
        logins = result.latencies.count
        failures = result.failures
        loginsPerSecond = Double(logins) / max(result.elapsed, 0.001)
        p50Milliseconds = result.latencies.percentile(0.5)
        p99Milliseconds = result.latencies.percentile(0.99)
        ratio = loginsPerSecond / rsa2048SignsPerSecond
    }

    /// Takes in the bound measured right after the load. This machine's speed drifts by a
    /// quarter within a minute, so a bound from before the load alone could be off by that much
    /// for the seconds measured; the ratio is read against the mean of the two.
    mutating func boundAfter(_ after: Double) {
        (rsa2048SignsPerSecondBefore, rsa2048SignsPerSecondAfter) = (rsa2048SignsPerSecond, after)
        rsa2048SignsPerSecond = (rsa2048SignsPerSecond + after) / 2
        ratio = loginsPerSecond / rsa2048SignsPerSecond
    }

    /// The figures of a run at half the peak rate.
    struct HalfRate: Encodable {
        var targetPerSecond, loginsPerSecond, p50Milliseconds, p99Milliseconds: Double
        var failures: Int

        enum CodingKeys: String, CodingKey {
            case targetPerSecond = "target_per_second", loginsPerSecond = "logins_per_second"
            case p50Milliseconds = "p50_ms", p99Milliseconds = "p99_ms", failures
        }
    }

    mutating func recordHalfRate(_ result: LoadRunner.Result, rate: Double) {
        halfRate = HalfRate(
            targetPerSecond: rate, loginsPerSecond: Double(result.latencies.count) / max(result.elapsed, 0.001),
            p50Milliseconds: result.latencies.percentile(0.5), p99Milliseconds: result.latencies.percentile(0.99),
            failures: result.failures)
    }

    /// Takes in the floor measured beside this benchmark.
    mutating func floor(_ floor: Report) {
        (floorLoginsPerSecond, floorRatio) = (floor.loginsPerSecond, share(of: floor))
    }

    /// Takes in SQLite's rate measured in the same run (this run being PostgreSQL's).
    mutating func sqlite(_ sqlite: Report) {
        (sqliteLoginsPerSecond, sqliteRatio) = (sqlite.loginsPerSecond, share(of: sqlite))
    }

    /// This rate against `other`'s; nil when `other` completed nothing.
    private func share(of other: Report) -> Double? {
        other.loginsPerSecond > 0 ? loginsPerSecond / other.loginsPerSecond : nil
    }

    enum CodingKeys: String, CodingKey {
        case halfRate = "half_rate", floorLoginsPerSecond = "floor_logins_per_second", floorRatio = "floor_ratio"
        case sqliteLoginsPerSecond = "sqlite_logins_per_second", sqliteRatio = "sqlite_ratio"
        case loginsPerSecond = "logins_per_second", p50Milliseconds = "p50_ms", p99Milliseconds = "p99_ms"
        case rsa2048SignsPerSecond = "rsa2048_signs_per_second", ratio, idleRSSBytes = "idle_rss_bytes"
        case rsa2048SignsPerSecondBefore = "rsa2048_signs_per_second_before"
        case rsa2048SignsPerSecondAfter = "rsa2048_signs_per_second_after"
        case peakRSSBytes = "peak_rss_bytes", idleRSSFreshBytes = "idle_rss_fresh_bytes"
        case idleAnonymousFreshBytes = "idle_anon_fresh_bytes", idleThreads = "idle_threads"
        case readyMilliseconds = "ready_ms", failures, logins, concurrency, duration = "duration_s", cores, server, kind
        case instances, database, loadGeneratorCPUCores = "load_generator_cpu_cores", serverCPUCores = "server_cpu_cores"
        case loadGeneratorSaturated = "load_generator_saturated"
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    var text: String { ([mainText] + extraLines).joined(separator: "\n") }

    /// The lines of the figures only some runs have: at half the peak, and against the floor.
    private var extraLines: [String] {
        func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        var lines: [String] = []
        if let half = halfRate {
            lines.append(
                "at half the peak (\(f(half.targetPerSecond)) /s asked, \(f(half.loginsPerSecond)) /s): "
                    + "p50 \(f(half.p50Milliseconds, 2)) ms, p99 \(f(half.p99Milliseconds, 2)) ms")
        }
        if let floorRatio, let floorLoginsPerSecond {
            lines.append("against the floor measured beside it (\(f(floorLoginsPerSecond)) /s): \(f(floorRatio * 100)) %")
        }
        if let sqliteRatio, let sqliteLoginsPerSecond {
            lines.append("against SQLite in the same run (\(f(sqliteLoginsPerSecond)) /s): \(f(sqliteRatio * 100)) %")
        }
        return lines
    }

    private var mainText: String {
        func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        return """
            complete \(kind) logins: \(f(loginsPerSecond)) /s  (\(logins) logins, \(failures) failed, \
            concurrency \(concurrency), \(duration) s)
            latency p50 \(f(p50Milliseconds, 2)) ms, p99 \(f(p99Milliseconds, 2)) ms
            RSA-2048 signing bound (\(cores) cores, same run): \(f(rsa2048SignsPerSecond)) /s\
            \(rsa2048SignsPerSecondAfter.map { " (before the load \(f(rsa2048SignsPerSecondBefore ?? 0)), after \(f($0)))" } ?? "")
            ratio to the bound: \(f(ratio * 100)) %
            idle RSS: \(idleRSSBytes.map { f(Double($0) / 1_048_576) + " MB" } ?? "n/a") on a restart, \
            \(idleRSSFreshBytes.map { f(Double($0) / 1_048_576) + " MB" } ?? "n/a") on a fresh data directory \
            (\(idleAnonymousFreshBytes.map { f(Double($0) / 1_048_576) + " MB" } ?? "n/a") anonymous, \
            \(idleThreads.map(String.init) ?? "n/a") threads), \
            peak RSS under load: \(peakRSSBytes.map { f(Double($0) / 1_048_576) + " MB" } ?? "n/a")
            start to ready on restart: \(readyMilliseconds.map { f($0) + " ms" } ?? "n/a")
            server: \(server) x \(instances) on \(database)
            CPU during the run: servers \(f(serverCPUCores, 2)) cores, load generator \(f(loadGeneratorCPUCores, 2)) cores\
            \(loadGeneratorSaturated ? " (the load generator saturated a core: the figure may be its limit)" : "")
            """
    }
}

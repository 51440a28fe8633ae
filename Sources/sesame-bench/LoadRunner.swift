import Foundation

/// Runs one operation back to back on `concurrency` workers for a fixed time, like that many
/// clients signing in one after another; the benchmarks differ only in the operation.
struct LoadRunner {
    let concurrency: Int
    let duration: Duration
    /// Where the workers run: the load generator's connection thread.
    let executor: LoopExecutor
    /// Logins started per second in all, evenly spaced; nil: back to back, as fast as answered.
    var rate: Double? = nil

    struct Result {
        var latencies: [Double] = []
        var failures = 0
        var elapsed: Double = 0
    }

    /// Runs `operation(worker, index)` until the time is up; it returns false for a failed try.
    func run(_ operation: @escaping @Sendable (_ worker: Int, _ index: Int) async throws -> Bool) async throws -> Result {
        let started = ContinuousClock.now
        let deadline = started + duration
        var result = try await withThrowingTaskGroup(of: Result.self) { group in
            for worker in 0..<concurrency {
                let schedule = rate.map { PacedSchedule(start: started, rate: $0, workers: concurrency, worker: worker) }
                group.addTask(executorPreference: executor) {
                    try await Self.loop(worker: worker, until: deadline, paced: schedule, operation)
                }
            }
            return try await group.reduce(into: Result()) { total, part in
                total.latencies += part.latencies
                total.failures += part.failures
            }
        }
        result.elapsed = (ContinuousClock.now - started).seconds
        return result
    }

    private static func loop(
        worker: Int, until deadline: ContinuousClock.Instant, paced schedule: PacedSchedule?,
        _ operation: @Sendable (_ worker: Int, _ index: Int) async throws -> Bool
    ) async throws -> Result {
        var result = Result()
        var index = 0
        while ContinuousClock.now < deadline {
            index += 1
            var begin = ContinuousClock.now
            if let due = schedule?.start(of: index) {
                guard due < deadline else { break }
                if due > begin { try await Task.sleep(until: due, clock: .continuous) }
                // Timed from when the login was due, not from when the worker got to it: a slow
                // answer delays the logins behind it, and their wait is latency too.
                begin = due
            }
            if try await operation(worker, index) {
                result.latencies.append((ContinuousClock.now - begin).seconds * 1000)
            } else {
                result.failures += 1
            }
        }
        return result
    }
}

import Foundation
import SQLKit
import SQLiteKit
import SQLiteNIO
import Synchronization

/// Runs write jobs on SQLite's one writer connection, many per transaction ("group commit").
///
/// Jobs that arrive while a batch is running wait and form the next batch, which runs as one
/// `BEGIN IMMEDIATE … COMMIT`; no job is answered before its batch commits, so nothing is
/// acknowledged that a crash could lose. Under load this pays SQLite's per-commit cost once
/// per batch instead of once per statement. A job that is a multi-statement transaction runs
/// inside a `SAVEPOINT`, so its failure rolls back only its own statements; a single failed
/// statement is undone by SQLite itself and leaves the batch intact.
final class GroupCommitWriter: Sendable {
    struct Job: Sendable {
        let isTransaction: Bool
        let run: @Sendable (any SQLDatabase) async throws -> any Sendable
        let complete: @Sendable (Result<any Sendable, any Error>) -> Void
    }

    private struct State {
        var pending: [Job] = []
        var draining = false
    }

    private let connection: SQLiteConnection
    private let state = Mutex(State())
    private let maxBatch: Int

    init(connection: SQLiteConnection, maxBatch: Int = 128) {
        self.connection = connection
        self.maxBatch = maxBatch
    }

    /// Runs `body` in the next batch and returns its result once the batch has committed.
    func submit<T: Sendable>(
        transaction: Bool, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(
                isTransaction: transaction, run: { try await body($0) },
                complete: { result in
                    // The job's own closure produced the value, so it is a T.
                    continuation.resume(with: result.map { $0 as! T })  // swiftlint:disable:this force_cast
                })
            let startDraining = state.withLock { state in
                state.pending.append(job)
                guard !state.draining else { return false }
                state.draining = true
                return true
            }
            if startDraining { Task { await self.drain() } }
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Job] in
                let batch = Array(state.pending.prefix(maxBatch))
                state.pending.removeFirst(batch.count)
                if batch.isEmpty { state.draining = false }
                return batch
            }
            if batch.isEmpty { return }
            await run(batch)
        }
    }

    private func run(_ batch: [Job]) async {
        let db = connection.sql()
        do {
            // IMMEDIATE takes the write lock up front: a deferred transaction that later
            // upgrades gets SQLITE_BUSY without consulting the busy handler.
            try await db.raw("BEGIN IMMEDIATE").run()
        } catch {
            for job in batch { job.complete(.failure(error)) }
            return
        }
        var results: [Result<any Sendable, any Error>] = []
        for job in batch { results.append(await execute(job, on: db)) }
        do {
            try await db.raw("COMMIT").run()
        } catch {
            try? await db.raw("ROLLBACK").run()
            for job in batch { job.complete(.failure(error)) }
            return
        }
        for (job, result) in zip(batch, results) { job.complete(result) }
    }

    private func execute(_ job: Job, on db: any SQLDatabase) async -> Result<any Sendable, any Error> {
        guard job.isTransaction else {
            do { return .success(try await job.run(db)) } catch { return .failure(error) }
        }
        do {
            try await db.raw("SAVEPOINT job").run()
            let value = try await job.run(db)
            try await db.raw("RELEASE job").run()
            return .success(value)
        } catch {
            try? await db.raw("ROLLBACK TO job").run()
            try? await db.raw("RELEASE job").run()
            return .failure(error)
        }
    }
}

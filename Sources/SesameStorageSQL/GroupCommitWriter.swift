import Foundation
import SQLKit
import Synchronization

/// Runs write jobs on SQLite's one writer connection, many per transaction ("group commit").
///
/// Jobs that arrive while a batch is running wait and form the next batch, which runs as one
/// `BEGIN IMMEDIATE … COMMIT`; no job is answered before its batch commits, so nothing is
/// acknowledged that a crash could lose. Under load this pays SQLite's per-commit cost once
/// per batch instead of once per statement. A job that is a multi-statement transaction runs
/// inside a `SAVEPOINT`, so its failure rolls back only its own statements; a single failed
/// statement is undone by SQLite itself and leaves the batch intact.
///
/// The first job to arrive at an idle writer runs its batch on its own task, which saves the
/// hop to a separate task when the writer is not busy; jobs that arrive meanwhile are handed to
/// a draining task once that batch has committed.
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

    private let database: SQLiteDirectDatabase
    private let state = Mutex(State())
    private let maxBatch: Int
    /// Runs after each batch has committed and answered, before the next one begins.
    private let betweenBatches: @Sendable () -> Void

    init(database: SQLiteDirectDatabase, maxBatch: Int = 128, betweenBatches: @escaping @Sendable () -> Void = {}) {
        self.database = database
        self.maxBatch = maxBatch
        self.betweenBatches = betweenBatches
    }

    /// Runs `body` in the next batch and returns its result once the batch has committed.
    func submit<T: Sendable>(
        transaction: Bool, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T
    ) async throws -> T {
        while true {
            if case .done(let result) = try await runIfIdle(transaction: transaction, body) { return result }
            // Queued behind a running batch; `.retry` when that batch ended before the job was
            // queued, and the writer is to be tried again.
            let queued: Turn<T> = try await withCheckedThrowingContinuation { continuation in
                let job = Job(
                    isTransaction: transaction, run: { try await body($0) },
                    complete: { result in
                        // The job's own closure produced the value, so it is a T.
                        continuation.resume(with: result.map { .done($0 as! T) })  // swiftlint:disable:this force_cast
                    })
                let waiting = state.withLock { state in
                    guard state.draining else { return false }
                    state.pending.append(job)
                    return true
                }
                if !waiting { continuation.resume(returning: .retry) }
            }
            if case .done(let result) = queued { return result }
        }
    }

    /// Runs `body` alone in a batch on this task when no batch is running.
    private func runIfIdle<T: Sendable>(
        transaction: Bool, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T
    ) async throws -> Turn<T> {
        let idle = state.withLock { state in
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        guard idle else { return .retry }
        let outcome = Mutex<Result<any Sendable, any Error>?>(nil)
        await run([
            Job(isTransaction: transaction, run: { try await body($0) }, complete: { result in outcome.withLock { $0 = result } })
        ])
        let more = state.withLock { state in
            state.draining = !state.pending.isEmpty
            return state.draining
        }
        if more { Task { await self.drain() } }
        // The batch always completes its jobs, and this job's closure produced a T.
        return .done(try outcome.withLock { $0 }!.get() as! T)  // swiftlint:disable:this force_cast
    }

    /// A job's result, or word that the writer went idle before the job could queue.
    private enum Turn<T> {
        case done(T)
        case retry
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
        let db = database
        do {
            // IMMEDIATE takes the write lock up front: a deferred transaction that later
            // upgrades gets SQLITE_BUSY without consulting the busy handler.
            try control("BEGIN IMMEDIATE")
        } catch {
            for job in batch { job.complete(.failure(error)) }
            return
        }
        var results: [Result<any Sendable, any Error>] = []
        for job in batch { results.append(await execute(job, on: db)) }
        do {
            try control("COMMIT")
        } catch {
            try? control("ROLLBACK")
            for job in batch { job.complete(.failure(error)) }
            return
        }
        for (job, result) in zip(batch, results) { job.complete(result) }
        betweenBatches()
    }

    private func execute(_ job: Job, on db: any SQLDatabase) async -> Result<any Sendable, any Error> {
        guard job.isTransaction else {
            do { return .success(try await job.run(db)) } catch { return .failure(error) }
        }
        do {
            try control("SAVEPOINT job")
            let value = try await job.run(db)
            try control("RELEASE job")
            return .success(value)
        } catch {
            try? control("ROLLBACK TO job")
            try? control("RELEASE job")
            return .failure(error)
        }
    }

    /// Runs a transaction statement on the connection itself: a few per job, and through
    /// SQLKit each was built, serialized and looked up like a query.
    private func control(_ sql: String) throws {
        try database.handle.run(sql, []) { _ in }
    }
}

import Foundation
import Logging
import SesameAPI

extension UserJobs {
    /// Runs a claimed import from where it stopped to its end, a batch at a time; a file or
    /// connection that fails as a whole fails the job with its reason.
    func run(_ claimed: Job, owner: String, progress: @Sendable (Job) -> Void) async -> Job {
        var job = claimed
        do {
            guard let connection = try await storage.connection(name: job.connection),
                let input = try await storage.jobInput(id: job.id)
            else { throw SesameError.invalidRequest("The job's connection or file is gone.") }
            var file = UsersFile(input)
            try file.skip(job.processed)
            while !isStopping {
                let batch = try file.next(batchSize)
                if batch.isEmpty { break }
                guard let next = try await importBatch(batch, into: job, on: connection, owner: owner) else { return job }
                job = next
                progress(job)
            }
            guard !isStopping else {
                // Stopping between batches: the next claim resumes after the last one at once.
                _ = try? await storage.releaseJob(id: job.id, owner: owner, at: clock.now())
                return job
            }
            job.status = .completed
            _ = try await storage.finishJob(
                id: job.id, owner: owner, status: .completed, output: nil, details: nil, at: clock.now())
        } catch {
            logger.error("users import failed", metadata: ["job": "\(job.id)", "error": "\(error)"])
            job.status = .failed
            job.statusDetails = (error as? SesameError)?.message ?? (error as? UsersFileError)?.description ?? "Storage failed."
            _ = try? await storage.finishJob(
                id: job.id, owner: owner, status: .failed, output: nil, details: job.statusDetails, at: clock.now())
        }
        progress(job)
        return job
    }

    /// One batch: updates the users that exist when the job upserts, then inserts the others
    /// and records the progress in one transaction. Nil when the job's lease was lost.
    private func importBatch(
        _ batch: [[String: JSONValue]], into job: Job, on connection: Connection, owner: String
    ) async throws -> Job? {
        var summary = job.summary
        var refused: [JobUserError] = []
        var inserting: [(user: User, object: [String: JSONValue])] = []
        for object in batch {
            switch await prepare(object, job: job, on: connection) {
            case .insert(let user): inserting.append((user, object))
            case .updated: summary.updated += 1
            case .refused(let reasons): refused.append(JobUserError(user: ImportedUser.echo(object), errors: reasons))
            }
        }
        let now = clock.now()
        let processed = job.processed + batch.count
        let (counted, found, candidates) = (summary, refused, inserting)
        let inserted = try await storage.importUsers(
            inserting.map(\.user), job: job.id, owner: owner,
            progress: { inserted in
                var (summary, refused) = (counted, found)
                for (user, object) in candidates where !inserted.contains(user.id) {
                    refused.append(JobUserError(user: ImportedUser.echo(object), errors: [ImportedUser.duplicate]))
                }
                summary.inserted += inserted.count
                summary.failed += refused.count
                return JobProgress(processed: processed, summary: summary, errors: refused)
            }, at: now, leaseUntil: now.addingTimeInterval(lease))
        guard let inserted else { return nil }
        var next = job
        next.processed = processed
        next.summary = summary
        next.summary.inserted += inserted.count
        next.summary.failed += refused.count + inserting.count - inserted.count
        return next
    }

    /// What becomes of one user of the file.
    enum Outcome {
        case insert(User)
        case updated
        case refused([JobUserError.Reason])
    }

    /// Reads and checks one user; when the job upserts and the user exists (by id, else by
    /// address), updates them here.
    private func prepare(_ object: [String: JSONValue], job: Job, on connection: Connection) async -> Outcome {
        let new: NewUser
        switch ImportedUser.read(object, connection: connection.name) {
        case .failure(let refusal): return .refused(refusal.reasons)
        case .success(let read): new = read
        }
        do {
            let user = try users.record(new, on: connection)
            guard job.upsert, let existing = try await existing(user) else { return .insert(user) }
            _ = try await users.update(existing.userID, ImportedUser.changes(new))
            return .updated
        } catch let error as SesameError where error.kind == .conflict {
            return .refused([ImportedUser.duplicate])
        } catch let error as SesameError {
            return .refused([ImportedUser.reason(error)])
        } catch {
            return .refused([JobUserError.Reason(code: "INTERNAL_ERROR", message: "The user could not be stored.")])
        }
    }

    /// The stored user with `user`'s id, or else its address on its connection.
    private func existing(_ user: User) async throws -> User? {
        if let found = try await storage.user(id: user.id) { return found }
        return try await storage.user(connection: user.connection, identifier: user.identifier)
    }
}

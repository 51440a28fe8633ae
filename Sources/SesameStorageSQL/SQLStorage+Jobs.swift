public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: JobRepository {
    /// Every column but the files and the errors, which are read on their own.
    static let jobColumns = """
        id, type, status, connection, connection_id, external_id, upsert, format, fields, processed, inserted, updated,
        failed, total, status_details, created_at, updated_at
        """

    /// The most of an import's file one row of `job_inputs` holds: a bind and a row cost this
    /// much beside the file, never a second copy of it.
    static let inputPiece = 1024 * 1024

    public func createJob(_ job: Job, input: Data) async throws {
        // A large file is written without a request's deadline.
        try await executor.bulkTransaction { db in
            try await db.raw(
                """
                INSERT INTO jobs (id, type, status, connection, connection_id, external_id, upsert, format, fields,
                input, processed, inserted, updated, failed, total, errors, created_at, updated_at)
                VALUES (\(bind: job.id), \(bind: job.kind.rawValue), \(bind: job.status.rawValue), \(bind: job.connection),
                \(bind: job.connectionID), \(bind: job.externalID), \(bind: job.upsert.sqlValue), \(bind: job.format),
                \(bind: job.fields), \(bind: Data()), \(bind: job.processed), \(bind: job.summary.inserted),
                \(bind: job.summary.updated), \(bind: job.summary.failed), \(bind: job.summary.total), '',
                \(bind: job.createdAt.sqlValue), \(bind: job.updatedAt.sqlValue))
                """
            ).run()
            var (offset, piece) = (input.startIndex, 0)
            while offset < input.endIndex {
                let end = min(offset + Self.inputPiece, input.endIndex)
                try await db.raw(
                    """
                    INSERT INTO job_inputs (job_id, piece, bytes)
                    VALUES (\(bind: job.id), \(bind: piece), \(bind: Data(input[offset..<end])))
                    """
                ).run()
                (offset, piece) = (end, piece + 1)
            }
        }
    }

    public func job(id: String) async throws -> Job? {
        try await executor.read { db in
            try await db.raw("SELECT \(unsafeRaw: Self.jobColumns) FROM jobs WHERE id = \(bind: id)").first()
                .map(Self.job(from:))
        }
    }

    public func jobInput(id: String) async throws -> Data? {
        let whole = try await executor.read { db in
            try await db.raw("SELECT input FROM jobs WHERE id = \(bind: id)").first()?.decode(column: "input", as: Data.self)
        }
        guard var file = whole else { return nil }
        // Read a piece at a time, so the driver holds one piece beside the file.
        var piece = 0
        while let bytes = try await inputPiece(id, piece) {
            file.append(bytes)
            piece += 1
        }
        return file
    }

    private func inputPiece(_ id: String, _ piece: Int) async throws -> Data? {
        try await executor.read { db in
            try await db.raw("SELECT bytes FROM job_inputs WHERE job_id = \(bind: id) AND piece = \(bind: piece)").first()?
                .decode(column: "bytes", as: Data.self)
        }
    }

    public func jobOutput(id: String) async throws -> Data? {
        try await executor.read { db in
            try await db.raw("SELECT output FROM jobs WHERE id = \(bind: id) AND status = 'completed'").first()?
                .decode(column: "output", as: Data?.self)
        }
    }

    public func jobErrors(id: String) async throws -> [JobUserError] {
        let text = try await executor.read { db in
            try await db.raw("SELECT errors FROM jobs WHERE id = \(bind: id)").first()?.string("errors")
        }
        let decoder = JSONDecoder()
        return try (text ?? "").split(separator: "\n").map { try decoder.decode(JobUserError.self, from: Data($0.utf8)) }
    }

    public func claimJob(owner: String, now: Date, leaseUntil: Date) async throws -> Job? {
        // As claimDeliveries: the job is chosen once, in a CTE, skipping rows another
        // instance is claiming on PostgreSQL; SQLite's single writer is the gate there.
        let postgres = executor.flavor == .postgres
        let skipLocked: SQLQueryString = postgres ? "FOR UPDATE SKIP LOCKED" : ""
        let returning = Self.jobColumns.split(separator: ",").map { "jobs." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return try await executor.write { db in
            try await db.raw(
                """
                WITH due AS (SELECT id FROM jobs WHERE status = 'pending'
                  OR (status = 'processing' AND lease_until <= \(bind: now.sqlValue))
                  ORDER BY created_at, id LIMIT 1 \(skipLocked))
                UPDATE jobs SET status = 'processing', lease_owner = \(bind: owner),
                lease_until = \(bind: leaseUntil.sqlValue), updated_at = \(bind: now.sqlValue)
                FROM due WHERE jobs.id = due.id
                RETURNING \(unsafeRaw: returning.joined(separator: ", "))
                """
            ).first().map(Self.job(from:))
        }
    }

    public func importUsers(
        _ users: [User], job id: String, owner: String, progress: @escaping @Sendable (Set<String>) -> JobProgress,
        at: Date, leaseUntil: Date
    ) async throws -> Set<String>? {
        // Bulk work: a batch lasts as long as its users, not a request's deadline.
        try await executor.bulkTransaction { db in
            let held = try await db.raw(
                """
                UPDATE jobs SET lease_until = \(bind: leaseUntil.sqlValue), updated_at = \(bind: at.sqlValue)
                WHERE id = \(bind: id) AND lease_owner = \(bind: owner) AND status = 'processing' RETURNING id
                """
            ).first()
            guard held != nil else { return nil }
            var inserted = Set<String>()
            for user in users {
                // A taken id or address skips this user only: the statement inserts the whole
                // row or nothing, and the transaction goes on.
                if try await Self.insert(user, into: db, suffix: "ON CONFLICT DO NOTHING RETURNING id") != nil {
                    inserted.insert(user.id)
                }
            }
            let step = progress(inserted)
            let encoder = JSONEncoder()
            let errors = try step.errors.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined()
            try await db.raw(
                """
                UPDATE jobs SET processed = \(bind: step.processed), inserted = \(bind: step.summary.inserted),
                updated = \(bind: step.summary.updated), failed = \(bind: step.summary.failed),
                errors = errors || \(bind: errors) WHERE id = \(bind: id)
                """
            ).run()
            return inserted
        }
    }

    public func releaseJob(id: String, owner: String, at: Date) async throws -> Bool {
        try await executor.write { db in
            try await db.raw(
                """
                UPDATE jobs SET lease_owner = NULL, lease_until = \(bind: at.sqlValue), updated_at = \(bind: at.sqlValue)
                WHERE id = \(bind: id) AND lease_owner = \(bind: owner) AND status = 'processing' RETURNING id
                """
            ).first() != nil
        }
    }

    public func finishJob(
        id: String, owner: String, status: Job.Status, output: Data?, details: String?, at: Date
    ) async throws -> Bool {
        try await executor.write { db in
            let finished = try await db.raw(
                """
                UPDATE jobs SET status = \(bind: status.rawValue), output = \(bind: output),
                status_details = \(bind: details), input = \(bind: Data()), lease_owner = NULL, lease_until = NULL,
                updated_at = \(bind: at.sqlValue)
                WHERE id = \(bind: id) AND lease_owner = \(bind: owner) AND status = 'processing' RETURNING id
                """
            ).first()
            guard finished != nil else { return false }
            // A finished job's file is no longer read.
            try await db.raw("DELETE FROM job_inputs WHERE job_id = \(bind: id)").run()
            return true
        }
    }

    public func deleteJobs(createdBefore date: Date) async throws -> Int {
        try await executor.write { db in
            try await db.raw(
                "DELETE FROM jobs WHERE created_at < \(bind: date.sqlValue) AND status IN ('completed', 'failed') RETURNING id"
            ).all().count
        }
    }

    private static func job(from row: any SQLRow) throws -> Job {
        let kind = Job.Kind(rawValue: try row.string("type")) ?? .usersImport
        var job = Job(
            id: try row.string("id"), kind: kind,
            connection: try row.string("connection"), connectionID: try row.string("connection_id"),
            externalID: try row.optionalString("external_id"), upsert: try row.bool("upsert"), total: try row.int("total"),
            at: try row.date("created_at"))
        // A status this version does not know is shown as failed: nothing claims it.
        job.status = Job.Status(rawValue: try row.string("status")) ?? .failed
        (job.format, job.fields) = (try row.optionalString("format"), try row.optionalString("fields"))
        job.processed = try row.int("processed")
        job.summary = JobSummary(
            failed: try row.int("failed"), updated: try row.int("updated"), inserted: try row.int("inserted"),
            total: try row.int("total"))
        job.statusDetails = try row.optionalString("status_details")
        job.updatedAt = try row.date("updated_at")
        return job
    }
}

public import Foundation

/// Management API jobs (``Job``) and their files. Claims hand a job to one worker at a time
/// across every instance sharing the database; a worker that dies loses its claim when the
/// lease runs out, and the next claim resumes the job after its last recorded step.
public protocol JobRepository: Sendable {
    /// Stores a pending job and its input file.
    func createJob(_ job: Job, input: Data) async throws
    /// The job with this id, or nil.
    func job(id: String) async throws -> Job?
    /// The job's input file, or nil.
    func jobInput(id: String) async throws -> Data?
    /// The users the job refused so far, in the order it met them.
    func jobErrors(id: String) async throws -> [JobUserError]
    /// Leases the oldest job that is pending, or processing with a lease run out, to `owner`
    /// until `leaseUntil`, and marks it processing; nil when there is none.
    func claimJob(owner: String, now: Date, leaseUntil: Date) async throws -> Job?
    /// One step of an import, in one transaction: inserts those of `users` whose id and
    /// address are free (a taken one is skipped, never half written), records the progress
    /// `progress` makes of the ids inserted, and extends the lease to `leaseUntil`. Returns
    /// the ids inserted, or nil (and nothing is written) when `owner` no longer holds the job.
    func importUsers(
        _ users: [User], job id: String, owner: String, progress: @escaping @Sendable (Set<String>) -> JobProgress,
        at: Date, leaseUntil: Date
    ) async throws -> Set<String>?
    /// Lets go of a job `owner` holds (a worker stopping), so the next claim, on any
    /// instance, resumes it at once instead of when the lease runs out; false when `owner`
    /// no longer holds it.
    func releaseJob(id: String, owner: String, at: Date) async throws -> Bool
    /// Ends a job `owner` holds as completed or failed, with `output` (an export's file) and
    /// `details`; false (and nothing changes) when `owner` no longer holds it.
    func finishJob(
        id: String, owner: String, status: Job.Status, output: Data?, details: String?, at: Date
    ) async throws -> Bool
    /// A completed export's file, or nil.
    func jobOutput(id: String) async throws -> Data?
    /// Deletes finished jobs created before `date`, with their files; returns how many.
    func deleteJobs(createdBefore date: Date) async throws -> Int
}

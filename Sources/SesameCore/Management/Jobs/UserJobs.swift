public import Foundation
public import Logging

/// Auth0's bulk user jobs (`/api/v2/jobs`): an import is stored with its file as a pending
/// job, and a worker (``run()``, one in every instance) claims it with a lease and imports
/// it a batch at a time, each batch's users and progress in one transaction. A job whose
/// worker dies is claimed again once the lease runs out and resumes after its last batch.
public final class UserJobs: Sendable {
    let users: UserAdministration
    let logger: Logger
    /// Signs the links of exports' files; nil where nothing serves them (the CLI).
    let links: JobFileLinks?
    /// Users read, checked and stored per transaction.
    let batchSize: Int
    /// How long a claim lasts without a batch renewing it.
    let lease: TimeInterval
    /// How often an idle worker looks for jobs other instances stored.
    let pollInterval: TimeInterval
    /// This worker's name in leases, distinct per process.
    let owner: String
    /// Compresses exports' files; nil: they are written as they are.
    let compression: (any ExportCompression)?
    private let signal = WorkerSignal()

    var storage: any SesameStorage { users.storage }
    var clock: any SesameClock { users.clock }

    /// Creates the service over the users' administration.
    public init(
        users: UserAdministration, logger: Logger, links: JobFileLinks? = nil, batchSize: Int = 500,
        lease: TimeInterval = 60, pollInterval: TimeInterval = 2, compression: (any ExportCompression)? = nil
    ) {
        self.compression = compression
        self.users = users
        self.logger = logger
        self.links = links
        self.batchSize = batchSize
        self.lease = lease
        self.pollInterval = pollInterval
        self.owner = users.random.hex(8)
    }

    /// Stores an import of `file` (Auth0's bulk-import JSON) into the connection with Auth0 id
    /// `connectionID`, for the worker.
    /// - Throws: 400 for an unknown connection, or a file that is not a JSON array of user
    ///   objects (the line, column and reason of the first fault), or holds no user; 413 for
    ///   a file over ``UsersFile/maxSize``.
    public func importUsers(_ file: Data, connectionID: String, upsert: Bool, externalID: String?) async throws -> Job {
        var upload = UsersUpload(expectedSize: file.count)
        try upload.append(file)
        return try await importUsers(upload, connectionID: connectionID, upsert: upsert, externalID: externalID)
    }

    /// Stores an import of a file received a piece at a time (each user already checked), as
    /// the import of a whole file does.
    /// - Throws: 400 for an unknown connection, a file whose array is not closed, or that
    ///   holds no user.
    public func importUsers(_ upload: UsersUpload, connectionID: String, upsert: Bool, externalID: String?) async throws -> Job {
        guard let connection = try await storage.listConnections().first(where: { $0.id == connectionID }) else {
            throw SesameError.invalidRequest("connection_id \(connectionID) is not a connection.")
        }
        if let externalID, externalID.count > 128 { throw SesameError.invalidRequest("external_id is over 128 characters.") }
        let total = try upload.finish()
        let job = Job(
            id: "job_" + users.random.hex(8), kind: .usersImport, connection: connection.name, connectionID: connection.id,
            externalID: externalID, upsert: upsert, total: total, at: clock.now())
        try await storage.createJob(job, input: upload.data)
        wakeUp()
        return job
    }

    /// The job with this id.
    /// - Throws: 404 for none.
    public func job(_ id: String) async throws -> Job {
        guard let job = try await storage.job(id: id) else { throw SesameError(.notFound, .notFound, "No job \(id).") }
        return job
    }

    /// The users the job refused so far.
    /// - Throws: 404 for no such job.
    public func errors(_ id: String) async throws -> [JobUserError] {
        _ = try await job(id)
        return try await storage.jobErrors(id: id)
    }

    /// Asks the running worker to look for jobs now.
    public func wakeUp() { signal.wakeUp() }

    /// Stops the worker after its current batch; the job is resumed by the next claim.
    public func stop() { signal.stop() }

    var isStopping: Bool { signal.isStopping }

    /// Runs jobs until cancelled or stopped: at each wake-up and every poll interval. Call once.
    public func run() async {
        await signal.run(every: pollInterval) {
            while !isStopping, !Task.isCancelled, await runNext(owner: owner) != nil {}
        }
    }

    /// Claims the next job for `owner` and runs it to its end (or until the worker stops);
    /// nil when none is waiting, or storage is down.
    /// - Parameter progress: told the job after each batch (the CLI's progress bar).
    @discardableResult
    public func runNext(owner: String, progress: @Sendable (Job) -> Void = { _ in }) async -> Job? {
        let now = clock.now()
        let claimed: Job?
        do {
            claimed = try await storage.claimJob(owner: owner, now: now, leaseUntil: now.addingTimeInterval(lease))
        } catch {
            logger.warning("job queue unavailable; trying again shortly", metadata: ["error": "\(error)"])
            return nil
        }
        guard let claimed else { return nil }
        guard claimed.kind == .usersExport else { return await run(claimed, owner: owner, progress: progress) }
        return await runExport(claimed, owner: owner)
    }
}

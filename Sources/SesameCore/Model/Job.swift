public import Foundation
public import SesameAPI

/// A long-running Management API job (Auth0's `/api/v2/jobs`): a users import or export,
/// stored with its input so any instance's worker can run it and a restart resumes it.
public struct Job: Sendable, Equatable {
    /// Auth0's job types.
    public enum Kind: String, Sendable {
        case usersImport = "users_import"
        case usersExport = "users_export"
    }

    /// Auth0's job states: `pending` until a worker claims it, `processing` while one runs it.
    public enum Status: String, Sendable {
        case pending, processing, completed, failed
    }

    /// `job_` and 16 hex digits.
    public var id: String
    public var kind: Kind
    public var status: Status
    /// The connection's name and Auth0 id (`con_…`).
    public var connection: String
    public var connectionID: String
    /// The caller's own reference (`external_id`).
    public var externalID: String?
    /// An import updates users that exist instead of refusing them.
    public var upsert: Bool
    /// An export's `json` or `csv`.
    public var format: String?
    /// An export's fields, as a JSON array of `{name, export_as}`; nil: Auth0's default fields.
    public var fields: String?
    /// How many users of the input have been handled (a resumed import starts after them).
    public var processed: Int
    public var summary: JobSummary
    /// Why a job failed as a whole.
    public var statusDetails: String?
    public var createdAt: Date
    public var updatedAt: Date

    /// Creates a pending job.
    public init(
        id: String, kind: Kind, connection: String, connectionID: String, externalID: String?, upsert: Bool, total: Int,
        at now: Date
    ) {
        self.id = id
        self.kind = kind
        self.status = .pending
        self.connection = connection
        self.connectionID = connectionID
        self.externalID = externalID
        self.upsert = upsert
        self.processed = 0
        self.summary = JobSummary(total: total)
        self.createdAt = now
        self.updatedAt = now
    }
}

/// Auth0's `summary` of a finished import.
public struct JobSummary: Sendable, Equatable {
    public var failed = 0
    public var updated = 0
    public var inserted = 0
    public var total = 0

    /// Creates a summary.
    public init(failed: Int = 0, updated: Int = 0, inserted: Int = 0, total: Int = 0) {
        (self.failed, self.updated, self.inserted, self.total) = (failed, updated, inserted, total)
    }
}

/// One user an import refused, in Auth0's shape: the user as given and why.
public struct JobUserError: Sendable, Equatable, Codable {
    /// One reason (`DUPLICATED_USER`, `INVALID_FORMAT`, …) and the field it is about.
    public struct Reason: Sendable, Equatable, Codable {
        public var code: String
        public var message: String
        public var path: String

        /// Creates a reason.
        public init(code: String, message: String, path: String = "") {
            (self.code, self.message, self.path) = (code, message, path)
        }
    }

    /// The user's object in the file (a non-object element is kept as it was).
    public var user: JSONValue
    public var errors: [Reason]

    /// Creates an error entry.
    public init(user: JSONValue, errors: [Reason]) {
        (self.user, self.errors) = (user, errors)
    }
}

/// What one step of a running import records, in the same transaction as its users.
public struct JobProgress: Sendable, Equatable {
    /// The users of the input handled so far.
    public var processed: Int
    public var summary: JobSummary
    /// The users this step refused, appended to the job's errors.
    public var errors: [JobUserError]

    /// Creates a step's progress.
    public init(processed: Int, summary: JobSummary, errors: [JobUserError]) {
        (self.processed, self.summary, self.errors) = (processed, summary, errors)
    }
}

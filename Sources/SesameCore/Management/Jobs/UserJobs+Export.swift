public import Foundation
import Logging

/// Where a completed export's file downloads from without a token: a URL signed with the
/// server's HMAC key that works for a few minutes.
public struct JobFileLinks: Sendable {
    let hasher: SecretHasher
    /// The issuer the URL starts with (`https://login.example.com/`).
    let issuer: String
    /// How long a link works.
    let lifetime: TimeInterval

    /// Creates links under `issuer`, signed by `hasher`, working for `lifetime` seconds.
    public init(hasher: SecretHasher, issuer: String, lifetime: TimeInterval = 600) {
        (self.hasher, self.issuer, self.lifetime) = (hasher, issuer, lifetime)
    }

    /// What the signature covers: the job and the instant the link stops working.
    static func message(_ id: String, expires: Int64) -> String { "\(id)\u{0}\(expires)" }

    func url(for id: String, at now: Date) -> String {
        let expires = Int64(now.addingTimeInterval(lifetime).timeIntervalSince1970)
        let signature = Hex.encode(hasher.hash(Self.message(id, expires: expires), purpose: .jobFile))
        return "\(issuer)api/v2/jobs/\(id)/file?expires=\(expires)&signature=\(signature)"
    }

    func verify(_ id: String, expires: Int64, signature: String, at now: Date) -> Bool {
        guard Double(expires) > now.timeIntervalSince1970 else { return false }
        var matched = false
        for candidate in hasher.candidates(Self.message(id, expires: expires), purpose: .jobFile) {
            // Every key is tried, compared in constant time: timing reveals no signature.
            matched = SecretHasher.constantTimeEquals(Array(Hex.encode(candidate).utf8), Array(signature.utf8)) || matched
        }
        return matched
    }
}

extension UserJobs {
    /// Stores an export of the users of the connection with Auth0 id `connectionID` (nil:
    /// every user) in `format` (`json`, the default, or `csv`) with `fields` (nil: Auth0's
    /// usual ones), for the worker.
    /// - Throws: 400 for an unknown connection or format, or bad fields.
    public func exportUsers(connectionID: String?, format: String?, fields: [UserExport.Field]?) async throws -> Job {
        let (format, fields) = (format ?? "json", fields ?? UserExport.defaultFields)
        try UserExport.validate(format: format, fields: fields)
        var connection: Connection?
        if let connectionID {
            connection = try await storage.listConnections().first { $0.id == connectionID }
            guard connection != nil else {
                throw SesameError.invalidRequest("connection_id \(connectionID) is not a connection.")
            }
        }
        var job = Job(
            id: "job_" + users.random.hex(8), kind: .usersExport, connection: connection?.name ?? "",
            connectionID: connection?.id ?? "", externalID: nil, upsert: false, total: 0, at: clock.now())
        job.format = format
        job.fields = String(decoding: try JSONEncoder().encode(fields), as: UTF8.self)
        try await storage.createJob(job, input: Data())
        wakeUp()
        return job
    }

    /// The signed URL of a completed export's file, or nil.
    public func location(of job: Job) -> String? {
        guard job.kind == .usersExport, job.status == .completed, let links else { return nil }
        return links.url(for: job.id, at: clock.now())
    }

    /// A completed export's file (gzip, given an ``ExportCompression``) and its format, for a signed link that has not expired.
    /// - Throws: 404 for a link that does not verify (wrong, expired, or no such file).
    public func file(_ id: String, expires: Int64, signature: String) async throws -> (data: Data, format: String) {
        guard let links, links.verify(id, expires: expires, signature: signature, at: clock.now()),
            let job = try await storage.job(id: id), let data = try await storage.jobOutput(id: id)
        else { throw SesameError(.notFound, .notFound, "No such file, or its link expired.") }
        return (data, job.format ?? "json")
    }

    /// Runs a claimed export to its end: the file is stored with the completed job.
    func runExport(_ claimed: Job, owner: String) async -> Job {
        var job = claimed
        do {
            let output = try await export(job)
            job.status = .completed
            _ = try await storage.finishJob(
                id: job.id, owner: owner, status: .completed, output: output, details: nil, at: clock.now())
        } catch {
            logger.error("users export failed", metadata: ["job": "\(job.id)", "error": "\(error)"])
            (job.status, job.statusDetails) = (.failed, "The export failed.")
            _ = try? await storage.finishJob(
                id: job.id, owner: owner, status: .failed, output: nil, details: job.statusDetails, at: clock.now())
        }
        return job
    }

    /// Writes the export's file, gzip-compressed as Auth0's are (given an
    /// ``ExportCompression``), a page of users at a time.
    func export(_ job: Job) async throws -> Data {
        let fields = try job.fields.map { try JSONDecoder().decode([UserExport.Field].self, from: Data($0.utf8)) }
        return try await exportFile(
            connection: job.connection.isEmpty ? nil : job.connection, format: job.format, fields: fields, gzip: true)
    }

    /// The file an export of the users of `connection` (nil: all) writes, made here at once
    /// (`sesame admin users export`), a page of users at a time; with `gzip`, compressed as
    /// each page is written, so the uncompressed file is never held.
    /// - Throws: 400 for an unknown format or bad fields.
    public func exportFile(
        connection: String?, format: String?, fields: [UserExport.Field]?, gzip: Bool = false
    ) async throws -> Data {
        let (format, fields) = (format ?? "json", fields ?? UserExport.defaultFields)
        try UserExport.validate(format: format, fields: fields)
        var file = try ExportFile(gzip ? compression : nil)
        if format == "csv" { try file.write(UserExport.csvHeader(fields)) }
        var offset = 0
        while true {
            let page = try await storage.searchUsers(UserSearch(limit: batchSize, offset: offset))
            var lines = Data()
            for user in page where connection == nil || user.connection == connection {
                lines +=
                    format == "csv" ? try UserExport.csvLine(user, fields: fields) : try UserExport.jsonLine(user, fields: fields)
            }
            try file.write(lines)
            guard page.count == batchSize else { return try file.finish() }
            offset += batchSize
        }
    }
}

/// An export's file as it is written: as is, or through the server's ``ExportCompression``.
struct ExportFile {
    private var plain = Data()
    private var gzip: (any CompressedFile)?

    init(_ compression: (any ExportCompression)?) throws {
        gzip = try compression?.start()
    }

    mutating func write(_ bytes: Data) throws {
        guard gzip != nil else { return plain.append(bytes) }
        try gzip?.write(bytes)
    }

    mutating func finish() throws -> Data {
        try gzip?.finish() ?? plain
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat
import SesameAPI
import SesameCore

/// Auth0's bulk user jobs through ``UserJobs``: `POST /api/v2/jobs/users-imports` (a
/// multipart upload of the users file), `POST /api/v2/jobs/users-exports`,
/// `GET /api/v2/jobs/{id}` (a completed export's signed `location`),
/// `GET /api/v2/jobs/{id}/errors`, and `GET /api/v2/jobs/{id}/file`, the export's gzip file,
/// which takes the link's signature instead of a token.
struct JobsRoutes {
    let adminTokens: AdminTokens
    let jobs: UserJobs

    func register(on router: Router<SesameRequestContext>) {
        router.post("/api/v2/jobs/users-imports", use: createImport)
        router.get("/api/v2/jobs/:id", use: get)
        router.get("/api/v2/jobs/:id/errors", use: errors)
        router.post("/api/v2/jobs/users-exports", use: createExport)
        router.get("/api/v2/jobs/:id/file", use: file)
    }

    /// The form fields of an import; the `users` part is the file.
    static let importFields: Set<String> = ["users", "connection_id", "upsert", "external_id", "send_completion_email"]

    @Sendable func createImport(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .createUsers)
        // The file may be far larger than any other body: it is read as it arrives, each user
        // checked as it completes, and kept once (for the job), never collected and copied.
        var reader = try MultipartReader(contentType: request.headers[.contentType])
        var form = ImportForm(expectedSize: request.headers[.contentLength].flatMap { Int($0) })
        for try await piece in request.body {
            try reader.feed(piece.readableBytesView) { try form.take($0) }
        }
        try reader.finish()
        guard let upload = form.upload else { throw SesameError.invalidRequest("users (the file) is required.") }
        guard let connectionID = form.fields["connection_id"], !connectionID.isEmpty else {
            throw SesameError.invalidRequest("connection_id is required.")
        }
        let upsert = try Self.flag(form.fields["upsert"], name: "upsert")
        // Sesame has no tenant owners to mail; the flag is checked and otherwise ignored.
        _ = try Self.flag(form.fields["send_completion_email"], name: "send_completion_email")
        let job = try await jobs.importUsers(
            upload, connectionID: connectionID, upsert: upsert, externalID: form.fields["external_id"])
        return try Responses.json(JobBody(job), status: .created, noStore: true)
    }

    @Sendable func get(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await authorize(request)
        let job = try await jobs.job(context.parameters.get("id") ?? "")
        var body = JobBody(job)
        body.location = jobs.location(of: job)
        return try Responses.json(body, noStore: true)
    }

    /// An export's request: Auth0's `connection_id`, `format` and `fields` (`limit` is
    /// accepted; every user is exported).
    struct ExportRequest: Decodable {
        var connectionID: String?
        var format: String?
        var fields: [UserExport.Field]?
        var limit: Int?

        enum CodingKeys: String, CodingKey {
            case format, fields, limit
            case connectionID = "connection_id"
        }
    }

    @Sendable func createExport(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readUsers)
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        let export: ExportRequest
        do {
            export = try JSONDecoder().decode(ExportRequest.self, from: Data(body.readableBytesView))
        } catch {
            throw SesameError.invalidRequest("The body must be a JSON object with connection_id, format and fields.")
        }
        let job = try await jobs.exportUsers(connectionID: export.connectionID, format: export.format, fields: export.fields)
        return try Responses.json(JobBody(job), status: .created, noStore: true)
    }

    /// The export's file, for a signed link that has not expired; no token.
    @Sendable func file(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let (id, signature) = (context.parameters.get("id") ?? "", query["signature"].map(String.init) ?? "")
        let expires = query["expires"].flatMap { Int64(String($0)) } ?? 0
        let (data, format) = try await jobs.file(id, expires: expires, signature: signature)
        // Gzip, named `<id>.json.gz` or `<id>.csv.gz` (newline-delimited JSON or CSV inside), as
        // Auth0's; a server wired without compression (``ExportCompression``) stores it plain.
        let gzip = data.starts(with: [0x1F, 0x8B])
        let plainType = format == "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson"
        var headers: HTTPFields = [.contentType: gzip ? "application/gzip" : plainType, .cacheControl: "no-store"]
        headers[HTTPField.Name("Content-Disposition")!] = "attachment; filename=\"\(id).\(format)\(gzip ? ".gz" : "")\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    @Sendable func errors(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await authorize(request)
        return try Responses.json(try await jobs.errors(context.parameters.get("id") ?? ""), noStore: true)
    }

    /// Auth0 lets either `read:users` or `create:users` read a job.
    private func authorize(_ request: Request) async throws {
        do {
            try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readUsers)
        } catch let error as SesameError where error.kind == .forbidden {
            try await adminTokens.authorize(bearerToken: request.bearerToken, for: .createUsers)
        }
    }

    /// A `true`/`false` form field; absent is false.
    static func flag(_ text: String?, name: String) throws -> Bool {
        guard let text else { return false }
        guard let value = Bool(text.lowercased()) else { throw SesameError.invalidRequest("\(name) must be true or false.") }
        return value
    }
}

/// A job in Auth0's shape; `summary` once it has run.
struct JobBody: Codable, Sendable, Equatable {
    struct Summary: Codable, Sendable, Equatable {
        var failed, updated, inserted, total: Int
    }

    var id, type, status: String
    /// Absent for an export of every connection, as Auth0 answers it.
    var connectionID, connection: String?
    var externalID: String?
    var upsert: Bool?
    var createdAt: String
    var summary: Summary?
    var statusDetails: String?
    var format: String?
    var location: String?

    enum CodingKeys: String, CodingKey {
        case id, type, status, connection, upsert, summary
        case connectionID = "connection_id", externalID = "external_id", createdAt = "created_at"
        case statusDetails = "status_details", format, location
    }

    init(_ job: Job) {
        (id, type, status) = (job.id, job.kind.rawValue, job.status.rawValue)
        (connectionID, connection) = job.connectionID.isEmpty ? (nil, nil) : (job.connectionID, job.connection)
        externalID = job.externalID
        upsert = job.kind == .usersImport ? job.upsert : nil
        createdAt = ISO8601.string(job.createdAt)
        if job.kind == .usersImport, job.status == .completed || job.status == .failed {
            let counts = job.summary
            summary = Summary(failed: counts.failed, updated: counts.updated, inserted: counts.inserted, total: counts.total)
        }
        statusDetails = job.statusDetails
        format = job.format
    }
}

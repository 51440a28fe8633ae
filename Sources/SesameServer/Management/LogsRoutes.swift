import Foundation
import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// `GET /api/v2/logs`, `GET /api/v2/logs/{id}` and `GET /api/v2/users/{id}/logs`: the audit
/// trail in Auth0's log shape, paged as Auth0's SDKs read it.
struct LogsRoutes {
    let adminTokens: AdminTokens
    let auditTrail: AuditTrail

    func register(on router: Router<SesameRequestContext>) {
        router.get("/api/v2/logs", use: logs)
        router.get("/api/v2/logs/:id", use: log)
        router.get("/api/v2/users/:id/logs", use: userLogs)
    }

    /// Newest first, `page`/`per_page` (a page object with `include_totals=true`), or Auth0's
    /// checkpoint form: `from` a log id and `take` how many, oldest first. `search` (or `q`)
    /// selects by `type` and `user_id`, terms joined with `AND`.
    @Sendable func logs(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readLogs)
        let parameters = request.uri.queryParameters
        var page = try ManagementPage(request)
        var query = AuditQuery(limit: page.perPage, offset: page.offset)
        if let from = parameters["from"] {
            guard let seq = Int64(from), seq >= 0 else { throw SesameError.invalidRequest("from must be a log_id.") }
            page.perPage = try Self.take(parameters["take"].map(String.init))
            (query.after, query.limit, query.offset, page.includeTotals) = (seq, page.perPage, 0, false)
        }
        let search = (parameters["search"] ?? parameters["q"]).map { String($0).replacingOccurrences(of: "+AND+", with: " AND ") }
        if let search, !search.isEmpty { try query.apply(search: search, auditTypes: LogBody.auditTypes(matching:)) }
        return try await answer(query, page: page)
    }

    @Sendable func log(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readLogs)
        let id = context.parameters.get("id") ?? ""
        guard let seq = Int64(id) else { throw SesameError(.notFound, .notFound, "No log event \(id).") }
        return try Responses.json(LogBody(try await auditTrail.event(seq)), noStore: true)
    }

    @Sendable func userLogs(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readLogs)
        let page = try ManagementPage(request)
        let userID = try ManagementController.userID(context)
        return try await answer(AuditQuery(userID: userID, limit: page.perPage, offset: page.offset), page: page)
    }

    /// The events `query` selects: a list, or a page with totals.
    private func answer(_ query: AuditQuery, page: ManagementPage) async throws -> Response {
        let events = try await auditTrail.list(query).map(LogBody.init)
        guard page.includeTotals else { return try Responses.json(events, noStore: true) }
        let total = try await auditTrail.count(query)
        return try Responses.json(
            ManagementPageBody(start: query.offset, limit: query.limit, total: total, key: "logs", items: events),
            noStore: true)
    }

    /// Auth0's `take`: 1 to 100, 50 when absent.
    static func take(_ text: String?) throws -> Int {
        guard let text else { return 50 }
        guard let take = Int(text), (1...100).contains(take) else {
            throw SesameError.invalidRequest("take must be from 1 to 100.")
        }
        return take
    }
}

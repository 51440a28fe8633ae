import Foundation
import HTTPTypes
import Hummingbird
import SesameCore

/// What operators and orchestrators call: liveness, readiness, metrics and the API contract.
///
/// - `GET /health/live`: the process answers (no storage call), for restart decisions.
/// - `GET /health/ready` (and `/health`): the database answers too, for load balancers; the
///   answer names the version and commit running (``BuildInfo``).
/// - `GET /metrics`: Prometheus text, only with `Authorization: Bearer <metrics.token>`;
///   without a token configured it is not served here (use `metrics.port`).
/// - `GET /openapi.json`: the OpenAPI 3.1 document of every endpoint.
struct OperationsController {
    let storage: any SesameStorage
    let clock: any SesameClock
    /// `metrics.token`: nil keeps `/metrics` off the public port.
    let metricsToken: String?
    /// The OpenAPI document, read at its first request: 434 KB no other request needs, so an
    /// idle server does not hold it.
    let openAPI: @Sendable () -> Data?
    let readiness: Readiness

    func register(on router: Router<SesameRequestContext>) {
        router.get("/health", use: ready)
        router.get("/health/ready", use: ready)
        router.get("/health/live", use: live)
        router.get("/metrics", use: metrics)
        router.get("/openapi.json", use: document)
    }

    @Sendable func live(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try Responses.json(["status": "ok"], noStore: true)
    }

    /// Ready when the database answers (a 503 within `database_timeout` when it does not)
    /// and no shutdown has begun, so a load balancer or an orchestrator's readiness probe
    /// takes the instance out meanwhile.
    @Sendable func ready(_ request: Request, context: SesameRequestContext) async throws -> Response {
        guard !readiness.isDraining else { throw SesameError.unavailable("shutting down") }
        try await storage.ping()
        return try Responses.json(
            ["status": "ok", "version": BuildInfo.version, "commit": BuildInfo.commit], noStore: true)
    }

    @Sendable func metrics(_ request: Request, context: SesameRequestContext) async throws -> Response {
        guard let metricsToken else {
            throw SesameError(.notFound, .notFound, "No endpoint GET /metrics: metrics are served on metrics.port.")
        }
        guard ServerMetrics.authorized(request.bearerToken, token: metricsToken) else {
            throw SesameError(.unauthorized, .invalidToken, "The metrics token is missing or wrong.")
        }
        return Self.exposition(await ServerMetrics.scrape(storage, clock: clock))
    }

    @Sendable func document(_ request: Request, context: SesameRequestContext) async throws -> Response {
        guard let openAPI = openAPI() else { throw SesameError(.notFound, .notFound, "The OpenAPI document is not installed.") }
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: .init(bytes: openAPI)))
    }

    /// A Prometheus text-format answer.
    static func exposition(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: .init(string: text)))
    }
}

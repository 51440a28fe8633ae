import Dispatch
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import SesameCore
import SesameParsers

extension HTTPField.Name {
    /// The request's id: the caller's (a proxy's) when it sent a usable one, else ours.
    static let requestID = HTTPField.Name("X-Request-Id")!
}

/// The outermost middleware: gives every request an id (honouring `X-Request-Id`), puts it
/// in every log line of the request and in the response, writes one access line per request
/// and counts it in `sesame_http_requests_total` and `sesame_http_request_duration_seconds`.
///
/// The access line names the route template and the path without its query: codes, links
/// and tokens travel in queries and bodies, and neither is logged.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = SesameRequestContext
    let proxies: ProxyPolicy
    let random: any RandomSource

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = DispatchTime.now().uptimeNanoseconds
        let id = RequestID.usable(request.headers[.requestID]) ?? random.hex(16)
        var context = context
        context.logger[metadataKey: "request_id"] = .string(id)
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            // ErrorMiddleware answers every error inside; this is for what escapes it.
            response = ErrorMiddleware.response(for: error, request: request, context: context)
        }
        response.headers[.requestID] = id
        let route = context.endpointPath ?? "unmatched"
        let nanoseconds = DispatchTime.now().uptimeNanoseconds - start
        Self.record(request.method, route: route, status: response.status.code, nanoseconds: nanoseconds)
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method)", "route": "\(route)", "path": "\(request.uri.path)",
                "status": "\(response.status.code)", "duration_ms": "\(Self.milliseconds(nanoseconds))",
                "client_ip": "\(context.clientIP(request, proxies: proxies))",
            ])
        return response
    }

    /// Milliseconds with one decimal (halves rounded up), without Foundation's formatter
    /// (a measurable share of every request; docs/performance.md).
    static func milliseconds(_ nanoseconds: UInt64) -> String {
        let tenths = (nanoseconds + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func record(_ method: HTTPRequest.Method, route: String, status: Int, nanoseconds: UInt64) {
        // Only known methods become labels: a client inventing methods must not add series.
        let known: Set<HTTPRequest.Method> = [.get, .post, .put, .patch, .delete, .head, .options]
        let labels = [("route", route), ("method", known.contains(method) ? method.rawValue : "other")]
        Counter(label: "sesame_http_requests_total", dimensions: labels + [("status", "\(status)")]).increment()
        Metrics.Timer(label: "sesame_http_request_duration_seconds", dimensions: labels)
            .recordNanoseconds(Int64(clamping: nanoseconds))
    }
}

import HTTPTypes
import Hummingbird
import SesameCore

/// CORS for the endpoints browsers call directly (token, passkeys, profile): an origin is
/// allowed when some application lists it in its allowed web origins. Read per request, so
/// `sesame admin apps update --allowed-origin` applies to a running server at once.
struct CORSMiddleware: RouterMiddleware {
    typealias Context = SesameRequestContext
    let origins: OriginPolicy

    static let paths = ["/oauth/token", "/oauth/revoke", "/passkey/", "/userinfo", "/me/", "/passwordless/start"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let origin = request.headers[.origin], Self.paths.contains(where: request.uri.path.hasPrefix) else {
            return try await next(request, context)
        }
        let allowed = try await isAllowed(origin)
        if request.method == .options {
            var response = Response(status: .noContent)
            if allowed { Self.addPreflightHeaders(&response.headers, origin: origin) }
            return response
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            // Rendered here, not by the outer error middleware, so a browser can read the
            // error of an allowed origin (a wrong code, say) like any other answer.
            response = ErrorMiddleware.response(for: error, request: request, context: context)
        }
        if allowed {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.vary] = "Origin"
            // A browser client reads the nonce for its next DPoP proof (RFC 9449 §8).
            response.headers[.accessControlExposeHeaders] = "DPoP-Nonce, WWW-Authenticate"
        }
        return response
    }

    private func isAllowed(_ origin: String) async throws -> Bool {
        try await origins.allowsCrossOrigin(origin)
    }

    private static func addPreflightHeaders(_ headers: inout HTTPFields, origin: String) {
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlAllowMethods] = "GET, POST, PATCH, DELETE"
        headers[.accessControlAllowHeaders] = "Authorization, Content-Type, Auth0-Client, DPoP"
        headers[.accessControlMaxAge] = "600"
        headers[.vary] = "Origin"
    }
}

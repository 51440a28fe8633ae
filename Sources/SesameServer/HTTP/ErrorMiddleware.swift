import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SesameCore

/// Turns every error into Auth0's `{error, error_description}` shape at one boundary, so no
/// handler writes error JSON and nothing internal reaches a client.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = SesameRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as SesameError {
            if let detail = error.logDetail { context.logger.info("\(error.code): \(LogRedaction.mask(detail))") }
            return Responses.error(error)
        } catch is NIOTooManyBytesError {
            return Responses.error(Self.translate(HTTPError(.contentTooLarge), request: request))
        } catch let error as HTTPError {
            return Responses.error(Self.translate(error, request: request))
        } catch let error as StorageError where error.isUnavailable {
            context.logger.error("storage unavailable: \(error)")
            return Responses.error(.unavailable(error.description))
        } catch {
            context.logger.error("unhandled error: \(String(reflecting: error))")
            return Responses.error(SesameError(.internalError, "server_error", "The server could not complete the request."))
        }
    }

    private static func translate(_ error: HTTPError, request: Request) -> SesameError {
        switch error.status {
        case .contentTooLarge:
            return SesameError(.payloadTooLarge, "request_too_large", "The request body is larger than 65536 bytes.")
        case .notFound:
            return SesameError(.notFound, "not_found", "No endpoint \(request.method) \(request.uri.path).")
        case .methodNotAllowed:
            return SesameError(.notFound, "not_found", "\(request.method) is not supported on \(request.uri.path).")
        default:
            return SesameError(.badRequest, "invalid_request", error.body ?? "The request is invalid.")
        }
    }
}

/// Headers every response carries.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = SesameRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return response
    }
}

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
        } catch {
            return Self.response(for: error, request: request, context: context)
        }
    }

    /// The response for any error: a ``SesameError`` renders itself, Hummingbird's and
    /// storage errors are translated, anything else is a 500 that says nothing internal. Under
    /// `/api/v2/` it takes the Management API's shape, under `/me/v1/` the My Account API's;
    /// everywhere else the Authentication API's.
    static func response(for error: any Error, request: Request, context: Context) -> Response {
        let error = sesameError(for: error, request: request, context: context)
        let path = request.uri.path
        if path.hasPrefix(managementPrefix) { return error.managementResponse }
        return path.hasPrefix(myAccountPrefix) ? error.myAccountResponse : error.response
    }

    /// Where Auth0's My Account API lives, and its error shape with it.
    static let myAccountPrefix = "/me/v1/"

    /// Where Auth0's Management API lives, and its error shape with it.
    static let managementPrefix = "/api/v2/"

    private static func sesameError(for error: any Error, request: Request, context: Context) -> SesameError {
        switch error {
        case let error as SesameError:
            if let detail = error.logDetail { context.logger.info("\(error.code): \(LogRedaction.mask(detail))") }
            return error
        case is NIOTooManyBytesError:
            return translate(HTTPError(.contentTooLarge), request: request)
        case let error as HTTPError:
            return translate(error, request: request)
        case let error as StorageError where error.isUnavailable:
            context.logger.error("storage unavailable: \(error)")
            return SesameError.unavailable(error.description)
        default:
            context.logger.error("unhandled error: \(String(reflecting: error))")
            return SesameError(.internalError, .serverError, "The server could not complete the request.")
        }
    }

    private static func translate(_ error: HTTPError, request: Request) -> SesameError {
        switch error.status {
        case .contentTooLarge:
            return SesameError(.payloadTooLarge, .requestTooLarge, "The request body is larger than 65536 bytes.")
        case .notFound:
            return SesameError(.notFound, .notFound, "No endpoint \(request.method) \(request.uri.path).")
        case .methodNotAllowed:
            return SesameError(.notFound, .notFound, "\(request.method) is not supported on \(request.uri.path).")
        default:
            return SesameError(.badRequest, .invalidRequest, error.body ?? "The request is invalid.")
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

public import HTTPTypes
public import Hummingbird
import SesameAPI
public import SesameCore

/// A ``SesameError`` renders itself: Auth0's `{error, error_description}` body, its status,
/// rate-limit headers on a 429 and, for bearer-token failures, `WWW-Authenticate`.
extension SesameError: HTTPResponseError {
    public var status: HTTPResponse.Status {
        switch kind {
        case .badRequest: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .payloadTooLarge: .contentTooLarge
        case .tooManyRequests: .tooManyRequests
        case .internalError: .internalServerError
        case .unavailable: .serviceUnavailable
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response
    }

    /// The response, without a request (errors raised outside a route).
    var response: Response {
        withHeaders(
            (try? Responses.json(ErrorBody(error: code.rawValue, errorDescription: message, errorReason: reason), status: status))
                ?? Response(status: .internalServerError))
    }

    /// The response under `/api/v2/`, in the Management API's shape (``ManagementErrorBody``),
    /// which Auth0's management SDKs parse.
    var managementResponse: Response {
        let body = ManagementErrorBody(
            statusCode: status.code, error: status.reasonPhrase, errorCode: code.rawValue, message: message,
            errorReason: reason)
        return withHeaders((try? Responses.json(body, status: status)) ?? Response(status: .internalServerError))
    }

    /// The response under `/me/v1/`, in the My Account API's problem shape (``MyAccountErrorBody``).
    var myAccountResponse: Response {
        let body = MyAccountErrorBody(
            type: code.rawValue, status: status.code, title: status.reasonPhrase, detail: message, errorReason: reason)
        return withHeaders((try? Responses.json(body, status: status)) ?? Response(status: .internalServerError))
    }

    private func withHeaders(_ response: Response) -> Response {
        var response = response
        if let limit = rateLimit { response.headers.setRateLimit(limit) }
        if let challenge = dpop.flatMap(dpopChallenge) ?? bearerChallenge { response.headers[.wwwAuthenticate] = challenge }
        if let nonce = dpop?.nonce { response.headers[.dpopNonce] = nonce }
        return response
    }

    /// RFC 9449 §7.1: a protected resource's refusal of a DPoP presentation names the scheme
    /// and the algorithms a proof may use; the token endpoint answers in the body only.
    private func dpopChallenge(_ challenge: DPoPChallenge) -> String? {
        guard challenge.resource else { return nil }
        return "DPoP error=\"\(code.rawValue)\", algs=\"\(DPoPProof.algorithms.joined(separator: " "))\""
    }

    /// RFC 6750 §3 (and RFC 9470 for a login that is too old): how to get a token that works.
    private var bearerChallenge: String? {
        switch code {
        case .invalidToken, .insufficientScope, .insufficientUserAuthentication: "Bearer error=\"\(code.rawValue)\""
        default: nil
        }
    }
}

/// An error of Auth0's My Account API: `type`, `title`, `detail` and `status` (what Auth0.swift's
/// `MyAccountError` reads), and the Authentication API's `error` and `error_description`
/// alongside, so every client of Sesame finds the fields it knows.
struct MyAccountErrorBody: Encodable {
    let type: String
    let status: Int
    let title: String
    let detail: String
    let errorReason: String?

    enum CodingKeys: String, CodingKey {
        case type, status, title, detail, error, errorDescription = "error_description", errorReason = "error_reason"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(status, forKey: .status)
        try container.encode(title, forKey: .title)
        try container.encode(detail, forKey: .detail)
        try container.encode(type, forKey: .error)
        try container.encode(detail, forKey: .errorDescription)
        try container.encodeIfPresent(errorReason, forKey: .errorReason)
    }
}

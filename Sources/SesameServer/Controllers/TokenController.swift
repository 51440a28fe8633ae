import Foundation
import Hummingbird
import SesameAPI
import SesameCore

/// `POST /oauth/token`: one handler that authenticates the client and checks the grant is
/// enabled, then hands over to the grant (dex's shared grant handler).
struct TokenController {
    let sesame: Sesame
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.post("/oauth/token", use: token)
        router.post("/oauth/revoke", use: revoke)
    }

    @Sendable func token(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        guard let grant = try body.string("grant_type") else {
            throw SesameError.invalidRequest("Missing required parameter: grant_type")
        }
        guard Self.grants.contains(grant) else {
            throw SesameError(.badRequest, "unsupported_grant_type", "Unsupported grant type: \(grant)")
        }
        let application = try await authenticate(request, body)
        guard application.allows(grant) else { throw SesameError.grantNotAllowed(grant) }
        let tokens = try await run(grant, body, application, ip: context.clientIP(request, proxies: proxies))
        return try Responses.json(TokenBody(tokens), noStore: true)
    }

    private func run(_ grant: String, _ body: RequestParameters, _ application: SesameCore.Application, ip: String) async throws
        -> TokenResponse
    {
        switch grant {
        case GrantType.passwordlessOTP:
            let credentials = PasswordlessCredentials(
                connection: try body.string("realm"), username: try body.string("username"), code: try body.string("otp"))
            let user = try await sesame.passwordless.consume(credentials, clientID: application.clientID)
            return try await sesame.coordinator.completeLogin(
                user, method: "otp", request: try grantRequest(body, application), ip: ip)
        case GrantType.webauthn:
            return try await sesame.passkeys.finish(
                authSession: try body.string("auth_session"), response: try body.jsonObject("authn_response"),
                request: try grantRequest(body, application), ip: ip)
        case GrantType.jwtBearer:
            return try await sesame.deviceKeys.login.finish(
                .bearer(assertion: try body.string("assertion")), request: try grantRequest(body, application), ip: ip)
        case GrantType.refreshToken:
            return try await sesame.tokens.refresh(
                try body.string("refresh_token"), application: application, scope: try body.string("scope"))
        default:
            return try await sesame.tokens.exchange(
                code: try body.string("code"), redirectURI: try body.string("redirect_uri"),
                codeVerifier: try body.string("code_verifier"), application: application)
        }
    }

    @Sendable func revoke(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        let application = try await authenticate(request, body)
        try await sesame.tokens.revoke(try body.string("token"), application: application)
        return Response(status: .ok)
    }

    func grantRequest(_ body: RequestParameters, _ application: SesameCore.Application) throws -> TokenGrantRequest {
        TokenGrantRequest(
            application: application, scope: Scope(try body.string("scope")),
            audience: try body.string("audience") ?? body.string("resource"), nonce: try body.string("nonce"))
    }

    /// The client from the body (`client_id`, `client_secret`) or HTTP Basic (RFC 6749 §2.3.1).
    func authenticate(_ request: Request, _ body: RequestParameters) async throws -> SesameCore.Application {
        var clientID = try body.string("client_id")
        var secret = try body.string("client_secret")
        if let basic = BasicCredentials(request.headers[.authorization]) {
            clientID = clientID ?? basic.user
            secret = secret ?? basic.password
        }
        return try await sesame.clients.authenticate(clientID: clientID, clientSecret: secret)
    }

    static let grants: Set<String> = [
        GrantType.passwordlessOTP, GrantType.refreshToken, GrantType.authorizationCode, GrantType.webauthn,
        GrantType.jwtBearer,
    ]
}

extension TokenBody {
    init(_ tokens: TokenResponse) {
        self.init(
            accessToken: tokens.accessToken, tokenType: tokens.tokenType, expiresIn: tokens.expiresIn,
            idToken: tokens.idToken, refreshToken: tokens.refreshToken, scope: tokens.scope)
    }
}

/// `Authorization: Basic base64(urlencode(id):urlencode(secret))`.
struct BasicCredentials {
    let user: String
    let password: String

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        user = String(text[..<colon]).removingPercentEncoding ?? String(text[..<colon])
        let rest = String(text[text.index(after: colon)...])
        password = rest.removingPercentEncoding ?? rest
    }
}

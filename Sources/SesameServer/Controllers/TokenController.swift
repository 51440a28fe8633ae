import Foundation
import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// `POST /oauth/token` and `/oauth/revoke`: parse the grant, authenticate the client, check
/// the grant is enabled, then one Core call per grant (dex's shared grant handler).
struct TokenController {
    let passwordless: PasswordlessLogin
    let linkRequests: LinkRequests
    let passkeys: PasskeyLogin
    let deviceKeys: DeviceKeyLogin
    let tokens: TokenService
    let machineTokens: MachineTokens
    let clients: ClientAuthenticator
    let proxies: ProxyPolicy
    /// The per-address limit on refused grants.
    let refusals: GrantRefusalLimit

    func register(on router: Router<SesameRequestContext>) {
        router.post("/oauth/token", use: token)
        router.post("/oauth/revoke", use: revoke)
    }

    @Sendable func token(_ request: Request, context: SesameRequestContext) async throws -> Response {
        var response = try await refusals.answer(request, context, proxies: proxies) {
            try await grant(request, $0, ip: $1)
        }
        // The nonce for the client's next proof, so it need not be asked for again (RFC 9449 §8.2).
        if !request.dpopProofs.isEmpty { response.headers[.dpopNonce] = tokens.dpopNonce() }
        return response
    }

    /// Authenticates the client and runs the grant the body names.
    private func grant(_ request: Request, _ body: RequestParameters, ip: String) async throws -> TokenResponse {
        let grant = try TokenGrant(body)
        let application = try await authenticate(request, body, for: grant)
        // Core refuses it again in each grant; asked here too so it is answered before the rest of the body is read.
        try application.requireGrant(grant.type)
        var issue = try TokenGrantRequest(body, application: application)
        let key = try await proofKey(request, for: grant)
        issue.dpopThumbprint = key
        let response: TokenResponse
        switch grant {
        case .passwordlessOTP(let credentials):
            response = try await passwordless.finish(credentials, request: issue, ip: ip)
        case .webauthn(let session, let answer):
            response = try await passkeys.finish(authSession: session, response: answer, request: issue, ip: ip)
        case .deviceKey(let assertion):
            response = try await deviceKeys.finish(assertion, request: issue, ip: ip)
        case .refreshToken(let token, let scope):
            response = try await tokens.refresh(
                token, application: application, scope: scope, dpopThumbprint: key, audience: issue.audience)
        case .authorizationCode(let code, let redirectURI, let verifier):
            response = try await tokens.exchange(
                code: code, redirectURI: redirectURI, codeVerifier: verifier, application: application,
                dpopThumbprint: key)
        case .magicLink(let linkSession):
            response = try await linkRequests.finish(pollSecret: linkSession, request: issue)
        case .clientCredentials(let audience, let scope):
            response = try await machineTokens.issue(for: application, audience: audience, scope: scope)
        }
        return response
    }

    /// The DPoP key the request proves possession of (RFC 9449), or nil without a proof.
    /// Machine tokens are never presented to Sesame, so a client-credentials grant stays Bearer.
    private func proofKey(_ request: Request, for grant: TokenGrant) async throws -> String? {
        if case .clientCredentials = grant { return nil }
        return try await tokens.tokenRequestKey(proofs: request.dpopProofs, path: request.uri.path)
    }

    /// The client, authenticated. A machine client that fails is told as Auth0 tells it
    /// (401 `access_denied` "Unauthorized"), which is what Auth0's SDKs expect of that grant.
    private func authenticate(_ request: Request, _ body: RequestParameters, for grant: TokenGrant) async throws
        -> SesameCore.Application
    {
        guard case .clientCredentials = grant else { return try await clients.authenticate(request, body) }
        do {
            return try await clients.authenticate(request, body)
        } catch let error as SesameError where error.code == .invalidClient {
            throw SesameError(.unauthorized, .accessDenied, "Unauthorized", logDetail: error.message)
        }
    }

    @Sendable func revoke(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        let application = try await clients.authenticate(request, body)
        try await tokens.revoke(try body.string("token"), application: application)
        return Response(status: .ok)
    }
}

extension GrantRefusalLimit {
    /// Answers a grant endpoint (`/oauth/token`, `/oauth/ro`): parses the body and runs `grant`
    /// for the client's address under this limit, so an address over it is answered before the
    /// client or grant is looked at.
    func answer(
        _ request: Request, _ context: SesameRequestContext, proxies: ProxyPolicy,
        _ grant: (_ body: RequestParameters, _ ip: String) async throws -> TokenResponse
    ) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        let ip = context.clientIP(request, proxies: proxies)
        let response = try await guarding(ip: ip) { try await grant(body, ip) }
        return try Responses.json(TokenBody(response), noStore: true)
    }
}

extension TokenBody {
    init(_ tokens: TokenResponse) {
        self.init(
            accessToken: tokens.accessToken, tokenType: tokens.tokenType, expiresIn: tokens.expiresIn,
            idToken: tokens.idToken, refreshToken: tokens.refreshToken, scope: tokens.scope)
    }
}

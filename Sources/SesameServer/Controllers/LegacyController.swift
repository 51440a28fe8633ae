import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// Auth0's legacy resource-owner endpoint `POST /oauth/ro`, as Lock v1 calls it for
/// passwordless logins: `connection`, `username`, `password` = the code.
struct LegacyController {
    let passwordless: PasswordlessLogin
    let deviceKeys: DeviceKeyLogin
    let clients: ClientAuthenticator
    let proxies: ProxyPolicy
    /// The per-address limit on refused grants, shared with `/oauth/token`.
    let refusals: GrantRefusalLimit

    func register(on router: Router<SesameRequestContext>) {
        router.post("/oauth/ro", use: resourceOwner)
    }

    @Sendable func resourceOwner(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await refusals.answer(request, context, proxies: proxies) { try await login(request, $0, ip: $1) }
    }

    /// The login the body names: a passwordless code, or TouchIDAuth's device key.
    private func login(_ request: Request, _ body: RequestParameters, ip: String) async throws -> TokenResponse {
        let grant = try body.string("grant_type") ?? GrantType.legacyPassword
        if grant == GrantType.jwtBearer { return try await deviceKeyLogin(request, body, ip: ip) }
        guard grant == GrantType.legacyPassword else {
            throw SesameError(.badRequest, .unsupportedGrantType, "Unsupported grant type: \(grant)")
        }
        let connection = try body.string("connection")
        let username = try body.string("username")
        let password = try body.string("password")
        try LegacyErrors.require(
            clientID: try body.string("client_id"), connection: connection, username: username, password: password)
        let application = try await clients.authenticate(request, body)
        guard application.allows(grant) else {
            throw SesameError(.forbidden, .unauthorizedClient, "invalid client")
        }
        let credentials = PasswordlessCredentials(connection: connection, username: username, code: password)
        let issue = try TokenGrantRequest(body, application: application)
        return try await LegacyErrors.translate {
            try await passwordless.finish(credentials, request: issue, method: .otpLegacy, ip: ip)
        }
    }
}

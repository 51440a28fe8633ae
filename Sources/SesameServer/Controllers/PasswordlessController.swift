import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// `/passwordless/start` and `/passwordless/verify`.
struct PasswordlessController {
    let passwordless: PasswordlessLogin
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.post("/passwordless/start", use: start)
        router.post("/passwordless/verify", use: verify)
    }

    @Sendable func start(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        let authParams = try body.stringObject(
            "authParams",
            error: SesameError(.badRequest, "bad.authParams", "error in authParams - invalid type: string (expected object)"))
        var start = PasswordlessStartRequest(
            clientID: try body.string("client_id"), clientSecret: try body.string("client_secret"),
            connection: try body.string("connection"), email: try body.string("email"),
            phoneNumber: try body.string("phone_number"), send: try body.string("send"), authParams: authParams ?? [:],
            ip: context.clientIP(request, proxies: proxies))
        start.takeLanguages(from: request)
        let result = try await passwordless.start(start)
        let answer: PasswordlessStartBody =
            switch result.connection {
            case .email: .email(id: result.id, email: result.recipient)
            case .sms: .sms(id: result.id, phoneNumber: result.recipient, language: request.headers[.acceptLanguage])
            }
        var response = try Responses.json(answer)
        response.headers.setRateLimit(result.rateLimit)
        return response
    }

    /// Both shapes: auth0.js (`connection`, `verification_code`, `email`|`phone_number`) and
    /// the legacy resource-owner form (`username`, `password`). Checks without consuming.
    @Sendable func verify(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        let username = try body.string("username") ?? body.string("email") ?? body.string("phone_number")
        let code = try body.string("password") ?? body.string("verification_code")
        let credentials = PasswordlessCredentials(
            connection: try body.string("connection"), username: username, code: code,
            ip: context.clientIP(request, proxies: proxies))
        let clientID = try body.string("client_id")
        try await LegacyErrors.translate { try await passwordless.verify(credentials, clientID: clientID) }
        return try Responses.json(["verified": true])
    }
}

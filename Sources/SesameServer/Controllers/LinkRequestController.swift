import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// `POST /passwordless/link`: a magic link for a terminal or an app, confirmed on any device
/// with a match code; the asker then polls `/oauth/token` with the magic-link grant.
struct LinkRequestController {
    let linkRequests: LinkRequests
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.post("/passwordless/link", use: start)
    }

    @Sendable func start(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        var start = PasswordlessStartRequest(
            clientID: try body.string("client_id"), clientSecret: try body.string("client_secret"),
            connection: try body.string("connection") ?? "email", email: try body.string("email"), phoneNumber: nil,
            send: nil, ip: context.clientIP(request, proxies: proxies))
        start.takeLanguages(from: request)
        let started = try await linkRequests.start(start)
        var response = try Responses.json(
            LinkSessionBody(
                linkSession: started.pollSecret, matchCode: started.matchCode, expiresIn: started.expiresIn,
                interval: started.interval),
            noStore: true)
        response.headers.setRateLimit(started.result.rateLimit)
        return response
    }
}

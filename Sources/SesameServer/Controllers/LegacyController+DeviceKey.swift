import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

extension LegacyController {
    /// TouchIDAuth's login: `POST /oauth/ro` with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`,
    /// `id_token` (the device JWT), `device`, `connection` and `scope`, as Lock v1 sends it.
    func deviceKeyLogin(_ request: Request, _ body: RequestParameters, ip: String) async throws -> TokenResponse {
        guard try body.string("client_id") != nil else { throw SesameError.invalidRequest("missing client_id parameter") }
        let assertion = DeviceKeyAssertion.legacy(
            idToken: try body.string("id_token"), device: try body.string("device"), connection: try body.string("connection"))
        let application = try await clients.authenticate(request, body)
        guard application.allows(GrantType.jwtBearer) else {
            throw SesameError(.forbidden, .unauthorizedClient, "invalid client")
        }
        return try await deviceKeys.finish(assertion, request: try TokenGrantRequest(body, application: application), ip: ip)
    }
}

import Foundation
import Hummingbird
import SesameCore
import SesameParsers

/// Auth0's native Passkey API (`/passkey/register`, `/passkey/challenge`; the token grant
/// lives in ``TokenController``) and `/me/passkeys`, where signed-in users manage theirs.
struct PasskeyController {
    let passkeys: PasskeyLogin
    let management: PasskeyManagement
    let tokens: TokenService
    let clients: ClientAuthenticator
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.post("/passkey/register", use: signupChallenge)
        router.post("/passkey/challenge", use: loginChallenge)
        router.get("/me/passkeys", use: list)
        router.patch("/me/passkeys/:id", use: rename)
        router.delete("/me/passkeys/:id", use: delete)
    }

    @Sendable func signupChallenge(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        let application = try await clients.authenticate(request, body)
        // Core refuses it too; asked first so it is answered before the profile is read.
        try application.requireGrant(GrantType.webauthn)
        let profileError = SesameError.invalidRequest("user_profile must be an object of strings")
        guard let profile = try body.stringObject("user_profile", error: profileError) else {
            throw SesameError.invalidRequest("Missing required parameter: user_profile")
        }
        let challenge = try await passkeys.startRegistration(
            application: application, realm: try body.string("realm"), profile: profile,
            ip: context.clientIP(request, proxies: proxies))
        return try Responses.json(challenge, noStore: true)
    }

    @Sendable func loginChallenge(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        let application = try await clients.authenticate(request, body)
        try application.requireGrant(GrantType.webauthn)
        let challenge = try await passkeys.startAuthentication(
            application: application, realm: try body.string("realm"), ip: context.clientIP(request, proxies: proxies))
        return try Responses.json(challenge, noStore: true)
    }

    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await grant(of: request)
        return try Responses.json(try await management.list(grant).map(PasskeyBody.init), noStore: true)
    }

    @Sendable func rename(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await grant(of: request)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        let id = context.parameters.get("id") ?? ""
        let passkey = try await management.rename(id, to: try body.string("name"), grant)
        return try Responses.json(PasskeyBody(passkey), noStore: true)
    }

    @Sendable func delete(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await grant(of: request)
        try await management.delete(context.parameters.get("id") ?? "", grant)
        return Response(status: .noContent)
    }

    /// What the request's access token grants.
    private func grant(of request: Request) async throws -> AccessGrant {
        try await tokens.authenticate(request.presentedAccessToken)
    }
}

/// A passkey as its owner sees it: never the key itself.
struct PasskeyBody: Encodable {
    let id: String
    let name: String
    let createdAt: String
    let lastUsedAt: String?
    let credentialDeviceType: String
    let credentialBackedUp: Bool
    let aaguid: String
    let transports: [String]
    let disabled: Bool

    init(_ passkey: PasskeyCredential) {
        id = passkey.id
        name = passkey.name
        createdAt = ISO8601.string(passkey.createdAt)
        lastUsedAt = passkey.lastUsedAt.map(ISO8601.string)
        credentialDeviceType = passkey.backupEligible ? "multi_device" : "single_device"
        credentialBackedUp = passkey.backedUp
        aaguid = passkey.aaguid
        transports = passkey.transports
        disabled = passkey.disabled
    }

    enum CodingKeys: String, CodingKey {
        case id, name, createdAt = "created_at", lastUsedAt = "last_used_at"
        case credentialDeviceType = "credential_device_type", credentialBackedUp = "credential_backed_up"
        case aaguid, transports, disabled
    }
}

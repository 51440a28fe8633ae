import Foundation
import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// Auth0's My Account API for passkeys, as Auth0.swift's `myAccount(token:)` calls it:
/// `/me/v1/authentication-methods` (an enrolment's challenge, then its `…/{id}/verify`), and
/// the listing, reading and deletion of the person's passkeys. Errors take the My Account
/// shape (``ErrorMiddleware``).
struct MyAccountController {
    let myAccount: MyAccountPasskeys
    let tokens: TokenService
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.post("/me/v1/authentication-methods", use: startEnrollment)
        router.post("/me/v1/authentication-methods/:id/verify", use: verifyEnrollment)
        router.get("/me/v1/authentication-methods", use: list)
        router.get("/me/v1/authentication-methods/:id", use: method)
        router.delete("/me/v1/authentication-methods/:id", use: delete)
    }

    /// 201 with the creation options and `auth_session`; the `Location` header names the
    /// method being enrolled, whose last path segment Auth0.swift takes as its id.
    @Sendable func startEnrollment(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(request.presentedAccessToken)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        let (id, challenge) = try await myAccount.startEnrollment(
            type: try body.string("type"), grant, ip: context.clientIP(request, proxies: proxies))
        var response = try Responses.json(challenge, status: .created, noStore: true)
        response.headers[.location] = "/me/v1/authentication-methods/\(id)"
        return response
    }

    /// 201 with the new passkey as an authentication method.
    @Sendable func verifyEnrollment(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(request.presentedAccessToken)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        let passkey = try await myAccount.verifyEnrollment(
            id: context.parameters.get("id") ?? "", authSession: try body.string("auth_session"),
            response: try body.jsonObject("authn_response"), grant, ip: context.clientIP(request, proxies: proxies))
        return try Responses.json(AuthenticationMethodBody(passkey), status: .created, noStore: true)
    }

    /// `{"authentication_methods": [...]}`; `?type=` other than `passkey` lists nothing.
    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(request.presentedAccessToken)
        var methods = try await myAccount.list(grant)
        if let type = request.uri.queryParameters["type"], type != MyAccountPasskeys.passkeyType[...] { methods = [] }
        return try Responses.json(
            AuthenticationMethodsBody(authenticationMethods: methods.map(AuthenticationMethodBody.init)), noStore: true)
    }

    @Sendable func method(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(request.presentedAccessToken)
        let passkey = try await myAccount.method(context.parameters.get("id") ?? "", grant)
        return try Responses.json(AuthenticationMethodBody(passkey), noStore: true)
    }

    @Sendable func delete(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(request.presentedAccessToken)
        try await myAccount.delete(context.parameters.get("id") ?? "", grant)
        return Response(status: .noContent)
    }
}

/// The list answer.
struct AuthenticationMethodsBody: Encodable {
    let authenticationMethods: [AuthenticationMethodBody]

    enum CodingKeys: String, CodingKey { case authenticationMethods = "authentication_methods" }
}

/// A passkey as Auth0's My Account API describes it (Auth0.swift's `PasskeyAuthenticationMethod`
/// and `AuthenticationMethod`): the credential's public facts, never anything secret.
struct AuthenticationMethodBody: Encodable {
    let id: String
    let type = MyAccountPasskeys.passkeyType
    let name: String
    let createdAt: String
    let usage = ["primary"]
    let identityUserID: String
    let keyID: String
    /// The COSE public key, base64 (not base64url), as Auth0 sends it.
    let publicKey: String
    /// base64url of the WebAuthn user handle Sesame gave the authenticator.
    let userHandle: String
    let credentialDeviceType, aaguid, relyingPartyID: String
    let credentialBackedUp: Bool
    let transports: [String]

    init(_ method: MyAccountPasskey) {
        let passkey = method.passkey
        id = passkey.id
        name = passkey.name
        createdAt = ISO8601.string(passkey.createdAt)
        identityUserID = method.identityUserID
        keyID = passkey.id
        publicKey = Data(passkey.publicKey).base64EncodedString()
        userHandle = Base64URL.encode(Array(passkey.userID.utf8))
        credentialDeviceType = passkey.backupEligible ? "multi_device" : "single_device"
        credentialBackedUp = passkey.backedUp
        transports = passkey.transports
        aaguid = passkey.aaguid
        relyingPartyID = method.relyingPartyID
    }

    enum CodingKeys: String, CodingKey {
        case id, type, name, createdAt = "created_at", usage, identityUserID = "identity_user_id", keyID = "key_id"
        case publicKey = "public_key", userHandle = "user_handle", credentialDeviceType = "credential_device_type"
        case credentialBackedUp = "credential_backed_up", transports, aaguid, relyingPartyID = "relying_party_id"
    }
}

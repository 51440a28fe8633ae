import Foundation
import Hummingbird
import SesameCore

/// OpenID Connect discovery, the JWKS and `/userinfo`.
struct OIDCController {
    let settings: LoginSettings
    let keys: KeyRing
    let tokens: TokenService

    func register(on router: Router<SesameRequestContext>) {
        router.get("/.well-known/openid-configuration", use: discovery)
        router.get("/.well-known/jwks.json", use: jwks)
        router.get("/userinfo", use: userInfo)
        router.post("/userinfo", use: userInfo)
    }

    @Sendable func discovery(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try Responses.json(DiscoveryDocument(issuer: settings.issuer))
    }

    @Sendable func jwks(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await Responses.json(keys.signer().jwks)
    }

    @Sendable func userInfo(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try Responses.json(try await tokens.userInfo(request.presentedAccessToken))
    }
}

/// OpenID Provider Metadata (OpenID Connect Discovery 1.0 §3).
struct DiscoveryDocument: Encodable {
    let issuer: String
    let authorizationEndpoint, tokenEndpoint, userinfoEndpoint, jwksURI, revocationEndpoint, endSessionEndpoint: String
    let scopesSupported = ["openid", "profile", "email", "phone", "offline_access"]
    let responseTypesSupported = ["code"]
    let responseModesSupported = ResponseMode.allCases.map(\.rawValue)
    let promptValuesSupported = RedirectLogin.prompts.sorted()
    let grantTypesSupported = [
        GrantType.authorizationCode, GrantType.refreshToken, GrantType.passwordlessOTP, GrantType.webauthn,
        GrantType.jwtBearer, GrantType.magicLink,
    ]
    let subjectTypesSupported = ["public"]
    let idTokenSigningAlgValuesSupported = ["RS256"]
    let tokenEndpointAuthMethodsSupported = ["client_secret_basic", "client_secret_post", "none"]
    let codeChallengeMethodsSupported = ["S256"]
    let dpopSigningAlgValuesSupported = DPoPProof.algorithms
    let claimsSupported = [
        "aud", "auth_time", "email", "email_verified", "exp", "iat", "iss", "name", "nickname", "nonce",
        "phone_number", "phone_number_verified", "picture", "sid", "sub", "updated_at",
    ]
    let requestParameterSupported = false
    let requestURIParameterSupported = false
    /// RFC 9207: every authorization answer carries `iss`.
    let authorizationResponseIssParameterSupported = true
    /// OpenID Connect Back-Channel and Front-Channel Logout 1.0, both with `sid`.
    let backchannelLogoutSupported = true
    let backchannelLogoutSessionSupported = true
    let frontchannelLogoutSupported = true
    let frontchannelLogoutSessionSupported = true

    init(issuer: String) {
        self.issuer = issuer
        authorizationEndpoint = issuer + "authorize"
        tokenEndpoint = issuer + "oauth/token"
        userinfoEndpoint = issuer + "userinfo"
        jwksURI = issuer + ".well-known/jwks.json"
        revocationEndpoint = issuer + "oauth/revoke"
        endSessionEndpoint = issuer + "oidc/logout"
    }

    enum CodingKeys: String, CodingKey {
        case issuer, authorizationEndpoint = "authorization_endpoint", tokenEndpoint = "token_endpoint", userinfoEndpoint =
            "userinfo_endpoint", jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint", scopesSupported = "scopes_supported"
        case endSessionEndpoint = "end_session_endpoint", promptValuesSupported = "prompt_values_supported"
        case responseTypesSupported = "response_types_supported", responseModesSupported = "response_modes_supported"
        case grantTypesSupported = "grant_types_supported", subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported", claimsSupported = "claims_supported"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case requestParameterSupported = "request_parameter_supported"
        case requestURIParameterSupported = "request_uri_parameter_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case backchannelLogoutSupported = "backchannel_logout_supported"
        case backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
        case frontchannelLogoutSupported = "frontchannel_logout_supported"
        case frontchannelLogoutSessionSupported = "frontchannel_logout_session_supported"
    }
}

extension Request {
    /// The token of an `Authorization: Bearer …` header (empty when the header carries none);
    /// nil without such a header.
    var bearerToken: String? {
        guard let header = headers[.authorization], header.lowercased().hasPrefix("bearer ") else { return nil }
        return header.dropFirst(7).trimmingWhitespace()
    }
}

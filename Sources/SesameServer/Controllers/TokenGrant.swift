import Foundation
import Hummingbird
import SesameCore
import SesameParsers

/// A `POST /oauth/token` body parsed once into the grant it asks for (dex's `grants.Request`
/// shape), so the handler is one call per grant and no grant reads the body itself.
enum TokenGrant {
    case passwordlessOTP(PasswordlessCredentials)
    case webauthn(authSession: String?, response: Data?)
    case deviceKey(DeviceKeyAssertion)
    case refreshToken(String?, scope: String?)
    case authorizationCode(code: String?, redirectURI: String?, codeVerifier: String?)
    case magicLink(linkSession: String?)
    case clientCredentials(audience: String?, scope: String?)

    /// The grant types the token endpoint serves.
    static let types: Set<String> = [
        GrantType.passwordlessOTP, GrantType.refreshToken, GrantType.authorizationCode, GrantType.webauthn,
        GrantType.jwtBearer, GrantType.magicLink, GrantType.clientCredentials,
    ]

    /// Reads the grant named by `grant_type`.
    /// - Throws: 400 `invalid_request` without `grant_type`, 400 `unsupported_grant_type` for
    ///   one this endpoint does not serve, 400 for a parameter of the wrong type.
    init(_ body: RequestParameters) throws {
        guard let type = try body.string("grant_type") else {
            throw SesameError.invalidRequest("Missing required parameter: grant_type")
        }
        switch type {
        case GrantType.passwordlessOTP:
            self = .passwordlessOTP(
                PasswordlessCredentials(
                    connection: try body.string("realm"), username: try body.string("username"), code: try body.string("otp")))
        case GrantType.webauthn:
            self = .webauthn(authSession: try body.string("auth_session"), response: try body.jsonObject("authn_response"))
        case GrantType.jwtBearer:
            self = .deviceKey(.bearer(assertion: try body.string("assertion")))
        case GrantType.refreshToken:
            self = .refreshToken(try body.string("refresh_token"), scope: try body.string("scope"))
        case GrantType.authorizationCode:
            self = .authorizationCode(
                code: try body.string("code"), redirectURI: try body.string("redirect_uri"),
                codeVerifier: try body.string("code_verifier"))
        case GrantType.magicLink:
            self = .magicLink(linkSession: try body.string("link_session"))
        case GrantType.clientCredentials:
            self = .clientCredentials(audience: try body.string("audience"), scope: try body.string("scope"))
        default:
            throw SesameError(.badRequest, .unsupportedGrantType, "Unsupported grant type: \(type)")
        }
    }

    /// The grant-type URI an application must allow.
    var type: String {
        switch self {
        case .passwordlessOTP: GrantType.passwordlessOTP
        case .webauthn: GrantType.webauthn
        case .deviceKey: GrantType.jwtBearer
        case .refreshToken: GrantType.refreshToken
        case .authorizationCode: GrantType.authorizationCode
        // A link session finishes a passwordless login: the applications that may use codes may use it.
        case .magicLink: GrantType.passwordlessOTP
        case .clientCredentials: GrantType.clientCredentials
        }
    }
}

extension TokenGrantRequest {
    /// What the tokens are for: `scope`, `audience` (or RFC 8707 `resource`) and `nonce`.
    init(_ body: RequestParameters, application: SesameCore.Application) throws {
        self.init(
            application: application, scope: Scope(try body.string("scope")),
            audience: try body.string("audience") ?? body.string("resource"), nonce: try body.string("nonce"))
    }
}

import Foundation
import SesameCore
import Testing

/// The rule that an application may use only the grants it is allowed, enforced by the Core
/// services each grant ends in, whoever calls them.
@Suite("Core: grants an application may not use")
struct GrantRuleTests {

    /// The world's application with no grant allowed at all.
    static func barred(_ world: CoreWorld) -> TokenGrantRequest {
        var application = world.application
        application.grantTypes = []
        return TokenGrantRequest(application: application, scope: Scope("openid offline_access"))
    }

    // Attack: an application refused the passwordless grant presents a valid code through a
    // caller that does not check the grant first (a new endpoint, the hosted page): Core refuses
    // it before the code is looked at, so the code stays usable by its rightful owner.
    @Test("a code login by an application without the passwordless grant is refused, and the code not spent")
    func codeLoginByBarredApplication() async throws {
        try await CoreWorld.run { world in
            let code = try await world.code(for: "ana@example.com")
            let credentials = PasswordlessCredentials(connection: "email", username: "ana@example.com", code: code)
            let error = try await refusal {
                _ = try await world.sesame.passwordless.finish(credentials, request: Self.barred(world), ip: nil)
            }
            #expect(error.refusal == .grantNotAllowed)
            #expect(error.code.rawValue == "unauthorized_client")
            let legacy = try await refusal {
                _ = try await world.sesame.passwordless.finish(
                    credentials, request: Self.barred(world), method: .otpLegacy, ip: nil)
            }
            #expect(legacy.message.contains("'password'"))
            let tokens = try await world.sesame.passwordless.finish(credentials, request: world.request(), ip: nil)
            #expect(tokens.idToken != nil)
        }
    }

    @Test("every other grant's Core service refuses an application without the grant")
    func everyGrantRefusesBarredApplication() async throws {
        try await CoreWorld.run { world in
            let barred = Self.barred(world)
            let refusals: [(String, SesameError)] = [
                (
                    GrantType.refreshToken,
                    try await refusal {
                        _ = try await world.sesame.tokens.refresh("token", application: barred.application, scope: nil)
                    }
                ),
                (
                    GrantType.authorizationCode,
                    try await refusal {
                        _ = try await world.sesame.tokens.exchange(
                            code: "code", redirectURI: CoreWorld.callback, codeVerifier: nil, application: barred.application)
                    }
                ),
                (
                    GrantType.passwordlessOTP,
                    try await refusal { _ = try await world.sesame.linkRequests.finish(pollSecret: "poll", request: barred) }
                ),
                (
                    GrantType.webauthn,
                    try await refusal {
                        _ = try await world.sesame.passkeys.finish(
                            authSession: "session", response: Data("{}".utf8), request: barred, ip: nil)
                    }
                ),
                (
                    GrantType.webauthn,
                    try await refusal {
                        _ = try await world.sesame.passkeys.startAuthentication(
                            application: barred.application, realm: nil, ip: "198.51.100.7")
                    }
                ),
                (
                    GrantType.webauthn,
                    try await refusal {
                        _ = try await world.sesame.passkeys.startRegistration(
                            application: barred.application, realm: nil, profile: ["email": "ana@example.com"],
                            ip: "198.51.100.7")
                    }
                ),
                (
                    GrantType.jwtBearer,
                    try await refusal {
                        _ = try await world.sesame.deviceKeys.login.finish(
                            .bearer(assertion: "jwt"), request: barred, ip: nil)
                    }
                ),
            ]
            for (grant, error) in refusals {
                #expect(error.refusal == .grantNotAllowed, "\(grant)")
                #expect(error.message == "Grant type '\(grant)' not allowed for the client.")
            }
        }
    }
}

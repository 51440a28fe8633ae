import Crypto
import Foundation
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn
import Testing

/// Codes and magic links through the Core services alone.
@Suite("Core: one-time codes and magic links")
struct PasswordlessLoginTests {
    /// PKCE (RFC 7636), which public applications must use.
    static let verifier = String(repeating: "v", count: 43)
    static let challenge = SesameAPI.Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))

    @Test("a code login creates the user, verifies the address and issues every token")
    func codeLogin() async throws {
        try await CoreWorld.run { world in
            let tokens = try await world.signIn("ana@example.com")
            #expect(tokens.idToken != nil && tokens.refreshToken != nil && tokens.accessToken.hasPrefix("sat_"))
            let profile = try await world.sesame.tokens.userInfo(accessToken: tokens.accessToken)
            #expect(profile.email == "ana@example.com" && profile.emailVerified == true)
        }
    }

    @Test("an SMS code login verifies the phone number")
    func smsLogin() async throws {
        try await CoreWorld.run { world in
            _ = try await world.sesame.passwordless.start(
                PasswordlessStartRequest(
                    clientID: world.application.clientID, clientSecret: nil, connection: "sms", email: nil,
                    phoneNumber: "+14155550123", send: "code", ip: "198.51.100.7"))
            let code = try #require(world.sender.sent(to: "+14155550123").last?.code)
            let tokens = try await world.sesame.passwordless.finish(
                PasswordlessCredentials(connection: "sms", username: "+14155550123", code: code),
                request: world.request("openid phone"), ip: nil)
            let profile = try await world.sesame.tokens.userInfo(accessToken: tokens.accessToken)
            #expect(profile.phoneNumber == "+14155550123" && profile.phoneNumberVerified == true)
        }
    }

    @Test("seeded randomness: the same seed gives the same code, so tests need not hedge")
    func seededCodes() async throws {
        var codes: [String] = []
        for _ in 1...2 {
            try await CoreWorld.run(seed: 42) { world in codes.append(try await world.code(for: "ana@example.com")) }
        }
        #expect(codes[0] == codes[1] && codes[0].count == 6)
    }

    @Test("only the newest code works, and a used code never works again")
    func supersededAndUsed() async throws {
        try await CoreWorld.run { world in
            let first = try await world.code(for: "ana@example.com")
            let second = try await world.code(for: "ana@example.com")
            #expect(first != second)
            let credentials = { (code: String) in
                PasswordlessCredentials(connection: "email", username: "ana@example.com", code: code)
            }
            await #expect(throws: SesameError.self) {
                _ = try await world.sesame.passwordless.finish(credentials(first), request: world.request(), ip: nil)
            }
            _ = try await world.sesame.passwordless.finish(credentials(second), request: world.request(), ip: nil)
            await #expect {
                _ = try await world.sesame.passwordless.finish(credentials(second), request: world.request(), ip: nil)
            } throws: { ($0 as? SesameError)?.code == .invalidGrant }
        }
    }

    @Test("a code expires with its lifetime")
    func expiry() async throws {
        try await CoreWorld.run { world in
            let code = try await world.code(for: "ana@example.com")
            world.clock.advance(by: 181)
            await #expect {
                _ = try await world.sesame.passwordless.finish(
                    PasswordlessCredentials(connection: "email", username: "ana@example.com", code: code),
                    request: world.request(), ip: nil)
            } throws: { ($0 as? SesameError)?.message == "Wrong email or verification code." }
        }
    }

    @Test("a magic link confirmed in the browser redirects with a code the application exchanges")
    func magicLink() async throws {
        try await CoreWorld.run { world in
            _ = try await world.sesame.passwordless.start(
                PasswordlessStartRequest(
                    clientID: world.application.clientID, clientSecret: nil, connection: "email", email: "ana@example.com",
                    phoneNumber: nil, send: "link", authParams: ["redirect_uri": CoreWorld.callback, "state": "s1"],
                    ip: "198.51.100.7"))
            let link = try #require(world.sender.sent(to: "ana@example.com").last?.link)
            let secret = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "verification_code" }?.value)
            let authorization = BrowserAuthorization(
                clientID: world.application.clientID, redirectURI: CoreWorld.callback,
                parameters: AuthorizeParameters(
                    state: "s1", scope: "openid", codeChallenge: Self.challenge, codeChallengeMethod: "S256"))
            let answer = BrowserLinkAnswer(
                credentials: PasswordlessCredentials(connection: "email", username: "ana@example.com", code: secret),
                requestID: nil)
            let outcome = try await world.sesame.browserLogin.run(
                .confirmLink(authorization, answer), from: BrowserWorld(world).browser())
            guard case .answer(let redirect, _, _) = outcome else { throw CoreWorldError("no answer") }
            let query = URLComponents(string: redirect.location)?.queryItems ?? []
            #expect(query.first { $0.name == "state" }?.value == "s1")
            let code = try #require(query.first { $0.name == "code" }?.value)
            let tokens = try await world.sesame.tokens.exchange(
                code: code, redirectURI: CoreWorld.callback, codeVerifier: Self.verifier, application: world.application)
            #expect(tokens.idToken != nil)
        }
    }

    @Test("the hosted page's code login ends in the same redirect, and a wrong code in an error the page shows")
    func hostedCode() async throws {
        try await CoreWorld.run { world in
            let code = try await world.code(for: "ana@example.com")
            try await BrowserWorld(world).withoutPasskeys()
            let authorization = BrowserAuthorization(
                clientID: world.application.clientID, redirectURI: CoreWorld.callback,
                parameters: AuthorizeParameters(scope: "openid"))
            let verify = { (code: String) in
                try await world.sesame.browserLogin.run(
                    .verifyCode(
                        authorization, PasswordlessCredentials(connection: "email", username: "ana@example.com", code: code)),
                    from: BrowserWorld(world).browser())
            }
            guard case .show(.code(let step), _) = try await verify("000000") else { throw CoreWorldError("no code step") }
            #expect(step.problem == .wrongCode(.wrong))
            guard case .answer(let redirect, _, _) = try await verify(code) else { throw CoreWorldError("no answer") }
            #expect(redirect.location.hasPrefix(CoreWorld.callback + "?code="))
        }
    }
}

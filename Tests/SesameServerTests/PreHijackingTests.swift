import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn
import Testing

/// Account pre-hijacking through what outlived the victim's first verification: authorization
/// codes held back, and a profile planted while the address was unproven.
@Suite("Attacks: account pre-hijacking, codes and profile")
struct PreHijackingTests {
    static let callback = "https://app.example.com/cb"

    /// Attack: sign up with the victim's address and a passkey, sign in on the hosted page and
    /// keep the `?code=` unexchanged (a silent `prompt=none` mints a fresh one every few
    /// minutes); once the victim's first code login proves the address, exchange the held code
    /// for a refresh token of the now verified account.
    @Test("pre-hijacking: an authorization code minted before the victim's verification is refused")
    func heldCodeDiesAtVerification() async throws {
        try await Harness.run { h in
            let held = try await Self.attackerCode(h, clientID: try await h.seedApplication(name: "Web", secret: "s3cret"))
            h.clock.advance(by: 60)
            _ = try await h.login(email: "victim@example.com")
            let exchange = try await Self.exchange(h, held)
            #expect(exchange.status == .forbidden && exchange.error?.error == "invalid_grant", "\(exchange.text)")
        }
    }

    /// Attack: the same, with the code minted in the very millisecond the victim's proof lands,
    /// so no timestamp tells them apart: the code says the account was unproven when issued.
    @Test("pre-hijacking: a code of an unproven account is refused once the address is proven, even in the same instant")
    func heldCodeOfSameInstantDies() async throws {
        try await Harness.run { h in
            let held = try await Self.attackerCode(h, clientID: try await h.seedApplication(name: "Web", secret: "s3cret"))
            let victim = try await h.login(email: "victim@example.com")
            #expect(victim.refreshToken != nil, "the victim's own login is whole")
            let exchange = try await Self.exchange(h, held)
            #expect(exchange.status == .forbidden && exchange.error?.error == "invalid_grant", "\(exchange.text)")
        }
    }

    /// Attack: plant a name, a picture, a second address and `user_metadata` on the victim's
    /// address before the victim arrives, for apps to show or trust later.
    @Test("pre-hijacking: a planted profile goes at verification, and an unproven account cannot write its metadata")
    func plantedProfileGoes() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            let challenge = try await device.signupChallenge([
                "email": "victim@example.com", "name": "Mallory", "nickname": "mallory",
                "picture": "https://evil.example/me.png", "phone_number": "+14155550123",
            ])
            let signup = try await h.post(
                "/oauth/token",
                [
                    "grant_type": GrantType.webauthn, "client_id": h.clientID,
                    "auth_session": try challenge.json()["auth_session"] as? String,
                    "authn_response": try JSONSerialization.jsonObject(with: try device.attest(challenge)),
                    "scope": "openid profile email update:current_user_metadata",
                ])
            let attacker = try signup.tokens()
            let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "victim@example.com"))
            let patch = try await h.patch(
                "/api/v2/users/email%7C\(user.id)", ["user_metadata": ["payout": "attacker-iban"]],
                headers: Harness.bearer(attacker.accessToken))
            #expect(patch.status == .forbidden && patch.error?.error == "access_denied", "\(patch.text)")
            #expect(patch.error?.errorDescription.contains("Verify") == true)
            // What an earlier version let the attacker write.
            _ = try await h.sesame.storage.updateUser(id: user.id) { $0.userMetadata = ["payout": .string("attacker-iban")] }
            h.clock.advance(by: 1)

            _ = try await h.login(email: "victim@example.com")
            let proven = try #require(try await h.sesame.storage.user(id: user.id))
            #expect(proven.emailVerified && proven.name == "victim@example.com" && proven.nickname == "victim")
            #expect(proven.picture?.hasPrefix("https://secure.gravatar.com/") == true)
            #expect(proven.phoneNumber == nil && proven.userMetadata == nil)
        }
    }

    /// The attacker's passkey signup on `victim@example.com` and a code from a hosted-page
    /// login of that account for `clientID`, as the page would redirect with it.
    static func attackerCode(_ h: Harness, clientID: String) async throws -> String {
        _ = try await PasskeyClient(h).signUp(email: "victim@example.com")
        let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "victim@example.com"))
        let application = try #require(try await h.sesame.storage.application(clientID: clientID))
        return try await h.sesame.tokens.issueAuthorizationCode(
            user: user, application: application, redirectURI: callback,
            parameters: AuthorizeParameters(responseType: "code", scope: "openid email offline_access"))
    }

    /// `grant_type=authorization_code` for the confidential "Web" application.
    static func exchange(_ h: Harness, _ code: String) async throws -> TestResponse {
        try await h.post(
            "/oauth/token",
            [
                "grant_type": "authorization_code", "client_id": "app-web", "client_secret": "s3cret", "code": code,
                "redirect_uri": callback,
            ])
    }
}

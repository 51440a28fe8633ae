import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SesameAPI
import SesameCore
import SesameWebAuthn
import SesameWebAuthnTesting

/// A device with a software authenticator that talks to the Passkey API like Auth0.swift:
/// asks for a challenge, lets the authenticator answer it, and finishes with the webauthn grant.
struct PasskeyClient {
    let harness: Harness
    var authenticator = SoftwareAuthenticator.es256()
    var credentialID: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
    var origin = "https://login.example.com"
    var rpID = "login.example.com"
    var clientID: String

    init(_ harness: Harness, clientID: String? = nil) {
        self.harness = harness
        self.clientID = clientID ?? harness.clientID
    }

    /// `POST /passkey/register` with this profile.
    func signupChallenge(_ profile: [String: Any]) async throws -> TestResponse {
        try await harness.post("/passkey/register", ["client_id": clientID, "user_profile": profile])
    }

    /// `POST /passkey/challenge`.
    func loginChallenge() async throws -> TestResponse {
        try await harness.post("/passkey/challenge", ["client_id": clientID])
    }

    /// The authenticator's answer to a signup challenge, as browser JSON.
    func attest(_ challenge: TestResponse, edit: (inout RegistrationFixture) -> Void = { _ in }) throws -> Data {
        let options = try challenge.json()["authn_params_public_key"] as? [String: Any] ?? [:]
        var fixture = RegistrationFixture(authenticator)
        fixture.challenge = SesameAPI.Base64URL.decode(options["challenge"] as? String ?? "") ?? []
        fixture.clientData = ClientDataFixture(type: "webauthn.create", origin: origin)
        fixture.rpIDForHash = rpID
        fixture.credentialID = credentialID
        edit(&fixture)
        return try JSONEncoder().encode(try fixture.build())
    }

    /// The authenticator's answer to a login challenge, as browser JSON.
    func assert(
        _ challenge: TestResponse, signCount: UInt32 = 0, userHandle: [UInt8]? = nil,
        edit: (inout AuthenticationFixture) -> Void = { _ in }
    ) throws -> Data {
        let options = try challenge.json()["authn_params_public_key"] as? [String: Any] ?? [:]
        var fixture = AuthenticationFixture(authenticator)
        fixture.challenge = SesameAPI.Base64URL.decode(options["challenge"] as? String ?? "") ?? []
        fixture.clientData = ClientDataFixture(type: "webauthn.get", origin: origin)
        fixture.rpIDForHash = rpID
        fixture.credentialID = credentialID
        fixture.signCount = signCount
        fixture.userHandle = userHandle
        edit(&fixture)
        return try JSONEncoder().encode(try fixture.build())
    }

    /// The webauthn grant.
    func finish(_ challenge: TestResponse, _ answer: Data) async throws -> TestResponse {
        try await Self.finish(harness, clientID: clientID, session: try challenge.json()["auth_session"] as? String, answer)
    }

    /// The webauthn grant, from values that can cross tasks.
    static func finish(_ harness: Harness, clientID: String, session: String?, _ answer: Data) async throws -> TestResponse {
        try await harness.post(
            "/oauth/token",
            [
                "grant_type": GrantType.webauthn, "client_id": clientID, "auth_session": session,
                "authn_response": try JSONSerialization.jsonObject(with: answer),
                "scope": Harness.accountScope,
            ])
    }

    /// Signs up with `email`; fails the test when any step fails.
    func signUp(email: String) async throws -> TokenBody {
        let challenge = try await signupChallenge(["email": email])
        let response = try await finish(challenge, try attest(challenge))
        guard response.status == .ok else { throw HarnessError("passkey signup failed: \(response.text)") }
        return try response.decode(TokenBody.self)
    }

    /// Signs in with the passkey; returns the token response as it came.
    func signIn(signCount: UInt32 = 0) async throws -> TestResponse {
        let challenge = try await loginChallenge()
        return try await finish(challenge, try assert(challenge, signCount: signCount))
    }

}

extension TestResponse {
    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] ?? [:]
    }
}

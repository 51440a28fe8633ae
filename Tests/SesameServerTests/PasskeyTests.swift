import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

@Suite("Passkeys: /passkey/register, /passkey/challenge and the webauthn grant")
struct PasskeyTests {
    @Test("signup answers Auth0's creation options")
    func signupOptions() async throws {
        try await Harness.run { h in
            let response = try await PasskeyClient(h).signupChallenge(["email": "Ana@Example.com", "name": "Ana Lima"])
            #expect(response.status == .ok)
            let body = try response.json()
            #expect((body["auth_session"] as? String)?.count ?? 0 >= 43)
            let options = try #require(body["authn_params_public_key"] as? [String: Any])
            #expect((options["rp"] as? [String: String])?["id"] == "login.example.com")
            let user = try #require(options["user"] as? [String: String])
            #expect(user["name"] == "ana@example.com" && user["displayName"] == "Ana Lima")
            #expect(SesameAPI.Base64URL.decode(user["id"] ?? "") != nil)
            #expect(SesameAPI.Base64URL.decode(options["challenge"] as? String ?? "")?.count == 32)
            let algorithms = (options["pubKeyCredParams"] as? [[String: Any]])?.compactMap { $0["alg"] as? Int }
            #expect(algorithms == [-8, -7, -257])
            #expect((options["authenticatorSelection"] as? [String: Any])?["residentKey"] as? String == "required")
        }
    }

    @Test("sign up, then sign in with the passkey: tokens for one unverified user")
    func signUpThenSignIn() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            let signup = try await device.signUp(email: "ana@example.com")
            // No refresh token until the address is proven: it would outlive the owner's first code.
            #expect(signup.idToken != nil && signup.refreshToken == nil)
            let login = try await device.signIn()
            #expect(login.status == .ok, "\(login.text)")
            let users = try await h.sesame.storage.listUsers(limit: 10, offset: 0)
            #expect(users.count == 1 && users[0].userID.hasPrefix("email|"))
            // A passkey proves nothing about the address: it stays unverified.
            #expect(users[0].emailVerified == false && users[0].loginsCount == 2)
            let claims = try Self.claims(try login.decode(TokenBody.self).idToken)
            #expect(claims["sub"] as? String == users[0].userID)
        }
    }

    /// Attack (account enumeration): finish passkey signups for a list of addresses with a
    /// software authenticator and read which ones are taken from the answer. A taken address
    /// answers like a free one (the start already did, see ``UnauthenticatedWriteTests``): no
    /// account is made or touched, and the address's holder gets a sign-in code instead.
    @Test("passkey signup enumeration: finishing a signup for a taken address answers like a free one")
    func existingUser() async throws {
        try await Harness.run { h in
            _ = try await h.login(email: "ana@example.com")
            let mailed = h.sender.sent(to: "ana@example.com").count
            let free = try await Self.finishSignup(h, email: "new@example.com")
            let taken = try await Self.finishSignup(h, email: "ana@example.com")
            #expect(free.status == .ok && taken.status == .ok, "\(taken.text)")
            let (freeBody, takenBody) = (try free.json(), try taken.json())
            #expect(Set(freeBody.keys) == Set(takenBody.keys) && takenBody["refresh_token"] == nil, "\(takenBody)")
            #expect(freeBody["token_type"] as? String == takenBody["token_type"] as? String)
            #expect(freeBody["expires_in"] as? Int == takenBody["expires_in"] as? Int)
            let claims = try Self.claims(try taken.decode(TokenBody.self).idToken)
            #expect(Set(claims.keys) == Set(try Self.claims(try free.decode(TokenBody.self).idToken).keys))
            let users = try await h.sesame.storage.listUsers(limit: 10, offset: 0)
            #expect(users.count == 2, "no account is made for the taken address")
            let ana = try #require(users.first { $0.identifier == "ana@example.com" })
            #expect(try await h.sesame.storage.passkeys(userID: ana.id).isEmpty, "nor is a passkey added to it")
            #expect(h.sender.sent(to: "ana@example.com").count == mailed + 1, "the holder is told, with a sign-in code")
            #expect(try await h.otp("ana@example.com", h.code(for: "ana@example.com")).status == .ok)
        }
    }

    /// A passkey signup for `email` on a fresh authenticator, finished.
    static func finishSignup(_ h: Harness, email: String) async throws -> TestResponse {
        let device = PasskeyClient(h)
        let challenge = try await device.signupChallenge(["email": email])
        #expect(challenge.status == .ok)
        return try await device.finish(challenge, try device.attest(challenge))
    }

    @Test(
        "bad signup profiles get 400 with a reason",
        arguments: [
            #"{"email":"ana@example.com","favourite_colour":"blue"}"#, #"{"username":"ana"}"#, #"{"email":"not-an-email"}"#,
            #"{"phone_number":"555-1234"}"#, #"{"email":42}"#, #""ana@example.com""#,
        ])
    func badProfiles(profile: String) async throws {
        try await Harness.run { h in
            let body = #"{"client_id":"\#(h.clientID)","user_profile":\#(profile)}"#
            let response = try await h.postRaw("/passkey/register", body)
            #expect(response.status == .badRequest && response.error?.error == "invalid_request", "\(response.text)")
        }
    }

    @Test("replay: an auth_session finishes once, even when 20 requests race with the same answer")
    func sessionSingleUse() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            _ = try await device.signUp(email: "ana@example.com")
            let challenge = try await device.loginChallenge()
            let answer = try device.assert(challenge)
            let (session, clientID) = (try challenge.json()["auth_session"] as? String, device.clientID)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await PasskeyClient.finish(h, clientID: clientID, session: session, answer).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1)
            #expect(statuses.filter { $0 == .forbidden }.count == 19)
            let again = try await device.finish(challenge, answer)
            #expect(again.status == .forbidden && again.error?.error == "invalid_grant")
        }
    }

    @Test("phishing: an answer made for another origin or RP ID is refused and names the check")
    func wrongOriginOrRPID() async throws {
        try await Harness.run { h in
            var device = PasskeyClient(h)
            _ = try await device.signUp(email: "ana@example.com")
            device.origin = "https://login.example.com.evil.test"
            let phished = try await device.signIn()
            #expect(phished.status == .forbidden && phished.error?.errorDescription.contains("origin") == true)
            device.origin = "https://login.example.com"
            device.rpID = "evil.test"
            let otherRP = try await device.signIn()
            #expect(otherRP.status == .forbidden && otherRP.error?.errorDescription.contains("rp_id") == true)
        }
    }

    @Test("an answer to a different challenge is refused")
    func wrongChallenge() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            _ = try await device.signUp(email: "ana@example.com")
            let first = try await device.loginChallenge()
            let second = try await device.loginChallenge()
            let response = try await device.finish(second, try device.assert(first))
            #expect(response.status == .forbidden && response.error?.errorDescription.contains("challenge") == true)
        }
    }

    @Test("a session started by one application cannot be finished by another")
    func otherClient() async throws {
        try await Harness.run { h in
            let other = Application(
                clientID: "other-app", clientSecret: nil, name: "Other", type: .native, createdAt: h.clock.now())
            try await h.sesame.storage.createApplication(other)
            let device = PasskeyClient(h)
            let challenge = try await device.signupChallenge(["email": "ana@example.com"])
            let thief = PasskeyClient(h, clientID: "other-app")
            let response = try await thief.finish(challenge, try device.attest(challenge))
            #expect(response.status == .forbidden && response.error?.error == "invalid_grant")
        }
    }

    @Test("a cloned authenticator whose counter goes backwards is refused")
    func counterRegression() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            _ = try await device.signUp(email: "ana@example.com")
            #expect(try await device.signIn(signCount: 7).status == .ok)
            let clone = try await device.signIn(signCount: 3)
            #expect(clone.status == .forbidden && clone.error?.errorDescription.contains("sign_count") == true)
        }
    }

    @Test("a passkey whose user handle names someone else is refused")
    func userHandleMismatch() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            _ = try await device.signUp(email: "ana@example.com")
            let challenge = try await device.loginChallenge()
            let response = try await device.finish(challenge, try device.assert(challenge, userHandle: Array("someone".utf8)))
            #expect(response.status == .forbidden && response.error?.error == "invalid_grant")
        }
    }

    @Test("deleted and disabled passkeys never sign in again; blocked users neither")
    func removedPasskeys() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            _ = try await device.signUp(email: "ana@example.com")
            let id = SesameAPI.Base64URL.encode(device.credentialID)
            _ = try await h.sesame.storage.updatePasskey(id: id) { $0.disabled = true }
            #expect(try await device.signIn().status == .forbidden)
            _ = try await h.sesame.storage.updatePasskey(id: id) { $0.disabled = false }
            #expect(try await device.signIn().status == .ok)
            let user = try #require(try await h.sesame.storage.listUsers(limit: 1, offset: 0).first)
            _ = try await h.sesame.storage.updateUser(id: user.id) { $0.blocked = true }
            #expect(try await device.signIn().status == .unauthorized)
            _ = try await h.sesame.storage.updateUser(id: user.id) { $0.blocked = false }
            try await h.sesame.storage.deletePasskey(id: id)
            let deleted = try await device.signIn()
            #expect(deleted.status == .forbidden && deleted.error?.errorDescription.contains("not registered") == true)
        }
    }

    @Test("account pre-hijacking: passkeys made before the address was proven are removed by the first code login")
    func preHijacking() async throws {
        try await Harness.run { h in
            let attacker = PasskeyClient(h)
            _ = try await attacker.signUp(email: "victim@example.com")
            _ = try await h.login(email: "victim@example.com")
            let user = try #require(try await h.sesame.storage.listUsers(limit: 1, offset: 0).first)
            #expect(user.emailVerified)
            #expect(try await h.sesame.storage.passkeys(userID: user.id).isEmpty)
            #expect(try await attacker.signIn().status == .forbidden)
            // A passkey added after verification stays.
        }
    }

    @Test(
        "malformed authn_response values get 400, never 5xx",
        arguments: [
            "{}", "{\"id\":\"AA\",\"rawId\":\"AA\",\"type\":\"public-key\",\"response\":{}}", "[1,2]", "\"text\"",
            "{\"id\":\"%%%\",\"rawId\":\"%%%\",\"type\":\"public-key\",\"response\":{\"clientDataJSON\":\"e30\",\"attestationObject\":\"oA\"}}",
        ])
    func malformedResponses(json: String) async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            let challenge = try await device.signupChallenge(["email": "ana@example.com"])
            let session = try challenge.json()["auth_session"] as? String ?? ""
            let body =
                "{\"grant_type\":\"\(GrantType.webauthn)\",\"client_id\":\"\(h.clientID)\",\"auth_session\":\"\(session)\",\"authn_response\":\(json)}"
            let response = try await h.postRaw("/oauth/token", body)
            #expect((400..<500).contains(response.status.code), "\(response.text)")
            #expect(response.error?.errorDescription.isEmpty == false)
        }
    }

    @Test("missing auth_session or authn_response is invalid_request")
    func missingParameters() async throws {
        try await Harness.run { h in
            let response = try await h.post("/oauth/token", ["grant_type": GrantType.webauthn, "client_id": h.clientID])
            #expect(
                response.status == .badRequest && response.error?.errorDescription == "Missing required parameter: auth_session")
        }
    }

    static func claims(_ jwt: String?) throws -> [String: Any] {
        let parts = (jwt ?? "").split(separator: ".")
        guard parts.count == 3, let payload = SesameAPI.Base64URL.decode(String(parts[1])) else {
            throw HarnessError("not a JWT")
        }
        return try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] ?? [:]
    }
}

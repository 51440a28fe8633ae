import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SesameAPI
import SesameCore
import Testing

/// Auth0's My Account API for passkeys (`/me/v1/authentication-methods`), as Auth0.swift's
/// `myAccount(token:)` calls it.
@Suite("My Account API: enrol, list, read and delete passkeys")
struct MyAccountPasskeyTests {
    static let audience = "https://login.example.com/me/"
    static let scope = "openid create:me:authentication_methods read:me:authentication_methods delete:me:authentication_methods"

    /// An email login for the My Account API: its access token.
    static func myAccountToken(_ h: Harness, email: String, scope: String = scope) async throws -> String {
        _ = try await h.start(email: email)
        let response = try await h.otp(email, h.code(for: email), scope: scope, audience: audience)
        guard response.status == .ok else { throw HarnessError("login failed: \(response.text)") }
        return try response.tokens().accessToken
    }

    /// `POST /me/v1/authentication-methods` with `type: passkey`.
    static func start(_ h: Harness, _ token: String) async throws -> TestResponse {
        try await h.post("/me/v1/authentication-methods", ["type": "passkey"], headers: [.authorization: "Bearer \(token)"])
    }

    /// `POST /me/v1/authentication-methods/{id}/verify` with the device's answer to `challenge`.
    static func verify(
        _ h: Harness, _ token: String, _ challenge: TestResponse, device: PasskeyClient
    ) async throws -> TestResponse {
        let id = String(challenge.header("Location")?.split(separator: "/").last ?? "")
        return try await h.post(
            "/me/v1/authentication-methods/\(id)/verify",
            [
                "auth_session": try challenge.json()["auth_session"] as? String,
                "authn_response": try JSONSerialization.jsonObject(with: try device.attest(challenge)),
            ], headers: [.authorization: "Bearer \(token)"])
    }

    @Test("a token for https://{issuer host}/me/ enrols a passkey, lists, reads and deletes it; the passkey signs in")
    func enrolListReadDelete() async throws {
        try await Harness.run { h in
            let token = try await Self.myAccountToken(h, email: "ana@example.com")
            #expect(token.split(separator: ".").count == 3, "an RFC 9068 JWT for the My Account API")
            let challenge = try await Self.start(h, token)
            #expect(challenge.status == .created, "\(challenge.text)")
            #expect(challenge.header("Location")?.hasPrefix("/me/v1/authentication-methods/passkey_") == true)
            let device = PasskeyClient(h)
            let verified = try await Self.verify(h, token, challenge, device: device)
            #expect(verified.status == .created, "\(verified.text)")
            let method = try verified.json()
            let id = try #require(method["id"] as? String)
            #expect(method["type"] as? String == "passkey" && method["relying_party_id"] as? String == "login.example.com")
            #expect(method["key_id"] as? String == id && (method["created_at"] as? String)?.contains(".") == true)
            #expect(try await device.signIn().status == .ok)

            let auth: HTTPFields = [.authorization: "Bearer \(token)"]
            let list = try await h.get("/me/v1/authentication-methods", headers: auth)
            let methods = try list.json()["authentication_methods"] as? [[String: Any]]
            #expect(list.status == .ok && methods?.count == 1 && methods?.first?["id"] as? String == id)
            let totp = try await h.get("/me/v1/authentication-methods?type=totp", headers: auth)
            #expect((try totp.json()["authentication_methods"] as? [Any])?.isEmpty == true)
            #expect(try await h.get("/me/v1/authentication-methods/\(id)", headers: auth).status == .ok)
            #expect(try await h.delete("/me/v1/authentication-methods/\(id)", headers: auth).status == .noContent)
            #expect(try await h.get("/me/v1/authentication-methods/\(id)", headers: auth).status == .notFound)
            #expect(try await device.signIn().status == .forbidden)
        }
    }

    @Test("a refresh token gets a My Account token (Auth0.swift's apiCredentials), its scopes added, nothing else")
    func refreshForMyAccount() async throws {
        try await Harness.run { h in
            let login = try await h.login(email: "ana@example.com")
            func refresh(_ audience: String, _ scope: String) async throws -> TestResponse {
                try await h.post(
                    "/oauth/token",
                    [
                        "grant_type": "refresh_token", "client_id": h.clientID, "refresh_token": login.refreshToken,
                        "audience": audience, "scope": scope,
                    ])
            }
            // Auth0.swift's EXAMPLES.md writes the audience without its trailing slash.
            let api = try await refresh("https://login.example.com/me", "openid create:me:authentication_methods")
            #expect(api.status == .ok, "\(api.text)")
            let token = try api.tokens().accessToken
            #expect(try await Self.start(h, token).status == .created)
            // Only the My Account API's own scopes may be added.
            let wider = try await refresh(Self.audience, "openid read:me:sessions")
            #expect(wider.status == .forbidden && wider.error?.error == "invalid_scope")
        }
    }

    @Test("the My Account API is built in: an API with its identifier cannot be stored")
    func builtInIdentifier() async throws {
        try await Harness.run { h in
            let admin = try await ManagementAPITests.token(h)
            for identifier in [Self.audience, String(Self.audience.dropLast())] {
                let created = try await h.post("/api/v2/resource-servers", ["identifier": identifier], headers: admin)
                #expect(created.status == .conflict, "\(identifier)")
            }
        }
    }

    @Test("bad input is a 4xx in the My Account shape: another type, a missing auth_session, an unknown id")
    func badInput() async throws {
        try await Harness.run { h in
            let token = try await Self.myAccountToken(h, email: "ana@example.com")
            let auth: HTTPFields = [.authorization: "Bearer \(token)"]
            let totp = try await h.post("/me/v1/authentication-methods", ["type": "totp"], headers: auth)
            let body = try totp.json()
            #expect(totp.status == .badRequest && body["type"] as? String == "invalid_request")
            #expect(body["title"] as? String == "Bad Request" && (body["detail"] as? String)?.contains("passkey") == true)
            #expect(body["error_description"] as? String == body["detail"] as? String)
            let missing = try await h.post(
                "/me/v1/authentication-methods/passkey_00/verify", ["authn_response": [:]], headers: auth)
            #expect(missing.status == .badRequest)
            let challenge = try await Self.start(h, token)
            let wrongID = try await h.post(
                "/me/v1/authentication-methods/passkey_00/verify",
                [
                    "auth_session": try challenge.json()["auth_session"] as? String,
                    "authn_response": try JSONSerialization.jsonObject(with: try PasskeyClient(h).attest(challenge)),
                ], headers: auth)
            #expect(wrongID.status == .notFound)
            // The mistyped id did not spend the session.
            #expect(try await Self.verify(h, token, challenge, device: PasskeyClient(h)).status == .created)
        }
    }

    // Attack: an enrolment's verification captured on the wire (or retried by malware on the
    // device) is replayed to register the same or another key again.
    @Test("a replayed auth_session is refused")
    func replayedAuthSession() async throws {
        try await Harness.run { h in
            let token = try await Self.myAccountToken(h, email: "ana@example.com")
            let challenge = try await Self.start(h, token)
            #expect(try await Self.verify(h, token, challenge, device: PasskeyClient(h)).status == .created)
            let replay = try await Self.verify(h, token, challenge, device: PasskeyClient(h))
            #expect(replay.status == .forbidden && replay.error?.error == "invalid_grant")
            let list = try await h.get("/me/v1/authentication-methods", headers: [.authorization: "Bearer \(token)"])
            #expect((try list.json()["authentication_methods"] as? [Any])?.count == 1)
        }
    }

    // Attack: racing copies of one verification so several pass the check before any spends the
    // session (one enrolment registering keys twice, or a second key riding on the first).
    @Test("10 concurrent verifications of one enrolment: exactly one succeeds")
    func concurrentVerifications() async throws {
        try await Harness.run { h in
            let token = try await Self.myAccountToken(h, email: "ana@example.com")
            let challenge = try await Self.start(h, token)
            let id = String(challenge.header("Location")?.split(separator: "/").last ?? "")
            let session = try challenge.json()["auth_session"] as? String ?? ""
            let answers = try (0..<10).map { _ in try PasskeyClient(h).attest(challenge) }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for answer in answers {
                    group.addTask {
                        let body: [String: Any?] = [
                            "auth_session": session, "authn_response": try JSONSerialization.jsonObject(with: answer),
                        ]
                        return try await h.post(
                            "/me/v1/authentication-methods/\(id)/verify", body,
                            headers: [.authorization: "Bearer \(token)"]
                        ).status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == 403 }.count == 9)
        }
    }

    // Attack: Mallory, signed in as herself, finishes Ana's enrolment (an auth_session she
    // phished or read from a log) with her own authenticator, to put her key on Ana's account
    // — or on her own account through Ana's session.
    @Test("an auth_session of another user is refused")
    func anotherUsersSession() async throws {
        try await Harness.run { h in
            let ana = try await Self.myAccountToken(h, email: "ana@example.com")
            let mallory = try await Self.myAccountToken(h, email: "mallory@example.com")
            let challenge = try await Self.start(h, ana)
            let stolen = try await Self.verify(h, mallory, challenge, device: PasskeyClient(h))
            #expect(stolen.status == .forbidden && stolen.error?.error == "invalid_grant")
            for token in [ana, mallory] {
                let list = try await h.get("/me/v1/authentication-methods", headers: [.authorization: "Bearer \(token)"])
                #expect((try list.json()["authentication_methods"] as? [Any])?.isEmpty == true)
            }
        }
    }

    // Attack: a token an app got for reading (or for /userinfo) is used to add a way into the
    // account; only create:me:authentication_methods may.
    @Test("a token without create:me:authentication_methods cannot enrol")
    func tokenWithoutTheScope() async throws {
        try await Harness.run { h in
            let token = try await Self.myAccountToken(h, email: "ana@example.com", scope: "openid read:me:authentication_methods")
            let refused = try await Self.start(h, token)
            #expect(refused.status == .forbidden && refused.error?.error == "insufficient_scope")
            #expect(refused.header("WWW-Authenticate")?.contains("insufficient_scope") == true)
            let list = try await h.get("/me/v1/authentication-methods", headers: [.authorization: "Bearer \(token)"])
            #expect(list.status == .ok)
        }
    }

    // Attack: token confusion. An API the person signed in to receives their JWT (which names
    // `/userinfo` too) and replays it at the My Account API to put its own key on the account.
    @Test("a JWT for another API is refused, whatever its scope")
    func tokenForAnotherAPI() async throws {
        try await Harness.run(configure: { $0.audiences = ["https://api.example.com"] }) { h in
            _ = try await h.start(email: "ana@example.com")
            let login = try await h.otp(
                "ana@example.com", h.code(for: "ana@example.com"), scope: Self.scope, audience: "https://api.example.com")
            let token = try login.tokens().accessToken
            let refused = try await Self.start(h, token)
            #expect(refused.status == .unauthorized && refused.error?.error == "invalid_token")
            #expect(try await h.get("/userinfo", headers: [.authorization: "Bearer \(token)"]).status == .ok)
        }
    }
}

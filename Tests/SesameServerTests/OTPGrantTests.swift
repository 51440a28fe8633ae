import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

@Suite("POST /oauth/token, passwordless one-time codes")
struct OTPGrantTests {
    static let wrongEmail = ErrorBody(error: "invalid_grant", errorDescription: "Wrong email or verification code.")
    static let wrongPhone = ErrorBody(error: "invalid_grant", errorDescription: "Wrong phone number or verification code.")
    static let expiredEmail = ErrorBody(
        error: "invalid_grant", errorDescription: "Wrong email or verification code.", errorReason: "code_expired")
    static let deadEmail = ErrorBody(
        error: "invalid_grant", errorDescription: "Wrong email or verification code.",
        errorReason: "code_attempts_exhausted")

    @Test("email login issues id, access and refresh tokens and creates the user once")
    func emailLogin() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com")
            #expect(tokens.tokenType == "Bearer" && tokens.expiresIn == 86400)
            #expect(tokens.idToken != nil && tokens.refreshToken != nil)
            #expect(tokens.scope == "openid profile email offline_access")
            _ = try await h.login(email: "ana@example.com")
            let users = try await h.sesame.storage.listUsers(limit: 10, offset: 0)
            #expect(users.count == 1)
            #expect(users[0].userID.hasPrefix("email|") && users[0].loginsCount == 2 && users[0].emailVerified)
        }
    }

    @Test("sms login creates an sms| user")
    func smsLogin() async throws {
        try await Harness.run { h in
            _ = try await h.start(phone: "+15551234567")
            let response = try await h.otp("+15551234567", h.code(for: "+15551234567"), realm: "sms", scope: "openid phone")
            #expect(response.status == .ok)
            let user = try #require(try await h.sesame.storage.listUsers(limit: 1, offset: 0).first)
            #expect(user.userID.hasPrefix("sms|") && user.phoneVerified && user.phoneNumber == "+15551234567")
        }
    }

    @Test("no refresh token without offline_access")
    func noOfflineAccess() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com", scope: "openid")
            #expect(tokens.refreshToken == nil)
        }
    }

    /// Attack: replaying a code that was already used to sign in.
    @Test("a used code is refused")
    func usedCode() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "ana@example.com")
            let code = h.code(for: "ana@example.com")
            #expect(try await h.otp("ana@example.com", code).status == .ok)
            let replay = try await h.otp("ana@example.com", code)
            #expect(replay.status == .forbidden && replay.error == Self.wrongEmail)
        }
    }

    /// Auth0 SDKs match the description, so it stays; `error_reason` lets an app offer a new
    /// code instead of asking the person to type again. A start stores a code for any
    /// address, known or not, so the reason says nothing about accounts.
    @Test("an expired code keeps Auth0's description and says code_expired, for known and unknown addresses alike")
    func expiredCode() async throws {
        try await Harness.run { h in
            _ = try await h.login(email: "ana@example.com")
            for address in ["ana@example.com", "ghost@example.com"] {
                _ = try await h.start(email: address)
                h.clock.advance(by: 181)
                let response = try await h.otp(address, h.code(for: address))
                #expect(response.status == .forbidden && response.error == Self.expiredEmail)
            }
        }
    }

    @Test("only the newest code works")
    func supersededCode() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "ana@example.com")
            let first = h.code(for: "ana@example.com")
            _ = try await h.start(email: "ana@example.com")
            let second = h.code(for: "ana@example.com")
            #expect(first != second, "the seeded source gives two different codes")
            #expect(try await h.otp("ana@example.com", first).error == Self.wrongEmail)
            #expect(try await h.otp("ana@example.com", second).status == .ok)
        }
    }

    /// Attack: brute-forcing a 6-digit code. After 3 wrong guesses the code is dead, so even
    /// the right code fails; the user is not locked out and can ask for a new one.
    @Test("three wrong guesses kill the code")
    func bruteForce() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "ana@example.com")
            let code = try #require(h.code(for: "ana@example.com"))
            let wrong = String(format: "%06d", (Int(code)! + 1) % 1_000_000)
            for _ in 1...2 { #expect(try await h.otp("ana@example.com", wrong).error == Self.wrongEmail) }
            #expect(try await h.otp("ana@example.com", wrong).error == Self.deadEmail, "the third guess says so")
            #expect(try await h.otp("ana@example.com", code).error == Self.deadEmail, "the right code is dead too")
            _ = try await h.start(email: "ana@example.com")
            #expect(try await h.otp("ana@example.com", h.code(for: "ana@example.com")).status == .ok, "no lockout")
        }
    }

    /// Attack: racing one code from many connections to get several sessions out of it.
    @Test("50 concurrent exchanges of one code: exactly one succeeds")
    func concurrentExchange() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "ana@example.com")
            let code = h.code(for: "ana@example.com")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 { group.addTask { try await h.otp("ana@example.com", code).status.code } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            // The others are refused: the code is used (403), or, while the winner is still at
            // work on it, they are told to try again shortly (503): the code was typed right.
            #expect(statuses.filter { $0 == 403 || $0 == 503 }.count == 49)
        }
    }

    @Test("wrong phone code uses the phone wording")
    func wrongPhone() async throws {
        try await Harness.run { h in
            _ = try await h.start(phone: "+15551234567")
            let response = try await h.otp("+15551234567", "000000x", realm: "sms")
            #expect(response.status == .forbidden && response.error == Self.wrongPhone)
        }
    }

    @Test("unknown user and code look exactly like a wrong code")
    func unknownUser() async throws {
        try await Harness.run { h in
            let response = try await h.otp("ghost@example.com", "123456")
            #expect(response.status == .forbidden && response.error == Self.wrongEmail)
        }
    }

    @Test(
        "token endpoint errors",
        arguments: [
            (["client_id": "$"], 400, "invalid_request", "Missing required parameter: grant_type"),
            (["client_id": "$", "grant_type": "password"], 400, "unsupported_grant_type", "Unsupported grant type: password"),
            (["grant_type": GrantType.passwordlessOTP], 401, "invalid_client", "Missing required parameter: client_id"),
            (["client_id": "nope", "grant_type": GrantType.passwordlessOTP], 401, "invalid_client", "Unknown client."),
            (
                ["client_id": "$", "grant_type": GrantType.passwordlessOTP, "username": "a@b.co", "otp": "1"], 400,
                "invalid_request", "Missing required parameter: realm"
            ),
            (
                ["client_id": "$", "grant_type": GrantType.passwordlessOTP, "realm": "email", "otp": "1"], 400,
                "invalid_request", "Missing required parameter: username"
            ),
            (
                ["client_id": "$", "grant_type": GrantType.passwordlessOTP, "realm": "email", "username": "a@b.co"], 400,
                "invalid_request", "Missing required parameter: otp"
            ),
            (
                ["client_id": "$", "grant_type": GrantType.passwordlessOTP, "realm": "ldap", "username": "a", "otp": "1"], 400,
                "invalid_request", "The connection 'ldap' does not exist or is disabled."
            ),
            (
                ["client_id": "$", "grant_type": "refresh_token"], 400, "invalid_request",
                "Missing required parameter: refresh_token"
            ),
            (["client_id": "$", "grant_type": "authorization_code"], 400, "invalid_request", "Missing required parameter: code"),
        ] as [([String: String], Int, String, String)])
    func errors(_ body: [String: String], status: Int, code: String, message: String) async throws {
        try await Harness.run { h in
            var body: [String: Any?] = body
            if body["client_id"] as? String == "$" { body["client_id"] = h.clientID }
            let response = try await h.post("/oauth/token", body)
            #expect(response.status.code == status)
            #expect(response.error == ErrorBody(error: code, errorDescription: message))
        }
    }

    @Test("a grant the application does not allow is 403 unauthorized_client")
    func grantNotAllowed() async throws {
        try await Harness.run { h in
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) { $0.grantTypes = [GrantType.refreshToken] }
            let response = try await h.otp("ana@example.com", "123456")
            #expect(response.status == .forbidden)
            #expect(
                response.error
                    == ErrorBody(
                        error: "unauthorized_client",
                        errorDescription:
                            "Grant type 'http://auth0.com/oauth/grant-type/passwordless/otp' not allowed for the client."))
        }
    }

    @Test("an unregistered audience is 403 access_denied; a registered one gets a JWT")
    func audiences() async throws {
        try await Harness.run(configure: { $0.audiences = ["https://api.example.com"] }) { h in
            _ = try await h.start(email: "ana@example.com")
            var body: [String: Any?] = [
                "grant_type": GrantType.passwordlessOTP, "client_id": h.clientID, "realm": "email",
                "username": "ana@example.com", "otp": h.code(for: "ana@example.com"), "audience": "https://other.example.com",
            ]
            let refused = try await h.post("/oauth/token", body)
            #expect(
                refused.error
                    == ErrorBody(error: "access_denied", errorDescription: "Service not found: https://other.example.com"))
            _ = try await h.start(email: "ana@example.com")
            body["otp"] = h.code(for: "ana@example.com")
            body["audience"] = "https://api.example.com"
            let tokens = try await h.post("/oauth/token", body).decode(TokenBody.self)
            #expect(tokens.accessToken.split(separator: ".").count == 3, "a JWT access token")
        }
    }

    /// auth0-python sends `"audience": null` and `"scope": ""`; both mean "not given".
    @Test("null and empty strings are treated as absent")
    func nullsAreAbsent() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "ana@example.com")
            let response = try await h.post(
                "/oauth/token",
                [
                    "grant_type": GrantType.passwordlessOTP, "client_id": h.clientID, "realm": "email",
                    "username": "ana@example.com", "otp": h.code(for: "ana@example.com"), "audience": nil, "scope": "",
                ])
            #expect(response.status == .ok)
            #expect(try response.decode(TokenBody.self).scope == "openid")
        }
    }

    @Test("form encoding and HTTP Basic client authentication")
    func formAndBasic() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "ana@example.com")
            let basic = Data("\(h.clientID):".utf8).base64EncodedString()
            let response = try await h.form(
                "/oauth/token",
                [
                    "grant_type": GrantType.passwordlessOTP, "realm": "email", "username": "ana@example.com",
                    "otp": h.code(for: "ana@example.com")!, "scope": "openid",
                ],
                headers: [.authorization: "Basic \(basic)"])
            #expect(response.status == .ok)
            #expect(response.header("Cache-Control") == "no-store")
        }
    }
}

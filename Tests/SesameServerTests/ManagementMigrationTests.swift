import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

/// What a team moving from Auth0 needs of the Management API: Auth0's error shape, users
/// created with their Auth0 ids, machine-to-machine tokens and the lists Auth0's SDKs parse.
@Suite("Management API: moving from Auth0")
struct ManagementMigrationTests {
    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any])
    }

    @Test("errors under /api/v2/ answer Auth0's {statusCode, error, message, errorCode}; the Authentication API keeps its shape")
    func managementErrorShape() async throws {
        try await Harness.run { h in
            let unauthorized = try Self.object(try await h.get("/api/v2/users"))
            #expect(unauthorized["statusCode"] as? Int == 401 && unauthorized["error"] as? String == "Unauthorized")
            #expect(unauthorized["errorCode"] as? String == "invalid_token")
            let message = try #require(unauthorized["message"] as? String)
            #expect(!message.isEmpty && unauthorized["error_description"] as? String == message, "the description stays")
            let missing = try Self.object(try await h.get("/api/v2/no-such-thing"))
            #expect(missing["statusCode"] as? Int == 404 && missing["error"] as? String == "Not Found")
            let token = try Self.object(try await h.post("/oauth/token", ["grant_type": "nope", "client_id": h.clientID]))
            #expect(token["error"] as? String == "unsupported_grant_type" && token["statusCode"] == nil)
        }
    }

    static func admin(_ h: Harness) async throws -> HTTPFields {
        try await ManagementAPITests.token(h)
    }

    @Test("POST /api/v2/users keeps an Auth0 user_id; the same id or address again is 409; the user signs in as that id")
    func createUser() async throws {
        try await Harness.run { h in
            let admin = try await Self.admin(h)
            let body: [String: Any?] = [
                "connection": "email", "email": "ana@example.com", "email_verified": true,
                "user_id": "email|5f7c8ec7c33c6c004bbafe82", "given_name": "Ana", "user_metadata": ["theme": "dark"],
            ]
            let created = try await h.post("/api/v2/users", body, headers: admin)
            let user = try Self.object(created)
            #expect(created.status == .created && user["user_id"] as? String == "email|5f7c8ec7c33c6c004bbafe82")
            #expect(user["given_name"] as? String == "Ana" && user["email_verified"] as? Bool == true)
            let again = try await h.post("/api/v2/users", body, headers: admin)
            let conflict = try Self.object(again)
            #expect(again.status == .conflict && conflict["statusCode"] as? Int == 409)
            let tokens = try await h.login(email: "ana@example.com")
            let payload = try #require(tokens.idToken?.split(separator: ".").dropFirst().first)
            #expect(
                Base64URL.decode(String(payload)).map { String(decoding: $0, as: UTF8.self) }?.contains(
                    #""sub":"email|5f7c8ec7c33c6c004bbafe82""#) == true)
            let reader = try await ManagementAPITests.token(h, ["read:users"])
            #expect(
                try await h.post("/api/v2/users", ["connection": "email", "email": "x@example.com"], headers: reader).status
                    == .forbidden)
            #expect(
                try await h.post("/api/v2/users", ["connection": "email", "password": "x"], headers: admin).status == .badRequest)
        }
    }

    /// Attack: a machine token asking for a scope its client grant does not allow, and one used
    /// for a route its scopes do not cover.
    @Test("client_credentials: a client grant's scopes, enforced at /oauth/token and on /api/v2")
    func machineTokenAskingForScopeItsGrantDoesNotAllow() async throws {
        try await Harness.run { h in
            let admin = try await Self.admin(h)
            let app = try Self.object(
                try await h.post(
                    "/api/v2/clients",
                    ["name": "Backend", "app_type": "non_interactive", "grant_types": ["client_credentials"]], headers: admin))
            let clientID = try #require(app["client_id"] as? String)
            let secret = try #require(app["client_secret"] as? String)
            #expect(app["token_endpoint_auth_method"] as? String == "client_secret_post")
            let audience = h.sesame.machineTokens.managementAudience
            let token: [String: Any?] = [
                "grant_type": "client_credentials", "client_id": clientID, "client_secret": secret, "audience": audience,
            ]
            let ungranted = try Self.object(try await h.post("/oauth/token", token))
            #expect(ungranted["error"] as? String == "access_denied")
            let grant = try await h.post(
                "/api/v2/client-grants", ["client_id": clientID, "audience": audience, "scope": ["read:users"]], headers: admin)
            #expect(grant.status == .created)
            var wider = token
            wider["scope"] = "read:users delete:users"
            #expect(try await h.post("/oauth/token", wider).status == .forbidden)
            var wrongSecret = token
            wrongSecret["client_secret"] = "nope"
            let refused = try Self.object(try await h.post("/oauth/token", wrongSecret))
            #expect(refused["error"] as? String == "access_denied" && refused["error_description"] as? String == "Unauthorized")
            let issued = try Self.object(try await h.post("/oauth/token", token))
            let bearer: HTTPFields = [.authorization: "Bearer \(try #require(issued["access_token"] as? String))"]
            #expect(issued["scope"] as? String == "read:users" && issued["token_type"] as? String == "Bearer")
            #expect(try await h.get("/api/v2/users", headers: bearer).status == .ok)
            #expect(try await h.get("/api/v2/logs", headers: bearer).status == .forbidden)
            #expect(try await h.get("/api/v2/clients", headers: bearer).status == .forbidden)
        }
    }

    @Test("clients page with totals, rotate-secret ends the old secret, grants list and delete, connections with ids")
    func clientsGrantsAndConnections() async throws {
        try await Harness.run { h in
            let admin = try await Self.admin(h)
            let app = try Self.object(
                try await h.post("/api/v2/clients", ["name": "Shop", "app_type": "regular_web"], headers: admin))
            let clientID = try #require(app["client_id"] as? String)
            let page = try Self.object(try await h.get("/api/v2/clients?include_totals=true&per_page=1&page=1", headers: admin))
            #expect(page["total"] as? Int == 2 && page["start"] as? Int == 1 && (page["clients"] as? [Any])?.count == 1)
            let rotated = try Self.object(try await h.post("/api/v2/clients/\(clientID)/rotate-secret", [:], headers: admin))
            #expect(rotated["client_secret"] as? String != app["client_secret"] as? String)
            let old = try await h.post(
                "/oauth/revoke", ["client_id": clientID, "client_secret": app["client_secret"] as? String, "token": "x"])
            #expect(old.status == .unauthorized, "the old secret stops working")
            let connections = try #require(
                try JSONSerialization.jsonObject(with: Data(try await h.get("/api/v2/connections", headers: admin).text.utf8))
                    as? [[String: Any]])
            #expect(connections.compactMap { $0["name"] as? String }.sorted() == ["email", "sms"])
            #expect(connections.allSatisfy { ($0["id"] as? String)?.hasPrefix("con_") == true })
            let id = try #require(connections.first?["id"] as? String)
            #expect(try await h.get("/api/v2/connections/\(id)", headers: admin).status == .ok)
        }
    }

    @Test("logs: a page with totals, one log by id, search= with AND, from/take oldest first")
    func logs() async throws {
        try await Harness.run { h in
            _ = try await h.login(email: "ana@example.com")
            _ = try await h.login(email: "bo@example.com")
            let admin = try await Self.admin(h)
            let page = try Self.object(try await h.get("/api/v2/logs?include_totals=true&per_page=2", headers: admin))
            let logs = try #require(page["logs"] as? [[String: Any]])
            #expect(logs.count == 2 && (page["total"] as? Int ?? 0) > 2 && page["length"] as? Int == 2)
            let id = try #require(logs.first?["log_id"] as? String)
            let one = try Self.object(try await h.get("/api/v2/logs/\(id)", headers: admin))
            #expect(one["log_id"] as? String == id)
            #expect(try await h.get("/api/v2/logs/999999", headers: admin).status == .notFound)
            let user = try #require(logs.compactMap { $0["user_id"] as? String }.first)
            let search = "type:s AND user_id:\"\(user)\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let found = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(try await h.get("/api/v2/logs?search=\(search)", headers: admin).text.utf8))
                    as? [[String: Any]])
            // `s` stands for the first login's user_created event as well as the login itself.
            #expect(!found.isEmpty && found.allSatisfy { $0["type"] as? String == "s" && $0["user_id"] as? String == user })
            let after = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(try await h.get("/api/v2/logs?from=1&take=2", headers: admin).text.utf8))
                    as? [[String: Any]])
            #expect(after.compactMap { $0["log_id"] as? String } == ["2", "3"])
            let mine = try Self.object(
                try await h.get(
                    "/api/v2/users/\(user.replacingOccurrences(of: "|", with: "%7C"))/logs?include_totals=true", headers: admin))
            #expect((mine["logs"] as? [[String: Any]])?.allSatisfy { $0["user_id"] as? String == user } == true)
        }
    }

    @Test("sessions: a user's live sessions in Auth0's shape, one by id, ended one by one or all at once")
    func sessions() async throws {
        try await Harness.run { h in
            let admin = try await Self.admin(h)
            let now = h.clock.now()
            for (id, hash) in [("ses_a", UInt8(1)), ("ses_b", 2)] {
                try await h.sesame.storage.createBrowserSession(
                    BrowserSession(
                        id: id, secretHash: Array(repeating: hash, count: 32), userID: "email|abc", methods: ["hosted_otp"],
                        createdAt: now, authTime: now, lastSeenAt: now, expiresAt: now.addingTimeInterval(3600),
                        ip: "198.51.100.7", userAgent: "Safari"))
            }
            let listed = try Self.object(try await h.get("/api/v2/users/email%7Cabc/sessions", headers: admin))
            let sessions = try #require(listed["sessions"] as? [[String: Any]])
            #expect(sessions.count == 2 && sessions.allSatisfy { $0["user_id"] as? String == "email|abc" })
            let one = try Self.object(try await h.get("/api/v2/sessions/ses_a", headers: admin))
            #expect((one["device"] as? [String: Any])?["initial_ip"] as? String == "198.51.100.7")
            #expect(one["idle_expires_at"] is String && one["authenticated_at"] is String)
            #expect(try await h.delete("/api/v2/sessions/ses_a", headers: admin).status == .accepted)
            #expect(try await h.get("/api/v2/sessions/ses_a", headers: admin).status == .notFound)
            #expect(try await h.delete("/api/v2/users/email%7Cabc/sessions", headers: admin).status == .accepted)
            #expect(try await h.get("/api/v2/sessions/ses_b", headers: admin).status == .notFound)
            let reader = try await ManagementAPITests.token(h, ["read:sessions"])
            #expect(try await h.delete("/api/v2/sessions/ses_b", headers: reader).status == .forbidden)
        }
    }

    /// Attack: a stolen refresh token (and the access tokens of its login) still working after
    /// an operator revoked it.
    @Test("refresh tokens: listed by user in Auth0's shape, one by id; revoking ends the refresh token and its access tokens")
    func revokedRefreshTokenStopsWorking() async throws {
        try await Harness.run { h in
            let admin = try await Self.admin(h)
            let tokens = try await h.login(email: "ana@example.com")
            let user = try #require(try await h.sesame.storage.listUsers(limit: 1, offset: 0).first)
            let path = "/api/v2/users/email%7C\(user.id)/refresh-tokens"
            let listed = try #require(try Self.object(try await h.get(path, headers: admin))["tokens"] as? [[String: Any]])
            #expect(listed.count == 1 && listed[0]["user_id"] as? String == user.userID && listed[0]["rotating"] as? Bool == true)
            let id = try #require(listed.first?["id"] as? String)
            #expect(
                try Self.object(try await h.get("/api/v2/refresh-tokens/\(id)", headers: admin))["client_id"] as? String
                    == h.clientID)
            #expect(try await h.delete("/api/v2/refresh-tokens/\(id)", headers: admin).status == .accepted)
            let refreshed = try await h.post(
                "/oauth/token", ["grant_type": "refresh_token", "client_id": h.clientID, "refresh_token": tokens.refreshToken])
            #expect(refreshed.status == .forbidden, "the refresh token is dead")
            #expect(
                try await h.get("/userinfo", headers: [.authorization: "Bearer \(tokens.accessToken)"]).status == .unauthorized)
            #expect(try await h.get("/api/v2/refresh-tokens/\(id)", headers: admin).status == .notFound)
            _ = try await h.login(email: "ana@example.com")
            #expect(try await h.delete(path, headers: admin).status == .accepted)
            #expect((try Self.object(try await h.get(path, headers: admin))["tokens"] as? [Any])?.isEmpty == true)
        }
    }
}

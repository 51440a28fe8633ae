import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn
import Testing

/// The management API (`/api/v2/users`, `/clients`, `/logs`): Auth0's shapes, scoped
/// management tokens, and a user's own token limited to their own `user_metadata`.
@Suite("Management API: users, clients and logs with scoped tokens")
struct ManagementAPITests {
    /// A management token with `scopes` (none: every scope).
    static func token(_ h: Harness, _ scopes: [String] = []) async throws -> HTTPFields {
        let (token, _) = try await h.sesame.adminTokens.create(name: "test", scopes: scopes, at: h.clock.now())
        return [.authorization: "Bearer \(token)"]
    }

    static func json(_ response: TestResponse) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(response.text.utf8))
    }

    /// Attack: a token made for reading (a dashboard's) used to change or delete users; a
    /// missing or made-up token; an ordinary access token used as a management token.
    @Test("scopes: no token is 401, a token without the scope is 403, a user's access token is no management token")
    func scopes() async throws {
        try await Harness.run { h in
            _ = try await h.login(email: "ana@example.com")
            #expect(try await h.get("/api/v2/users").status == .unauthorized)
            #expect(try await h.get("/api/v2/users", headers: [.authorization: "Bearer sadm_madeup"]).status == .unauthorized)
            let reader = try await Self.token(h, ["read:users"])
            #expect(try await h.get("/api/v2/users", headers: reader).status == .ok)
            let id = "email%7C" + (try await h.sesame.storage.listUsers(limit: 1, offset: 0)[0].id)
            let refused = try await h.delete("/api/v2/users/\(id)", headers: reader)
            #expect(refused.status == .forbidden && refused.error?.error == "insufficient_scope")
            #expect(try await h.patch("/api/v2/users/\(id)", ["blocked": true], headers: reader).status == .forbidden)
            #expect(try await h.get("/api/v2/logs", headers: reader).status == .forbidden)
            #expect(
                try await h.get("/api/v2/device-credentials", headers: reader).status == .forbidden,
                "device credentials need their own scope")
            #expect(try await h.patch("/api/v2/users/\(id)", ["nope": 1]).status == .unauthorized, "the token comes first")
            let tokens = try await h.login(email: "bo@example.com")
            let asUser: HTTPFields = [.authorization: "Bearer \(tokens.accessToken)"]
            #expect(try await h.get("/api/v2/users", headers: asUser).status == .unauthorized)
        }
    }

    /// Attack: a management token handed out for a day (a contractor's, a CI job's) and leaked
    /// or forgotten keeps every power it had for ever; made with a lifetime, it stops at its expiry.
    @Test("an expired management token is refused like a deleted one")
    func expiredTokenRefused() async throws {
        try await Harness.run { h in
            let (token, record) = try await h.sesame.adminTokens.create(
                name: "temporary", scopes: ["read:users"], lifetime: 3600, at: h.clock.now())
            #expect(abs((record.expiresAt ?? .distantPast).timeIntervalSince(h.clock.now()) - 3600) < 0.001)
            let headers: HTTPFields = [.authorization: "Bearer \(token)"]
            #expect(try await h.get("/api/v2/users", headers: headers).status == .ok)
            h.clock.advance(by: 3599)
            #expect(try await h.get("/api/v2/users", headers: headers).status == .ok)
            h.clock.advance(by: 1)
            let refused = try await h.get("/api/v2/users", headers: headers)
            #expect(refused.status == .unauthorized && refused.error?.error == "invalid_token")
            await #expect(throws: SesameError.self) {
                _ = try await h.sesame.adminTokens.create(name: "never", lifetime: 0, at: h.clock.now())
            }
        }
    }

    @Test("users: pages with totals, q by email, phone or text, users-by-email, one user in Auth0's shape")
    func listAndSearch() async throws {
        try await Harness.run { h in
            for name in ["ana", "bo", "cy"] { _ = try await h.login(email: "\(name)@example.com") }
            let admin = try await Self.token(h)
            let page = try Self.json(try await h.get("/api/v2/users?per_page=2&page=0&include_totals=true", headers: admin))
            let totals = try #require(page as? [String: Any])
            #expect(totals["total"] as? Int == 3 && totals["length"] as? Int == 2 && totals["limit"] as? Int == 2)
            let found = try #require(try Self.json(try await h.get("/api/v2/users?q=bo%40", headers: admin)) as? [[String: Any]])
            #expect(found.map { $0["email"] as? String } == ["bo@example.com"])
            let exact = try await h.get("/api/v2/users?q=email:%22cy@example.com%22", headers: admin)
            #expect((try Self.json(exact) as? [[String: Any]])?.count == 1)
            let byEmail = try #require(
                try Self.json(try await h.get("/api/v2/users-by-email?email=ANA@example.com", headers: admin)) as? [[String: Any]]
            )
            let ana = try #require(byEmail.first)
            #expect(
                ana["email_verified"] as? Bool == true && ana["logins_count"] as? Int == 1 && ana["blocked"] as? Bool == false)
            #expect((ana["identities"] as? [[String: Any]])?.first?["provider"] as? String == "email")
            let id = try #require(ana["user_id"] as? String)
            let one = try await h.get("/api/v2/users/\(id.replacingOccurrences(of: "|", with: "%7C"))", headers: admin)
            let oneBody = try Self.json(one) as? [String: Any]
            #expect(one.status == .ok && oneBody?["user_id"] as? String == id)
            #expect(try await h.get("/api/v2/users/email%7Cnobody", headers: admin).status == .notFound)
            #expect(try await h.get("/api/v2/users?per_page=1000", headers: admin).status == .badRequest)
        }
    }

    @Test("patch: metadata merges at the top level (null removes), blocking revokes, unknown fields are 400")
    func patchUser() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com")
            let admin = try await Self.token(h, ["update:users", "read:users"])
            let user = try await h.sesame.storage.listUsers(limit: 1, offset: 0)[0]
            let path = "/api/v2/users/email%7C\(user.id)"
            _ = try await h.patch(path, ["app_metadata": ["plan": "pro", "seats": 3], "name": "Ana"], headers: admin)
            let merged = try await h.patch(path, ["app_metadata": ["seats": NSNull(), "region": "eu"]], headers: admin)
            let body = try #require(try Self.json(merged) as? [String: Any])
            #expect(body["app_metadata"] as? [String: String] == ["plan": "pro", "region": "eu"])
            #expect(body["name"] as? String == "Ana")
            #expect(try await h.patch(path, ["nmae": "typo"], headers: admin).status == .badRequest)
            #expect(
                try await h.patch(path, ["picture": "http://insecure.example.com/a.png"], headers: admin).status == .badRequest)
            #expect(try await h.patch(path, ["blocked": true], headers: admin).status == .ok)
            let refreshed = try await h.post(
                "/oauth/token",
                ["grant_type": "refresh_token", "client_id": h.clientID, "refresh_token": tokens.refreshToken ?? ""])
            #expect(refreshed.status != .ok, "blocking through the API revokes the user's tokens")
        }
    }

    /// Attack: a user's token used to raise their own plan (app_metadata), block someone,
    /// or change another user's metadata.
    @Test("a user's own token changes only their own user_metadata, and only with update:current_user_metadata")
    func selfService() async throws {
        try await Harness.run { h in
            let scope = "openid profile email update:current_user_metadata"
            let ana = try await h.login(email: "ana@example.com", scope: scope)
            _ = try await h.login(email: "bo@example.com")
            let users = try await h.sesame.storage.listUsers(limit: 10, offset: 0)
            let anaID = try #require(users.first { $0.email == "ana@example.com" }).id
            let boID = try #require(users.first { $0.email == "bo@example.com" }).id
            let asAna: HTTPFields = [.authorization: "Bearer \(ana.accessToken)"]
            let own = try await h.patch("/api/v2/users/email%7C\(anaID)", ["user_metadata": ["theme": "dark"]], headers: asAna)
            #expect(own.status == .ok)
            #expect(try await h.sesame.storage.user(id: anaID)?.userMetadata == ["theme": .string("dark")])
            #expect(
                try await h.patch("/api/v2/users/email%7C\(anaID)", ["app_metadata": ["plan": "pro"]], headers: asAna).status
                    == .forbidden)
            #expect(
                try await h.patch("/api/v2/users/email%7C\(boID)", ["user_metadata": ["x": 1]], headers: asAna).status
                    == .forbidden)
            let plain = try await h.login(email: "cy@example.com")
            let cyID = try #require(
                try await h.sesame.storage.listUsers(limit: 10, offset: 0).first { $0.email == "cy@example.com" })
            let withoutScope = try await h.patch(
                "/api/v2/users/email%7C\(cyID.id)", ["user_metadata": ["x": 1]],
                headers: [.authorization: "Bearer \(plain.accessToken)"])
            #expect(withoutScope.status == .forbidden)
        }
    }

    /// Attack: a token made to read applications (a dashboard's, a log shipper's) is used to
    /// collect every confidential application's secret and impersonate those back ends.
    @Test("a token without read:client_keys reads no client secret; one with it does, as with Auth0")
    func readingClientSecretsWithoutReadClientKeys() async throws {
        try await Harness.run { h in
            let admin = try await Self.token(h)
            let created = try #require(
                try Self.json(
                    try await h.post(
                        "/api/v2/clients",
                        ["name": "Shop", "app_type": "regular_web", "callbacks": ["https://shop.example.com/callback"]],
                        headers: admin)) as? [String: Any])
            let id = try #require(created["client_id"] as? String)
            let secret = try #require(created["client_secret"] as? String)
            for (scopes, expected) in [(["read:clients"], nil), (["read:clients", "read:client_keys"], secret)] {
                let token = try await Self.token(h, scopes)
                let one = try Self.json(try await h.get("/api/v2/clients/\(id)", headers: token)) as? [String: Any]
                #expect(one?["client_secret"] as? String == expected, "GET one with \(scopes)")
                let all = try Self.json(try await h.get("/api/v2/clients", headers: token)) as? [[String: Any]]
                let listed = all?.first { $0["client_id"] as? String == id }
                #expect(listed?["client_secret"] as? String == expected, "GET list with \(scopes)")
            }
        }
    }

    @Test("clients: create (secret only for regular_web, once), read, update, delete; bad callbacks are 400")
    func clients() async throws {
        try await Harness.run { h in
            let admin = try await Self.token(h)
            let created = try await h.post(
                "/api/v2/clients",
                ["name": "Shop", "app_type": "regular_web", "callbacks": ["https://shop.example.com/callback"]],
                headers: admin)
            let body = try #require(try Self.json(created) as? [String: Any])
            #expect(created.status == .created && (body["client_secret"] as? String)?.isEmpty == false)
            #expect(body["token_endpoint_auth_method"] as? String == "client_secret_post")
            let id = try #require(body["client_id"] as? String)
            let reader = try await Self.token(h, ["read:clients"])
            let read = try #require(try Self.json(try await h.get("/api/v2/clients/\(id)", headers: reader)) as? [String: Any])
            #expect(read["client_secret"] == nil, "without read:client_keys the secret is shown once")
            let renamed = try await h.patch(
                "/api/v2/clients/\(id)", ["name": "Shop 2", "web_origins": ["https://shop.example.com"]], headers: admin)
            #expect((try Self.json(renamed) as? [String: Any])?["allowed_origins"] as? [String] == ["https://shop.example.com"])
            let bad = try await h.post(
                "/api/v2/clients", ["name": "X", "app_type": "spa", "callbacks": ["javascript:alert(1)"]], headers: admin)
            #expect(bad.status == .badRequest)
            // A machine client without a secret: anyone could present its client_id.
            let publicMachine: [String: Any?] = [
                "name": "M", "app_type": "non_interactive", "token_endpoint_auth_method": "none",
            ]
            #expect(try await h.post("/api/v2/clients", publicMachine, headers: admin).status == .badRequest)
            #expect(try await h.delete("/api/v2/clients/\(id)", headers: admin).status == .noContent)
            #expect(try await h.get("/api/v2/clients/\(id)", headers: admin).status == .notFound)
            let list = try #require(try Self.json(try await h.get("/api/v2/clients", headers: admin)) as? [[String: Any]])
            #expect(list.count == 1, "the default application remains")
        }
    }

    @Test("logs: logins, failures, codes and admin changes in Auth0's shape, newest first, by type and by user")
    func logs() async throws {
        try await Harness.run { h in
            _ = try await h.login(email: "ana@example.com")
            _ = try await h.start(email: "ana@example.com")
            _ = try await h.otp("ana@example.com", "000000")
            let admin = try await Self.token(h, ["read:logs"])
            let all = try #require(try Self.json(try await h.get("/api/v2/logs", headers: admin)) as? [[String: Any]])
            let types = all.compactMap { $0["type"] as? String }
            #expect(types.first == "fp" && types.contains("s") && types.contains("cs"), "\(types)")
            #expect(all.allSatisfy { ($0["log_id"] as? String)?.isEmpty == false && $0["date"] is String })
            let logins = try #require(
                try Self.json(try await h.get("/api/v2/logs?q=type:%22s%22", headers: admin)) as? [[String: Any]])
            #expect(!logins.isEmpty && logins.allSatisfy { $0["type"] as? String == "s" })
            // Auth0's code finds every event it stands for: the first login's user_created too.
            let loginEvents = Set(logins.compactMap { ($0["details"] as? [String: Any])?["event"] as? String })
            #expect(loginEvents == ["login", "user_created"], "\(loginEvents)")
            let userID = try #require(logins.first?["user_id"] as? String)
            let mine = try await h.get("/api/v2/users/\(userID.replacingOccurrences(of: "|", with: "%7C"))/logs", headers: admin)
            #expect((try Self.json(mine) as? [[String: Any]])?.allSatisfy { $0["user_id"] as? String == userID } == true)
        }
    }

    @Test("app_metadata set through the API reaches id_tokens under the configured namespaced claim, and only there")
    func appMetadataClaim() async throws {
        let claim = "https://example.com/app_metadata"
        try await Harness.run(configure: { $0.appMetadataClaim = claim }) { h in
            _ = try await h.login(email: "ana@example.com")
            let user = try await h.sesame.storage.listUsers(limit: 1, offset: 0)[0]
            let admin = try await Self.token(h, ["update:users"])
            _ = try await h.patch(
                "/api/v2/users/email%7C\(user.id)", ["app_metadata": ["plan": "pro"], "user_metadata": ["theme": "dark"]],
                headers: admin)
            let tokens = try await h.login(email: "ana@example.com")
            let payload = try #require(tokens.idToken?.split(separator: ".").dropFirst().first)
            var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            let json = try #require(Data(base64Encoded: base64))
            let claims = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            #expect(claims[claim] as? [String: String] == ["plan": "pro"])
            #expect(claims["theme"] == nil && claims["plan"] == nil, "nothing leaks outside the namespace")
        }
    }
}

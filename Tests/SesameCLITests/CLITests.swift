import Foundation
import Testing

/// The command-line interface that scripts rely on, run as a real process.
@Suite("sesame command line", .serialized)
struct CLITests {
    @Test("apps create/list --json print the documented objects; the default app is public native")
    func apps() async throws {
        let directory = Sesame.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await RunningServer.startAndStop(directory)  // admin commands never create the database
        let created = try #require(
            try await Sesame.json(
                [
                    "admin", "apps", "create", "--name", "Web", "--type", "regular", "--callback", "https://app.example/cb",
                    "--allowed-origin", "https://app.example", "--json", "--data-dir", directory,
                ]) as? [String: Any])
        #expect(created["name"] as? String == "Web" && created["type"] as? String == "regular")
        #expect((created["client_secret"] as? String)?.isEmpty == false)
        #expect(created["callbacks"] as? [String] == ["https://app.example/cb"])
        #expect(created["allowed_origins"] as? [String] == ["https://app.example"])
        #expect(created["default"] as? Bool == false)
        let server = try await RunningServer.start(dataDirectory: directory)
        server.stop()
        let apps = try #require(
            try await Sesame.json(["admin", "apps", "list", "--json", "--data-dir", directory]) as? [[String: Any]])
        let defaults = apps.filter { $0["default"] as? Bool == true }
        #expect(defaults.count == 1)
        #expect(defaults.first?["type"] as? String == "native" && defaults.first?["client_secret"] == nil)
        let update = try await Sesame.run(
            [
                "admin", "apps", "update", created["client_id"] as! String, "--add-callback", "https://app.example/2",
                "--data-dir", directory,
            ])
        #expect(update.status == 0)
    }

    @Test("outbox --json works while serve runs and lists the newest message first")
    func outboxWhileServing() async throws {
        let directory = Sesame.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await RunningServer.start(dataDirectory: directory)
        defer { server.stop() }
        let apps = try #require(
            try await Sesame.json(["admin", "apps", "list", "--json", "--data-dir", directory]) as? [[String: Any]])
        let clientID = try #require(apps.first?["client_id"] as? String)
        for email in ["first@example.com", "second@example.com"] {
            let answer = try await server.post(
                "/passwordless/start", ["client_id": clientID, "connection": "email", "email": email, "send": "code"])
            #expect(answer["email"] as? String == email)
        }
        let messages = try #require(try await Sesame.json(["outbox", "--json", "--data-dir", directory]) as? [[String: Any]])
        #expect(messages.map { $0["recipient"] as? String } == ["second@example.com", "first@example.com"])
        let newest = messages[0]
        #expect(newest["channel"] as? String == "email")
        #expect((newest["code"] as? String)?.count == 6)
        #expect((newest["created_at"] as? String)?.hasSuffix("Z") == true)
        for key in ["id", "subject", "body"] { #expect(newest[key] is String, "\(key)") }
    }

    @Test("users block makes the next login fail")
    func blockUser() async throws {
        let directory = Sesame.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await RunningServer.start(dataDirectory: directory)
        defer { server.stop() }
        let apps = try #require(
            try await Sesame.json(["admin", "apps", "list", "--json", "--data-dir", directory]) as? [[String: Any]])
        let clientID = try #require(apps.first?["client_id"] as? String)
        func login() async throws -> [String: Any] {
            _ = try await server.post(
                "/passwordless/start", ["client_id": clientID, "connection": "sms", "phone_number": "+15550001111"])
            let messages = try #require(try await Sesame.json(["outbox", "--json", "--data-dir", directory]) as? [[String: Any]])
            return try await server.post(
                "/oauth/token",
                [
                    "grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp", "client_id": clientID, "realm": "sms",
                    "username": "+15550001111", "otp": messages[0]["code"] as? String ?? "",
                ])
        }
        #expect(try await login()["access_token"] != nil)
        let users = try #require(
            try await Sesame.json(["admin", "users", "list", "--json", "--data-dir", directory]) as? [[String: Any]])
        let userID = try #require(users.first?["user_id"] as? String)
        #expect(userID.hasPrefix("sms|"))
        #expect(try await Sesame.run(["admin", "users", "block", userID, "--data-dir", directory]).status == 0)
        #expect(try await login()["error"] as? String == "invalid_grant", "no code reaches a blocked user")
    }

    @Test("every configuration problem is reported at once, exit 78")
    func configurationProblems() async throws {
        let directory = Sesame.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = try await Sesame.run(
            ["serve", "--data-dir", directory],
            environment: [
                "SESAME_PORT": "eighty", "SESAME_ISSUER": "ftp://x", "SESAME_RATE_LIMIT_START_PER_IP": "0",
                "SESAME_EMAIL_PROVIDER": "smtp",
            ])
        #expect(output.status == 78)
        for fragment in ["SESAME_PORT", "issuer", "SESAME_RATE_LIMIT_START_PER_IP", "email.smtp.host"] {
            #expect(output.stderr.contains(fragment), "missing \(fragment) in \(output.stderr)")
        }
    }

    @Test("a config file is read, and the environment overrides it")
    func configFile() async throws {
        let directory = Sesame.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/sesame.json"
        try Data(#"{"issuer": "https://file.example.com", "connections": {"email": {"code_length": 8}}}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        let server = try await RunningServer.start(
            dataDirectory: directory, environment: ["SESAME_ISSUER": "https://env.example.com"])
        server.stop()
        let connections = try #require(
            try await Sesame.json(["admin", "connections", "list", "--json", "--data-dir", directory]) as? [[String: Any]])
        #expect(connections.first { $0["name"] as? String == "email" }?["code_length"] as? Int == 8)
    }
}

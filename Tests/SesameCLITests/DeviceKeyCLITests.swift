import Foundation
import Testing

/// `sesame admin tokens`, `sesame admin devices` and the device-key application setting.
@Suite("sesame admin tokens and device keys", .serialized)
struct DeviceKeyCLITests {
    @Test("tokens create prints a management token once; it opens /api/v2 until deleted")
    func managementToken() async throws {
        let directory = Sesame.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await RunningServer.startAndStop(directory)  // admin commands never create the database
        let created = try #require(
            try await Sesame.json([
                "admin", "tokens", "create", "--name", "ci", "--all-scopes", "--json", "--data-dir", directory,
            ])
                as? [String: Any])
        let token = try #require(created["token"] as? String)
        let id = try #require(created["id"] as? String)
        #expect(token.hasPrefix("sadm_") && id.hasPrefix("adm_"))
        let listed = try #require(
            try await Sesame.json(["admin", "tokens", "list", "--json", "--data-dir", directory]) as? [[String: Any]])
        #expect(listed.count == 1 && listed[0]["token"] == nil, "the token itself is never shown again")
        let server = try await RunningServer.start(dataDirectory: directory)
        defer { server.stop() }
        #expect(try await server.status("/api/v2/device-credentials", bearer: token) == "200")
        #expect(try await Sesame.run(["admin", "tokens", "delete", id, "--data-dir", directory]).status == 0)
        #expect(try await server.status("/api/v2/device-credentials", bearer: token) == "401")
        #expect(try await Sesame.run(["admin", "devices", "list", "--data-dir", directory]).status == 0)
    }

    @Test("apps update --device-key-nonce-required turns the nonce mode on and off")
    func nonceSetting() async throws {
        let directory = Sesame.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await RunningServer.startAndStop(directory)
        let apps = try #require(
            try await Sesame.json(["admin", "apps", "list", "--json", "--data-dir", directory]) as? [[String: Any]])
        let clientID = try #require(apps.first?["client_id"] as? String)
        #expect((apps.first?["grant_types"] as? [String])?.contains("urn:ietf:params:oauth:grant-type:jwt-bearer") == true)
        let on = try await Sesame.json([
            "admin", "apps", "update", clientID, "--device-key-nonce-required", "--json", "--data-dir", directory,
        ])
        #expect((on as? [String: Any])?["device_key_nonce_required"] as? Bool == true)
        let off = try await Sesame.json([
            "admin", "apps", "update", clientID, "--no-device-key-nonce-required", "--json", "--data-dir", directory,
        ])
        #expect((off as? [String: Any])?["device_key_nonce_required"] as? Bool == false)
    }
}

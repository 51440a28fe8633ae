import Foundation
import Testing

/// `sesame admin tokens`, `sesame admin devices` and the device-key application setting.
@Suite("sesame admin tokens and device keys", .serialized)
struct DeviceKeyCLITests {
    @Test("tokens create prints a management token once; it opens /api/v2 until deleted")
    func managementToken() throws {
        let directory = Sesame.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let created = try #require(
            try Sesame.json(["admin", "tokens", "create", "--name", "ci", "--json", "--data-dir", directory]) as? [String: Any])
        let token = try #require(created["token"] as? String)
        let id = try #require(created["id"] as? String)
        #expect(token.hasPrefix("sadm_") && id.hasPrefix("adm_"))
        let listed = try #require(
            try Sesame.json(["admin", "tokens", "list", "--json", "--data-dir", directory]) as? [[String: Any]])
        #expect(listed.count == 1 && listed[0]["token"] == nil, "the token itself is never shown again")
        let server = try RunningServer(dataDirectory: directory)
        defer { server.stop() }
        #expect(try Self.status(server, "/api/v2/device-credentials", bearer: token) == "200")
        #expect(try Sesame.run(["admin", "tokens", "delete", id, "--data-dir", directory]).status == 0)
        #expect(try Self.status(server, "/api/v2/device-credentials", bearer: token) == "401")
        #expect(try Sesame.run(["admin", "devices", "list", "--data-dir", directory]).status == 0)
    }

    @Test("apps update --device-key-nonce-required turns the nonce mode on and off")
    func nonceSetting() throws {
        let directory = Sesame.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        RunningServer.startAndStop(directory)
        let apps = try #require(
            try Sesame.json(["admin", "apps", "list", "--json", "--data-dir", directory]) as? [[String: Any]])
        let clientID = try #require(apps.first?["client_id"] as? String)
        #expect((apps.first?["grant_types"] as? [String])?.contains("urn:ietf:params:oauth:grant-type:jwt-bearer") == true)
        let on = try Sesame.json([
            "admin", "apps", "update", clientID, "--device-key-nonce-required", "--json", "--data-dir", directory,
        ])
        #expect((on as? [String: Any])?["device_key_nonce_required"] as? Bool == true)
        let off = try Sesame.json([
            "admin", "apps", "update", clientID, "--no-device-key-nonce-required", "--json", "--data-dir", directory,
        ])
        #expect((off as? [String: Any])?["device_key_nonce_required"] as? Bool == false)
    }

    /// The HTTP status of a GET, via curl as the other CLI tests do.
    static func status(_ server: RunningServer, _ path: String, bearer: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = [
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(server.port)\(path)",
            "-H", "authorization: Bearer \(bearer)",
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}

extension RunningServer {
    /// Runs the first start (default application, keys) and stops.
    static func startAndStop(_ directory: String) {
        (try? RunningServer(dataDirectory: directory))?.stop()
    }
}

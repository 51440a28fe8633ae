import Foundation
import SesameAPI
import SesameClient
import Testing

/// The credentials manager: a private session file, and one renewal however many tasks ask.
@Suite("SesameClient: credentials manager")
struct CredentialsManagerTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sesame-session-\(UUID().uuidString)/session.json").path
    }

    /// Attack (token theft from disk): another local user reads the session file.
    @Test("the session file is 0600 in a 0700 directory, and logout forgets it")
    func privateFile() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            let store = FileCredentialsStore(path: Self.temporaryPath())
            defer { try? FileManager.default.removeItem(atPath: (store.path as NSString).deletingLastPathComponent) }
            try await client.startPasswordless(email: "ana@example.com")
            let manager = CredentialsManager(client: client, store: store)
            try await manager.signedIn(
                try await client.login(email: "ana@example.com", code: try await server.code(for: "ana@example.com")))
            let mode = (try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600)
            try await manager.signOut()
            #expect(try store.load() == nil)
            await #expect { _ = try await manager.credentials() } throws: { ($0 as? SesameClientError)?.isNotSignedIn == true }
        }
    }

    /// Two renewals with one refresh token would look like reuse of a stolen token.
    @Test("an expiring token is renewed once, even when 10 tasks ask at the same moment")
    func singleRenewal() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            let store = FileCredentialsStore(path: Self.temporaryPath())
            defer { try? FileManager.default.removeItem(atPath: (store.path as NSString).deletingLastPathComponent) }
            try await client.startPasswordless(email: "ana@example.com")
            let manager = CredentialsManager(client: client, store: store)
            var first = try await client.login(email: "ana@example.com", code: try await server.code(for: "ana@example.com"))
            // Stored as if it were about to expire: the first caller renews, later ones find
            // the fresh token (or join the renewal in flight).
            first.expiresAt = Date().addingTimeInterval(30)
            try await manager.signedIn(first)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 1...10 { group.addTask { try await manager.credentials().accessToken } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1 && !tokens.contains(first.accessToken))
            #expect(try store.load()?.credentials.accessToken == tokens.first)
        }
    }
}

import Foundation
import SesameAPI
import SesameClient
import Testing

/// The credentials manager: a private session file, and one renewal however many tasks ask.
@Suite("SesameClient: credentials manager")
struct CredentialsManagerTests {
    /// A manager of a session file in a fresh temporary directory.
    static func manager(_ server: LiveServer) -> (CredentialsManager, FileCredentialsStore) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sesame-session-\(UUID().uuidString)/session.json")
        let store = FileCredentialsStore(path: path.path)
        return (CredentialsManager(client: server.client, store: store), store)
    }

    static func remove(_ store: FileCredentialsStore) {
        try? FileManager.default.removeItem(atPath: (store.path as NSString).deletingLastPathComponent)
    }

    /// Attack (token theft from disk): another local user reads the session file.
    @Test("the session file is 0600 in a 0700 directory, and logout forgets it")
    func privateFile() async throws {
        try await LiveServer.run { server in
            let (manager, store) = Self.manager(server)
            defer { Self.remove(store) }
            try await manager.signedIn(try await server.signIn(server.client))
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
            let (manager, store) = Self.manager(server)
            defer { Self.remove(store) }
            var first = try await server.signIn(server.client)
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

import Foundation
import SesameClientCore
import Testing

/// One renewal at a time, and none that outlives the session it was started for.
@Suite("SesameClient: concurrent renewal")
struct CredentialsRenewalTests {
    static func signedIn(_ server: FakeTokenServer) async throws -> (CredentialsManager, MemoryCredentialsStore) {
        let store = MemoryCredentialsStore()
        let manager = CredentialsManager(client: server.client, store: store)
        try await manager.signedIn(FakeTokenServer.expiring())
        return (manager, store)
    }

    /// Attack-adjacent (refresh-token reuse detection): two renewals with one rotating refresh
    /// token look like a stolen token's replay and end the whole login.
    @Test("20 concurrent credentials() calls make one refresh and share its tokens")
    func oneRefreshForConcurrentCallers() async throws {
        let server = FakeTokenServer()
        let (manager, store) = try await Self.signedIn(server)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 1...20 { group.addTask { try await manager.credentials().accessToken } }
            var arrivals = server.arrivals.makeAsyncIterator()
            _ = await arrivals.next()
            await server.gate.open()
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(server.refreshes.current == 1)
        #expect(tokens == ["access-1"])
        #expect(try store.load()?.credentials.refreshToken == "refresh-1")
    }

    /// Attack (session resurrection): the person signs out on a shared device while a renewal
    /// is in flight; when its answer arrived it was saved, so the next person to pick up the
    /// device found the previous one signed in again.
    @Test("a sign-out during a renewal discards the renewal's tokens")
    func signOutDuringRenewal() async throws {
        let server = FakeTokenServer()
        let (manager, store) = try await Self.signedIn(server)
        let renewal = Task { try await manager.credentials() }
        var arrivals = server.arrivals.makeAsyncIterator()
        _ = await arrivals.next()
        try await manager.signOut()
        await server.gate.open()
        await #expect { _ = try await renewal.value } throws: { ($0 as? SesameClientError)?.isNotSignedIn == true }
        #expect(try store.load() == nil)
        #expect(server.revocations.current == 1)
    }

    /// Attack (session confusion): a second account signs in while the first one's renewal is
    /// in flight; the old renewal's answer replaced the new login in the store.
    @Test("a new sign-in during a renewal is not overwritten by the old session's tokens")
    func signInDuringRenewal() async throws {
        let server = FakeTokenServer()
        let (manager, store) = try await Self.signedIn(server)
        let renewal = Task { try await manager.credentials() }
        var arrivals = server.arrivals.makeAsyncIterator()
        _ = await arrivals.next()
        var other = FakeTokenServer.expiring()
        other.accessToken = "other-account"
        other.expiresAt = Date().addingTimeInterval(3600)
        try await manager.signedIn(other)
        await server.gate.open()
        await #expect { _ = try await renewal.value } throws: { ($0 as? SesameClientError)?.isNotSignedIn == true }
        #expect(try store.load()?.credentials.accessToken == "other-account")
    }

    @Test("a fresh access token is handed out without a refresh")
    func freshTokenIsNotRenewed() async throws {
        let server = FakeTokenServer()
        let (manager, _) = try await Self.signedIn(server)
        let later = try await manager.credentials(now: Date().addingTimeInterval(-3600))
        #expect(later.accessToken == "access-0")
        #expect(server.refreshes.current == 0)
    }
}

import Foundation
import SQLKit
import SesameCore
import Testing

@testable import SesameStorageSQL

/// `sesame-bench seed`: synthetic users for the benchmarks at scale.
@Suite("Seeding synthetic users")
struct SeedTests {
    @Test("each seed adds users after those seeded before, with their tokens, keys and history")
    func seedSQLite() async throws {
        let storage = try await SQLStorage.sqlite(path: nil)
        #expect(try await storage.seed(users: 3, clientID: "bench-client", now: Date()) == 3)
        #expect(try await storage.seed(users: 2, clientID: "bench-client", now: Date()) == 5)
        let counts = try await storage.executor.read { db in
            try await db.raw(
                """
                SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM refresh_tokens) AS tokens,
                (SELECT count(*) FROM passkey_credentials) AS passkeys, (SELECT count(*) FROM device_credentials) AS devices,
                (SELECT count(*) FROM challenges) AS challenges, (SELECT count(*) FROM deliveries) AS deliveries,
                (SELECT count(*) FROM audit_events) AS audit
                """
            ).first().map { row in
                try ["users", "tokens", "passkeys", "devices", "challenges", "deliveries", "audit"].map { try row.int($0) }
            }
        }
        // One old challenge and delivery per user, and a code sent and a login for the audit.
        #expect(counts == [5, 5, 5, 5, 5, 5, 10])
        try await storage.shutdown()
    }
}

extension PostgresConformanceTests {
    /// The failure: every storage operation has a deadline (5 s by default) so that a request
    /// never waits on an unreachable database, and a seed's chunk of 50,000 users is one
    /// transaction that takes longer than that on a busy machine; the seed failed with "no
    /// answer within 5 seconds". Bulk work has no deadline; requests keep theirs. (Runs with
    /// the conformance suite, alone, so the short deadline is not met by a busy machine.)
    @Test("bulk work outlives a request's deadline; a request's transaction does not", .enabled(if: url != nil))
    func bulkWithoutDeadline() async throws {
        let url = try #require(Self.url)
        let schema = Self.uniqueSchema("seed_")
        // Migrated under a generous deadline first, so the short one below meets no migration.
        try await SQLStorage.postgres(url: url, maxConnections: 2, schema: schema, timeout: .seconds(60)).shutdown()
        let storage = try await SQLStorage.postgres(url: url, maxConnections: 2, schema: schema, timeout: .seconds(2))
        do {
            await #expect(throws: StorageError.self) {
                try await storage.executor.transaction { try await $0.raw("SELECT pg_sleep(3)").run() }
            }
            try await storage.executor.bulkTransaction { try await $0.raw("SELECT pg_sleep(3)").run() }
            #expect(try await storage.seed(users: 3, clientID: "bench-client", now: Date()) == 3)
        } catch {
            try? await storage.shutdown()
            throw error
        }
        try await storage.shutdown()
    }
}

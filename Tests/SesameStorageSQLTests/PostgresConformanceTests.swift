import Foundation
import SesameStorageConformance
import SesameStorageSQL
import Testing

/// The same conformance suite on PostgreSQL, when `SESAME_TEST_POSTGRES_URL` names a server
/// (`scripts/test` starts one on 127.0.0.1). Each check works in a schema of its own.
@Suite("PostgreSQL storage conformance")
struct PostgresConformanceTests {
    static let url = ProcessInfo.processInfo.environment["SESAME_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    @Test("the suite runs on PostgreSQL, or says why it does not")
    func availability() {
        if Self.url == nil {
            print("NOTICE: SESAME_TEST_POSTGRES_URL is not set: the PostgreSQL conformance run is skipped")
        }
    }

    @Test("PostgreSQL", .enabled(if: url != nil), arguments: StorageConformance.checks)
    func postgres(_ check: ConformanceCheck) async throws {
        let schema = "conformance_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        // A generous deadline: these checks test semantics, and many run at once against one server.
        let store = try await SQLStorage.postgres(
            url: try #require(Self.url), maxConnections: 8, schema: schema, timeout: .seconds(60))
        do {
            try await check.run(store, TestClock())
        } catch {
            try? await store.shutdown()
            throw error
        }
        try await store.shutdown()
    }

    @Test("instances that start together migrate once", .enabled(if: url != nil))
    func concurrentMigrations() async throws {
        let url = try #require(Self.url)
        let schema = "migrate_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let stores = try await withThrowingTaskGroup(of: SQLStorage.self) { group in
            for _ in 0..<4 {
                group.addTask { try await SQLStorage.postgres(url: url, maxConnections: 2, schema: schema, timeout: .seconds(60)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 4)
        for store in stores { try await store.shutdown() }
    }
}

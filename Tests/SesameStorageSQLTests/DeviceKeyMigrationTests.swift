import Foundation
import SQLKit
import SesameCore
import Testing

@testable import SesameStorageSQL

@Suite("Migration 0002_device_keys")
struct DeviceKeyMigrationTests {
    /// A database made before device keys: its default application gains the JWT-bearer grant,
    /// other applications keep exactly the grants their operator chose.
    @Test("an existing default application gains the JWT-bearer grant; others do not")
    func defaultApplicationGrant() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await SQLStorage.sqlite(path: path)
        let oldGrants = GrantType.defaults.filter { $0 != GrantType.jwtBearer }
        for (id, isDefault) in [("default-app", true), ("other-app", false)] {
            try await store.createApplication(
                Application(
                    clientID: id, clientSecret: nil, name: id, type: .native, grantTypes: oldGrants, isDefault: isDefault,
                    createdAt: Date()))
        }
        // Rewind to before 0002, then migrate again, as an upgrade would.
        try await store.executor.write { db in
            for table in ["device_credentials", "device_assertions", "device_nonces", "admin_tokens"] {
                try await db.raw("DROP TABLE \(unsafeRaw: table)").run()
            }
            try await db.raw("DELETE FROM schema_migrations WHERE id = '0002_device_keys'").run()
        }
        try await store.migrate()
        #expect(try await store.application(clientID: "default-app")?.grantTypes == oldGrants + [GrantType.jwtBearer])
        #expect(try await store.application(clientID: "other-app")?.grantTypes == oldGrants)
        try await store.migrate()
        #expect(try await store.application(clientID: "default-app")?.grantTypes.count == oldGrants.count + 1, "idempotent")
        try await store.shutdown()
    }
}

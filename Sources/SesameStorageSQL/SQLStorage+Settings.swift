public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: SettingsRepository {
    public func storedSettings() async throws -> [String: String] {
        try await executor.read { db in
            let rows = try await db.raw("SELECT key, value FROM settings").all()
            return Dictionary(
                uniqueKeysWithValues: try rows.map {
                    (try $0.string("key"), try self.opened(try $0.string("value"), SealedColumn.setting))
                })
        }
    }

    public func updateSettings(set values: [String: String], remove keys: [String], at: Date) async throws {
        let values = try values.mapValues { try sealed($0, SealedColumn.setting) }
        try await executor.transaction { db in
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try await db.raw(
                    """
                    INSERT INTO settings (key, value, updated_at) VALUES (\(bind: key), \(bind: value), \(bind: at.sqlValue))
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                    """
                ).run()
            }
            for key in keys { try await db.raw("DELETE FROM settings WHERE key = \(bind: key)").run() }
        }
    }
}

extension SQLStorage: StorageHealth {
    public func ping() async throws {
        try await executor.read { db in _ = try await db.raw("SELECT 1 AS one").first() }
    }
}

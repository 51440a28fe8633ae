import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: MessageTemplateRepository {
    /// The cache key of the override list (the only entry of ``cachedTemplates``).
    private static let allTemplates = "all"

    public func setMessageTemplate(_ template: MessageTemplateOverride) async throws {
        defer { cachedTemplates.invalidate(Self.allTemplates) }
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO message_templates (name, language, scope, body, updated_at) VALUES (\(bind: template.name),
                \(bind: template.language), \(bind: template.scope.key), \(bind: template.body),
                \(bind: template.updatedAt.sqlValue))
                ON CONFLICT (name, language, scope) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
                """
            ).run()
        }
    }

    public func messageTemplates() async throws -> [MessageTemplateOverride] {
        // Read for every message sent: kept a few seconds, as applications are.
        try await cachedTemplates.value(for: Self.allTemplates) {
            try await executor.read { db in
                try await db.raw("SELECT * FROM message_templates ORDER BY name, language, scope").all()
                    .compactMap(Self.template(from:))
            }
        } ?? []
    }

    public func deleteMessageTemplate(name: String, language: String, scope: MessageTemplateOverride.Scope) async throws
        -> Bool
    {
        defer { cachedTemplates.invalidate(Self.allTemplates) }
        return try await executor.write { db in
            try await db.raw(
                """
                DELETE FROM message_templates WHERE name = \(bind: name) AND language = \(bind: language)
                AND scope = \(bind: scope.key) RETURNING name
                """
            ).first() != nil
        }
    }

    /// An override row; nil for a scope this version does not know (written by a newer one).
    private static func template(from row: any SQLRow) throws -> MessageTemplateOverride? {
        guard let scope = MessageTemplateOverride.Scope(key: try row.string("scope")) else { return nil }
        return MessageTemplateOverride(
            name: try row.string("name"), language: try row.string("language"), scope: scope, body: try row.string("body"),
            updatedAt: try row.date("updated_at"))
    }
}

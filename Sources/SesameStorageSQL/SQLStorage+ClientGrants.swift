import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: ClientGrantRepository {
    public func createClientGrant(_ grant: ClientGrant) async throws {
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO client_grants (id, client_id, audience, scope, created_at)
                VALUES (\(bind: grant.id), \(bind: grant.clientID), \(bind: grant.audience),
                \(bind: grant.scope.joined(separator: " ")), \(bind: grant.createdAt.sqlValue))
                """
            ).run()
        }
    }

    public func clientGrant(id: String) async throws -> ClientGrant? {
        try await executor.read { db in
            try await db.raw("SELECT * FROM client_grants WHERE id = \(bind: id)").first().map(Self.clientGrant(from:))
        }
    }

    public func clientGrant(clientID: String, audience: String) async throws -> ClientGrant? {
        try await executor.read { db in
            try await db.raw(
                "SELECT * FROM client_grants WHERE client_id = \(bind: clientID) AND audience = \(bind: audience)"
            ).first().map(Self.clientGrant(from:))
        }
    }

    public func clientGrants(clientID: String?, audience: String?) async throws -> [ClientGrant] {
        var conditions: [SQLQueryString] = []
        if let clientID { conditions.append("client_id = \(bind: clientID)") }
        if let audience { conditions.append("audience = \(bind: audience)") }
        let filter: SQLQueryString = conditions.isEmpty ? "" : "WHERE \(conditions.joined(separator: " AND "))"
        return try await executor.read { db in
            try await db.raw("SELECT * FROM client_grants \(filter) ORDER BY created_at, id").all()
                .map(Self.clientGrant(from:))
        }
    }

    public func updateClientGrant(id: String, _ transform: @escaping @Sendable (inout ClientGrant) throws -> Void)
        async throws -> ClientGrant
    {
        try await executor.transaction { db in
            guard let row = try await db.raw("SELECT * FROM client_grants WHERE id = \(bind: id)").first() else {
                throw StorageError.notFound("client grant \(id)")
            }
            var grant = try Self.clientGrant(from: row)
            try transform(&grant)
            try await db.raw(
                "UPDATE client_grants SET scope = \(bind: grant.scope.joined(separator: " ")) WHERE id = \(bind: id)"
            ).run()
            var stored = try Self.clientGrant(from: row)
            stored.scope = grant.scope
            return stored
        }
    }

    public func deleteClientGrant(id: String) async throws {
        let deleted = try await executor.write { db in
            try await db.raw("DELETE FROM client_grants WHERE id = \(bind: id) RETURNING id").all().count
        }
        if deleted == 0 { throw StorageError.notFound("client grant \(id)") }
    }

    private static func clientGrant(from row: any SQLRow) throws -> ClientGrant {
        ClientGrant(
            id: try row.string("id"), clientID: try row.string("client_id"), audience: try row.string("audience"),
            scope: try row.string("scope").split(separator: " ").map(String.init), createdAt: try row.date("created_at"))
    }
}

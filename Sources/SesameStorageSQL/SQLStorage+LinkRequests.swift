public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: LinkRequestRepository {
    public func createLinkRequest(_ request: LinkRequest) async throws {
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO link_requests (id, poll_secret_hash, challenge_id, client_id, connection, recipient, match_code,
                status, user_id, created_at, expires_at, decided_at, ip) VALUES (\(bind: request.id),
                \(bind: Data(request.pollSecretHash)), \(bind: request.challengeID), \(bind: request.clientID),
                \(bind: request.connection), \(bind: request.recipient), \(bind: request.matchCode),
                \(bind: request.status.rawValue), \(bind: request.userID), \(bind: request.createdAt.sqlValue),
                \(bind: request.expiresAt.sqlValue), \(bind: request.decidedAt?.sqlValue), \(bind: request.ip))
                """
            ).run()
        }
    }

    public func linkRequest(id: String) async throws -> LinkRequest? {
        try await executor.read { db in
            try await db.raw("SELECT * FROM link_requests WHERE id = \(bind: id)").first().map(Self.linkRequest(from:))
        }
    }

    public func linkRequest(pollSecretHashes hashes: [[UInt8]]) async throws -> LinkRequest? {
        try await executor.read { db in
            for hash in hashes {
                if let row = try await db.raw("SELECT * FROM link_requests WHERE poll_secret_hash = \(bind: Data(hash))").first()
                {
                    return try Self.linkRequest(from: row)
                }
            }
            return nil
        }
    }

    public func transitionLinkRequest(
        id: String, from: LinkRequest.Status, to: LinkRequest.Status, userID: String?, at: Date
    ) async throws -> Bool {
        try await executor.write { db in
            // An optional fragment rather than `COALESCE($n, user_id)`: PostgreSQL cannot type
            // an unbound NULL parameter.
            let user: SQLQueryString = userID.map { ", user_id = \(bind: $0)" } ?? ""
            // The status in the WHERE clause makes the update the gate: one caller moves it.
            return try await db.raw(
                """
                UPDATE link_requests SET status = \(bind: to.rawValue),
                decided_at = COALESCE(decided_at, \(bind: at.sqlValue)) \(user)
                WHERE id = \(bind: id) AND status = \(bind: from.rawValue) AND expires_at > \(bind: at.sqlValue) RETURNING id
                """
            ).first() != nil
        }
    }

    private static func linkRequest(from row: any SQLRow) throws -> LinkRequest {
        // A status this version does not know fails closed: nothing can finish or approve it.
        let status = LinkRequest.Status(rawValue: try row.string("status")) ?? .denied
        return LinkRequest(
            id: try row.string("id"), pollSecretHash: try row.bytes("poll_secret_hash"),
            challengeID: try row.string("challenge_id"), clientID: try row.string("client_id"),
            connection: try row.string("connection"), recipient: try row.string("recipient"),
            matchCode: try row.string("match_code"), status: status, userID: try row.optionalString("user_id"),
            createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
            decidedAt: try row.optionalDate("decided_at"), ip: try row.optionalString("ip"))
    }
}

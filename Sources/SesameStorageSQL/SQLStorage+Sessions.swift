public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: BrowserSessionRepository {
    public func createBrowserSession(_ session: BrowserSession) async throws {
        let methods = try jsonText(session.methods)
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO browser_sessions (id, secret_hash, user_id, methods, created_at, auth_time, last_seen_at,
                expires_at, ip, user_agent, revoked_at) VALUES (\(bind: session.id), \(bind: Data(session.secretHash)),
                \(bind: session.userID), \(bind: methods), \(bind: session.createdAt.sqlValue),
                \(bind: session.authTime.sqlValue), \(bind: session.lastSeenAt.sqlValue), \(bind: session.expiresAt.sqlValue),
                \(bind: session.ip), \(bind: session.userAgent), \(bind: session.revokedAt?.sqlValue))
                """
            ).run()
        }
    }

    public func browserSession(secretHashes: [[UInt8]]) async throws -> BrowserSession? {
        try await executor.read { db in
            for hash in secretHashes {
                if let row = try await db.raw("SELECT * FROM browser_sessions WHERE secret_hash = \(bind: Data(hash))").first() {
                    return try Self.browserSession(from: row)
                }
            }
            return nil
        }
    }

    public func touchBrowserSession(id: String, at: Date) async throws {
        try await executor.write { db in
            try await db.raw(
                "UPDATE browser_sessions SET last_seen_at = \(bind: at.sqlValue) WHERE id = \(bind: id) AND last_seen_at < \(bind: at.sqlValue)"
            ).run()
        }
    }

    public func browserSession(id: String) async throws -> BrowserSession? {
        try await executor.read { db in
            try await db.raw("SELECT * FROM browser_sessions WHERE id = \(bind: id)").first().map(Self.browserSession(from:))
        }
    }

    public func browserSessions(userID: String, at: Date) async throws -> [BrowserSession] {
        try await executor.read { db in
            try await db.raw(
                """
                SELECT * FROM browser_sessions WHERE user_id = \(bind: userID) AND revoked_at IS NULL
                AND expires_at > \(bind: at.sqlValue) ORDER BY created_at DESC, id
                """
            ).all().map(Self.browserSession(from:))
        }
    }

    public func allBrowserSessions(at: Date, limit: Int) async throws -> [BrowserSession] {
        try await executor.read { db in
            try await db.raw(
                """
                SELECT * FROM browser_sessions WHERE revoked_at IS NULL AND expires_at > \(bind: at.sqlValue)
                ORDER BY created_at DESC, id LIMIT \(bind: limit)
                """
            ).all().map(Self.browserSession(from:))
        }
    }

    public func revokeBrowserSession(id: String, userID: String?, at: Date) async throws -> Bool {
        try await executor.write { db in
            // An administrator revokes any session; a person only their own.
            let owner: SQLQueryString = userID.map { "AND user_id = \(bind: $0)" } ?? ""
            return try await db.raw(
                """
                UPDATE browser_sessions SET revoked_at = \(bind: at.sqlValue)
                WHERE id = \(bind: id) AND revoked_at IS NULL AND expires_at > \(bind: at.sqlValue) \(owner) RETURNING id
                """
            ).first() != nil
        }
    }

    public func revokeBrowserSessions(userID: String, at: Date) async throws -> Int {
        try await executor.write { db in
            try await db.raw(
                """
                UPDATE browser_sessions SET revoked_at = \(bind: at.sqlValue)
                WHERE user_id = \(bind: userID) AND revoked_at IS NULL RETURNING id
                """
            ).all().count
        }
    }

    private static func browserSession(from row: any SQLRow) throws -> BrowserSession {
        BrowserSession(
            id: try row.string("id"), secretHash: try row.bytes("secret_hash"), userID: try row.string("user_id"),
            methods: try row.json("methods", as: [String].self), createdAt: try row.date("created_at"),
            authTime: try row.date("auth_time"), lastSeenAt: try row.date("last_seen_at"),
            expiresAt: try row.date("expires_at"), ip: try row.optionalString("ip"),
            userAgent: try row.optionalString("user_agent"), revokedAt: try row.optionalDate("revoked_at"))
    }
}

extension SQLStorage {
    public func recordSessionApplication(_ use: SessionApplication) async throws {
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO session_applications (session_id, client_id, sid, created_at, expires_at)
                VALUES (\(bind: use.sessionID), \(bind: use.clientID), \(bind: use.sid), \(bind: use.createdAt.sqlValue),
                \(bind: use.expiresAt.sqlValue)) ON CONFLICT DO NOTHING
                """
            ).run()
        }
    }

    public func sessionApplications(sessionID: String) async throws -> [SessionApplication] {
        try await executor.read { db in
            try await db.raw(
                "SELECT * FROM session_applications WHERE session_id = \(bind: sessionID) ORDER BY created_at, client_id, sid"
            ).all().map { row in
                SessionApplication(
                    sessionID: try row.string("session_id"), clientID: try row.string("client_id"),
                    sid: try row.string("sid"), createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"))
            }
        }
    }
}

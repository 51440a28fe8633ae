public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: PasskeyRepository {
    public func createPasskeySession(_ session: PasskeySession) async throws {
        let pending = try session.pendingUser.map(jsonText)
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO passkey_sessions (id, session_hash, ceremony, client_id, connection, challenge, pending_user,
                created_at, expires_at) VALUES (\(bind: session.id), \(bind: Data(session.sessionHash)),
                \(bind: session.ceremony.rawValue), \(bind: session.clientID), \(bind: session.connection),
                \(bind: Data(session.challenge)), \(bind: pending), \(bind: session.createdAt.sqlValue),
                \(bind: session.expiresAt.sqlValue))
                """
            ).run()
        }
    }

    public func consumePasskeySession(hashes: [[UInt8]], at: Date) async throws -> PasskeySession? {
        try await executor.write { db in
            for hash in hashes {
                // One conditional UPDATE: of concurrent finishers exactly one gets the row back.
                if let row = try await db.raw(
                    """
                    UPDATE passkey_sessions SET consumed_at = \(bind: at.sqlValue)
                    WHERE session_hash = \(bind: Data(hash)) AND consumed_at IS NULL AND expires_at > \(bind: at.sqlValue)
                    RETURNING *
                    """
                ).first() {
                    return try Self.passkeySession(from: row)
                }
            }
            return nil
        }
    }

    public func deleteExpiredPasskeySessions(before date: Date) async throws -> Int {
        try await executor.write { db in
            try await db.raw("DELETE FROM passkey_sessions WHERE expires_at < \(bind: date.sqlValue) RETURNING id").all().count
        }
    }

    public func createPasskey(_ passkey: PasskeyCredential) async throws {
        try await executor.write { db in try await Self.insert(passkey, into: db) }
    }

    public func createUser(_ user: User, withPasskey passkey: PasskeyCredential) async throws {
        try await executor.transaction { db in
            // Counted as a login by the recordLogin that follows, like every other method.
            _ = try await Self.insert(user, into: db, suffix: "")
            try await Self.insert(passkey, into: db)
        }
    }

    public func passkey(id: String) async throws -> PasskeyCredential? {
        try await executor.read { db in
            try await db.raw("SELECT * FROM passkey_credentials WHERE id = \(bind: id)").first().map(Self.passkey(from:))
        }
    }

    public func passkeys(userID: String) async throws -> [PasskeyCredential] {
        try await executor.read { db in
            try await db.raw("SELECT * FROM passkey_credentials WHERE user_id = \(bind: userID) ORDER BY created_at, id")
                .all().map(Self.passkey(from:))
        }
    }

    public func recordPasskeyUse(
        id: String, expectedCount: UInt32, newCount: UInt32, backedUp: Bool, at: Date
    ) async throws -> Bool {
        try await executor.write { db in
            try await db.raw(
                """
                UPDATE passkey_credentials SET sign_count = \(bind: Int64(newCount)), backed_up = \(bind: backedUp.sqlValue),
                last_used_at = \(bind: at.sqlValue)
                WHERE id = \(bind: id) AND sign_count = \(bind: Int64(expectedCount)) AND disabled = 0 RETURNING id
                """
            ).first() != nil
        }
    }

    public func updatePasskey(
        id: String, _ transform: @escaping @Sendable (inout PasskeyCredential) throws -> Void
    ) async throws -> PasskeyCredential {
        try await executor.transaction { db in
            guard let row = try await db.raw("SELECT * FROM passkey_credentials WHERE id = \(bind: id)").first() else {
                throw StorageError.notFound("passkey \(id)")
            }
            var passkey = try Self.passkey(from: row)
            try transform(&passkey)
            try await db.raw(
                """
                UPDATE passkey_credentials SET name = \(bind: passkey.name), disabled = \(bind: passkey.disabled.sqlValue)
                WHERE id = \(bind: id)
                """
            ).run()
            passkey.id = id
            return passkey
        }
    }

    public func deletePasskey(id: String) async throws {
        let deleted = try await executor.write { db in
            try await db.raw("DELETE FROM passkey_credentials WHERE id = \(bind: id) RETURNING id").all().count
        }
        if deleted == 0 { throw StorageError.notFound("passkey \(id)") }
    }

    public func deletePasskeys(userID: String, createdBefore date: Date) async throws -> Int {
        try await executor.write { db in
            try await db.raw(
                """
                DELETE FROM passkey_credentials WHERE user_id = \(bind: userID) AND created_at < \(bind: date.sqlValue)
                RETURNING id
                """
            ).all().count
        }
    }

    private static func insert(_ passkey: PasskeyCredential, into db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO passkey_credentials (id, user_id, name, public_key, algorithm, sign_count, backup_eligible,
            backed_up, format, aaguid, transports, disabled, created_at, last_used_at) VALUES (\(bind: passkey.id),
            \(bind: passkey.userID), \(bind: passkey.name), \(bind: Data(passkey.publicKey)), \(bind: passkey.algorithm),
            \(bind: Int64(passkey.signCount)), \(bind: passkey.backupEligible.sqlValue), \(bind: passkey.backedUp.sqlValue),
            \(bind: passkey.format), \(bind: passkey.aaguid), \(bind: try jsonText(passkey.transports)),
            \(bind: passkey.disabled.sqlValue), \(bind: passkey.createdAt.sqlValue), \(bind: passkey.lastUsedAt?.sqlValue))
            """
        ).run()
    }

    private static func passkey(from row: any SQLRow) throws -> PasskeyCredential {
        PasskeyCredential(
            id: try row.string("id"), userID: try row.string("user_id"), name: try row.string("name"),
            publicKey: try row.bytes("public_key"), algorithm: try row.int("algorithm"),
            signCount: UInt32(clamping: try row.int("sign_count")), backupEligible: try row.bool("backup_eligible"),
            backedUp: try row.bool("backed_up"), format: try row.string("format"), aaguid: try row.string("aaguid"),
            transports: try row.json("transports", as: [String].self), disabled: try row.bool("disabled"),
            createdAt: try row.date("created_at"), lastUsedAt: try row.optionalDate("last_used_at"))
    }

    private static func passkeySession(from row: any SQLRow) throws -> PasskeySession {
        guard let ceremony = PasskeyCeremony(rawValue: try row.string("ceremony")) else {
            throw StorageError.unavailable("unknown passkey ceremony")
        }
        let pending = try row.optionalString("pending_user").map { text in
            try JSONDecoder().decode(User.self, from: Data(text.utf8))
        }
        return PasskeySession(
            id: try row.string("id"), sessionHash: try row.bytes("session_hash"), ceremony: ceremony,
            clientID: try row.string("client_id"), connection: try row.string("connection"),
            challenge: try row.bytes("challenge"), pendingUser: pending, createdAt: try row.date("created_at"),
            expiresAt: try row.date("expires_at"))
    }
}

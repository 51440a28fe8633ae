public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: GrantRepository {
    public func createAuthorizationCode(_ code: AuthorizationCode) async throws {
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO authorization_codes (code_hash, client_id, user_id, redirect_uri, scope, nonce, audience,
                code_challenge, created_at, expires_at, auth_time, identifier_verified, session_id, dpop_jkt)
                VALUES (\(bind: Data(code.codeHash)),
                \(bind: code.clientID), \(bind: code.userID), \(bind: code.redirectURI), \(bind: code.scope),
                \(bind: code.nonce), \(bind: code.audience), \(bind: code.codeChallenge), \(bind: code.createdAt.sqlValue),
                \(bind: code.expiresAt.sqlValue), \(bind: code.authTime?.sqlValue),
                \(bind: code.identifierVerified?.sqlValue), \(bind: code.sessionID), \(bind: code.dpopThumbprint))
                """
            ).run()
        }
    }

    public func consumeAuthorizationCode(hashes: [[UInt8]], at: Date, familyID: String?) async throws -> AuthorizationCode? {
        try await executor.write { db in
            for hash in hashes {
                let row = try await db.raw(
                    """
                    UPDATE authorization_codes SET consumed_at = \(bind: at.sqlValue), family_id = \(bind: familyID)
                    WHERE code_hash = \(bind: Data(hash)) AND consumed_at IS NULL AND expires_at > \(bind: at.sqlValue)
                    RETURNING *
                    """
                ).first()
                if let row { return try Self.authorizationCode(from: row) }
            }
            return nil
        }
    }

    public func revokeReplayedAuthorizationCode(hashes: [[UInt8]], at: Date, until: Date) async throws -> String? {
        try await executor.transaction { db in
            for hash in hashes {
                guard
                    let row = try await db.raw(
                        """
                        SELECT client_id, user_id, family_id FROM authorization_codes WHERE code_hash = \(bind: Data(hash))
                        AND consumed_at IS NOT NULL AND family_id IS NOT NULL AND expires_at > \(bind: at.sqlValue)
                        """
                    ).first()
                else { continue }
                let family = try row.string("family_id")
                try await Self.revokeFamily(family, at: at, db: db)
                // A revoked member of the family, so that its access tokens die even when the
                // exchange issued no refresh token; its hash is the code's, which no refresh token
                // has (another purpose of the HMAC), and a second replay adds nothing.
                try await db.raw(
                    """
                    INSERT INTO refresh_tokens (id, family_id, token_hash, client_id, user_id, scope, audience, created_at,
                    expires_at, rotated_at, revoked_at, auth_time, retried_at) VALUES (\(bind: "replayed-" + family),
                    \(bind: family), \(bind: Data(hash)), \(bind: try row.string("client_id")),
                    \(bind: try row.string("user_id")), '', NULL, \(bind: at.sqlValue), \(bind: until.sqlValue), NULL,
                    \(bind: at.sqlValue), \(bind: at.sqlValue), NULL) ON CONFLICT DO NOTHING
                    """
                ).run()
                return family
            }
            return nil
        }
    }

    public func createRefreshToken(_ token: RefreshToken) async throws {
        try await executor.write { db in try await Self.insert(token, into: db) }
    }

    public func rotateRefreshTokenReadingUser(
        hashes: [[UInt8]], clientID: String, at: Date, reuseInterval: TimeInterval, key: RefreshKeyRequirement,
        replacement: @escaping @Sendable (RefreshToken) -> RefreshToken
    ) async throws -> (RefreshRotation, User?) {
        let spendable = Self.spendable(key)
        let allowed: SQLQueryString = spendable.map { " AND \($0)" } ?? ""
        return try await executor.transaction { db in
            for hash in hashes {
                if let row = try await db.raw(
                    """
                    UPDATE refresh_tokens SET rotated_at = \(bind: at.sqlValue)
                    WHERE token_hash = \(bind: Data(hash)) AND client_id = \(bind: clientID) AND rotated_at IS NULL
                    AND revoked_at IS NULL AND expires_at > \(bind: at.sqlValue)\(allowed) RETURNING *
                    """
                ).first() {
                    let previous = try Self.refreshToken(from: row)
                    try await Self.insert(replacement(previous), into: db)
                    return (.rotated(previous: previous), try await Self.user(named: previous.userID, db))
                }
            }
            if reuseInterval > 0,
                let previous = try await Self.retry(hashes, clientID, at, reuseInterval, allowed, replacement, db)
            {
                return (.retried(previous: previous), try await Self.user(named: previous.userID, db))
            }
            guard let family = try await Self.spentFamily(hashes: hashes, clientID: clientID, allowed, db: db) else {
                // Only a refusal reads the binding again, to say why.
                return (try await Self.isHeldBack(hashes, clientID, by: spendable, db) ? .boundToAnotherKey : .unknown, nil)
            }
            try await Self.revokeFamily(family, at: at, db: db)
            return (.reused(familyID: family), nil)
        }
    }

    /// The stored user a token's `user_id` (`connection|id`) names, or nil.
    private static func user(named userID: String, _ db: any SQLDatabase) async throws -> User? {
        guard let (_, id) = User.parse(userID: userID) else { return nil }
        return try await db.raw(userByID(id)).first().map(Self.user(from:))
    }

    /// The condition that a token is one `key` lets a rotation spend (unbound, or bound to the
    /// presented key); nil when any token is.
    private static func spendable(_ key: RefreshKeyRequirement) -> SQLQueryString? {
        switch key {
        case .any: nil
        case .presented(nil): "dpop_jkt IS NULL"
        case .presented(let thumbprint?): "(dpop_jkt IS NULL OR dpop_jkt = \(bind: thumbprint))"
        }
    }

    /// Whether a token with one of these hashes exists but fails `spendable`: one bound to a
    /// key other than the one presented.
    private static func isHeldBack(
        _ hashes: [[UInt8]], _ clientID: String, by spendable: SQLQueryString?, _ db: any SQLDatabase
    ) async throws -> Bool {
        guard let spendable else { return false }
        let list = SQLList(hashes.map { SQLBind(Data($0)) })
        return try await db.raw(
            """
            SELECT 1 AS held FROM refresh_tokens WHERE token_hash IN (\(list)) AND client_id = \(bind: clientID)
            AND NOT \(spendable)
            """
        ).first() != nil
    }

    /// The one retry of a rotation within the reuse interval: marks it (so a second retry is
    /// reuse) and returns the rotated token, provided its replacement is still unused.
    private static func retry(
        _ hashes: [[UInt8]], _ clientID: String, _ at: Date, _ interval: TimeInterval, _ allowed: SQLQueryString,
        _ replacement: @Sendable (RefreshToken) -> RefreshToken, _ db: any SQLDatabase
    ) async throws -> RefreshToken? {
        let since = at.addingTimeInterval(-interval)
        for hash in hashes {
            guard
                let row = try await db.raw(
                    """
                    UPDATE refresh_tokens SET retried_at = \(bind: at.sqlValue)
                    WHERE token_hash = \(bind: Data(hash)) AND client_id = \(bind: clientID) AND rotated_at IS NOT NULL
                    AND rotated_at >= \(bind: since.sqlValue) AND retried_at IS NULL AND revoked_at IS NULL
                    AND expires_at > \(bind: at.sqlValue)\(allowed) RETURNING *
                    """
                ).first()
            else { continue }
            let previous = try refreshToken(from: row)
            let heir = replacement(previous)
            let live = try await db.raw(
                """
                SELECT id FROM refresh_tokens WHERE token_hash = \(bind: Data(heir.tokenHash))
                AND family_id = \(bind: previous.familyID) AND rotated_at IS NULL AND revoked_at IS NULL
                """
            ).first()
            return live == nil ? nil : previous
        }
        return nil
    }

    public func isRefreshFamilyRevoked(_ familyID: String) async throws -> Bool {
        try await executor.read { db in
            try await db.raw(
                "SELECT id FROM refresh_tokens WHERE family_id = \(bind: familyID) AND revoked_at IS NOT NULL LIMIT 1"
            ).first() != nil
        }
    }

    public func revokeRefreshToken(hashes: [[UInt8]], clientID: String, at: Date) async throws -> Bool {
        try await executor.transaction { db in
            for hash in hashes {
                let row = try await db.raw(
                    "SELECT family_id FROM refresh_tokens WHERE token_hash = \(bind: Data(hash)) AND client_id = \(bind: clientID)"
                ).first()
                if let row {
                    try await Self.revokeFamily(try row.string("family_id"), at: at, db: db)
                    return true
                }
            }
            return false
        }
    }

    public func revokeRefreshTokens(userID: String, at: Date) async throws {
        try await executor.write { db in try await Self.revokeRefreshTokens(userID: userID, at: at, db: db) }
    }

    static func revokeRefreshTokens(userID: String, at: Date, db: any SQLDatabase) async throws {
        try await db.raw(
            "UPDATE refresh_tokens SET revoked_at = \(bind: at.sqlValue) WHERE user_id = \(bind: userID) AND revoked_at IS NULL"
        ).run()
    }

    public func liveRefreshTokens(userID: String, at: Date) async throws -> [RefreshToken] {
        try await executor.read { db in
            try await db.raw(
                """
                SELECT * FROM refresh_tokens WHERE user_id = \(bind: userID) AND \(Self.current(at: at))
                ORDER BY created_at DESC, id
                """
            ).all().map(Self.refreshToken(from:))
        }
    }

    public func liveRefreshToken(familyID: String, at: Date) async throws -> RefreshToken? {
        try await executor.read { db in
            try await db.raw(
                "SELECT * FROM refresh_tokens WHERE family_id = \(bind: familyID) AND \(Self.current(at: at))"
            ).first().map(Self.refreshToken(from:))
        }
    }

    public func revokeRefreshFamily(_ familyID: String, at: Date) async throws -> Bool {
        try await executor.write { db in
            try await db.raw(
                """
                UPDATE refresh_tokens SET revoked_at = \(bind: at.sqlValue)
                WHERE family_id = \(bind: familyID) AND revoked_at IS NULL RETURNING id
                """
            ).all().count > 0
        }
    }

    /// The current token of a live family: not rotated, not revoked, not expired.
    private static func current(at: Date) -> SQLQueryString {
        "rotated_at IS NULL AND revoked_at IS NULL AND expires_at > \(bind: at.sqlValue)"
    }

    /// The family of a token that was already rotated or revoked: presenting it is reuse.
    private static func spentFamily(
        hashes: [[UInt8]], clientID: String, _ allowed: SQLQueryString, db: any SQLDatabase
    ) async throws -> String? {
        for hash in hashes {
            if let row = try await db.raw(
                """
                SELECT family_id FROM refresh_tokens WHERE token_hash = \(bind: Data(hash)) AND client_id = \(bind: clientID)
                AND (rotated_at IS NOT NULL OR revoked_at IS NOT NULL)\(allowed)
                """
            ).first() {
                return try row.string("family_id")
            }
        }
        return nil
    }

    private static func revokeFamily(_ family: String, at: Date, db: any SQLDatabase) async throws {
        try await db.raw(
            "UPDATE refresh_tokens SET revoked_at = \(bind: at.sqlValue) WHERE family_id = \(bind: family) AND revoked_at IS NULL"
        ).run()
    }

    private static func insert(_ token: RefreshToken, into db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO refresh_tokens (id, family_id, token_hash, client_id, user_id, scope, audience, created_at,
            expires_at, rotated_at, revoked_at, auth_time, retried_at, dpop_jkt) VALUES (\(bind: token.id),
            \(bind: token.familyID), \(bind: Data(token.tokenHash)), \(bind: token.clientID), \(bind: token.userID),
            \(bind: token.scope), \(bind: token.audience), \(bind: token.createdAt.sqlValue),
            \(bind: token.expiresAt.sqlValue), \(bind: token.rotatedAt?.sqlValue), \(bind: token.revokedAt?.sqlValue),
            \(bind: token.authTime.sqlValue), \(bind: token.retriedAt?.sqlValue), \(bind: token.dpopThumbprint))
            """
        ).run()
    }

    private static func refreshToken(from row: any SQLRow) throws -> RefreshToken {
        var token = RefreshToken(
            id: try row.string("id"), familyID: try row.string("family_id"), tokenHash: try row.bytes("token_hash"),
            clientID: try row.string("client_id"), userID: try row.string("user_id"), scope: try row.string("scope"),
            audience: try row.optionalString("audience"), createdAt: try row.date("created_at"),
            expiresAt: try row.date("expires_at"), rotatedAt: try row.optionalDate("rotated_at"),
            revokedAt: try row.optionalDate("revoked_at"), authTime: try row.optionalDate("auth_time"),
            retriedAt: try row.optionalDate("retried_at"))
        token.dpopThumbprint = try row.optionalString("dpop_jkt")
        return token
    }

    private static func authorizationCode(from row: any SQLRow) throws -> AuthorizationCode {
        var code = AuthorizationCode(
            codeHash: try row.bytes("code_hash"), clientID: try row.string("client_id"), userID: try row.string("user_id"),
            redirectURI: try row.string("redirect_uri"), scope: try row.string("scope"), nonce: try row.optionalString("nonce"),
            audience: try row.optionalString("audience"), codeChallenge: try row.optionalString("code_challenge"),
            createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
            authTime: try row.optionalDate("auth_time"),
            identifierVerified: try row.decode(column: "identifier_verified", as: Int64?.self).map { $0 != 0 },
            familyID: try row.optionalString("family_id"))
        code.sessionID = try row.optionalString("session_id")
        code.dpopThumbprint = try row.optionalString("dpop_jkt")
        return code
    }
}

public import Foundation
import SQLKit

extension SQLStorage {
    /// Fills the database with `users` synthetic email users for load tests (`sesame-bench
    /// seed`): each with a refresh token, a passkey and a device key, a used code, a sent
    /// delivery and two audit events, all recent enough that the sweeper keeps them. Rows are
    /// made by the database itself (one `INSERT … SELECT` over a generated series per table, in
    /// chunks), so a million users take minutes. Seeded users cannot sign in: their secrets
    /// and keys are random bytes.
    /// - Parameters:
    ///   - users: how many to add; numbering continues after earlier seeds.
    ///   - clientID: the application their tokens and keys belong to.
    ///   - now: the time the rows are stamped around.
    /// - Returns: the number of seeded users now in the database.
    @discardableResult
    public func seed(users: Int, clientID: String, now: Date) async throws -> Int {
        let first = try await seededUsers() + 1
        let chunk = 50_000
        for start in stride(from: first, to: first + users, by: chunk) {
            let end = min(start + chunk, first + users) - 1
            // No request deadline: a chunk takes seconds, more on a busy machine.
            try await executor.bulkTransaction { [flavor = executor.flavor] db in
                for statement in SeedStatements(flavor: flavor, clientID: clientID, now: now.sqlValue).all {
                    try await db.raw(SeedStatements.series(flavor, from: start, to: end) + statement).run()
                }
            }
        }
        return first + users - 1
    }

    private func seededUsers() async throws -> Int {
        try await executor.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM users WHERE id LIKE 'email|seed%'").first().map { try $0.int("n") }
                ?? 0
        }
    }
}

/// The seed's statements: each follows a common table `seq(i)` of user numbers.
private struct SeedStatements {
    let flavor: SQLFlavor
    let clientID: String
    let now: Int64

    /// `WITH seq(i) AS (…)` for the numbers `from…to`, in the dialect's way.
    static func series(_ flavor: SQLFlavor, from: Int, to: Int) -> SQLQueryString {
        switch flavor {
        case .postgres: return "WITH seq(i) AS (SELECT generate_series(\(literal: from), \(literal: to))) "
        case .sqlite:
            return """
                WITH RECURSIVE seq(i) AS (SELECT \(literal: from) UNION ALL SELECT i + 1 FROM seq WHERE i < \(literal: to)) \

                """
        }
    }

    /// Random bytes in each dialect (unique enough for the UNIQUE hash columns).
    private var bytes: String {
        flavor == .sqlite ? "randomblob(32)" : "sha256(('seed' || i || random())::text::bytea)"
    }

    var all: [SQLQueryString] {
        let user = "'email|seed' || i"
        let address = "'seed' || i || '@example.com'"
        let day: Int64 = 86_400_000
        return [
            """
            INSERT INTO users (id, connection, identifier, email, email_verified, phone_verified, blocked, created_at,
            updated_at, last_login, logins_count) SELECT \(unsafeRaw: user), 'email', \(unsafeRaw: address),
            \(unsafeRaw: address), 1, 0, 0, \(literal: now - day), \(literal: now), \(literal: now), 1 FROM seq
            """,
            """
            INSERT INTO refresh_tokens (id, family_id, token_hash, client_id, user_id, scope, created_at, expires_at,
            auth_time) SELECT 'rt_seed' || i, 'fam_seed' || i, \(unsafeRaw: bytes), \(bind: clientID), \(unsafeRaw: user),
            'openid offline_access', \(literal: now), \(literal: now + 30 * day), \(literal: now) FROM seq
            """,
            """
            INSERT INTO passkey_credentials (id, user_id, name, public_key, algorithm, sign_count, backup_eligible,
            backed_up, format, aaguid, transports, disabled, created_at) SELECT 'pk_seed' || i, \(unsafeRaw: user),
            'seed', \(unsafeRaw: bytes), -7, 0, 0, 0, 'none', '00000000-0000-0000-0000-000000000000', '[]', 0,
            \(literal: now) FROM seq
            """,
            """
            INSERT INTO device_credentials (id, user_id, client_id, device_id, device_name, algorithm, public_key,
            fingerprint, key_bits, created_at) SELECT 'dcr_seed' || i, \(unsafeRaw: user), \(bind: clientID),
            'seed' || i, 'seed', 'ES256', \(unsafeRaw: bytes), 'seed' || i, 256, \(literal: now) FROM seq
            """,
            """
            INSERT INTO challenges (id, connection, recipient, client_id, kind, secret_hash, attempts, max_attempts,
            created_at, expires_at, consumed_at) SELECT 'ch_seed' || i, 'email', \(unsafeRaw: address),
            \(bind: clientID), 'code', \(unsafeRaw: bytes), 1, 3, \(literal: now), \(literal: now + day), \(literal: now)
            FROM seq
            """,
            """
            INSERT INTO deliveries (id, channel, recipient, payload, status, attempts, next_attempt_at, deadline,
            created_at, updated_at, sent_at) SELECT 'dl_seed' || i, 'email', \(unsafeRaw: address), \(unsafeRaw: bytes),
            'sent', 1, \(literal: now), \(literal: now + day), \(literal: now), \(literal: now), \(literal: now) FROM seq
            """,
            """
            INSERT INTO audit_events (type, user_id, client_id, ip, detail, at) SELECT 'code_sent', NULL,
            \(bind: clientID), '127.0.0.1', 'email to ' || \(unsafeRaw: address), \(literal: now) FROM seq
            """,
            """
            INSERT INTO audit_events (type, user_id, client_id, ip, detail, at) SELECT 'login_succeeded',
            \(unsafeRaw: user), \(bind: clientID), '127.0.0.1', 'email', \(literal: now) FROM seq
            """,
        ]
    }
}

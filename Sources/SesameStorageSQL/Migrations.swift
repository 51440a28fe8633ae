import Foundation
import SQLKit
import SesameCore

/// One schema step, written per dialect. Applying it and recording it happen in one
/// transaction, so a crash never leaves a half-applied step.
struct Migration: Sendable {
    let id: String
    let sqlite: [String]
    let postgres: [String]

    func statements(for flavor: SQLFlavor) -> [String] { flavor == .sqlite ? sqlite : postgres }
}

/// The ordered schema history. Append only: a shipped migration never changes.
enum Migrations {
    static let all: [Migration] = [
        initial, deviceKeys, passkeys, keyRotation, settings, security, sessions, linkRequests, deliveries, webhooks,
        messageTemplates, auditIndexes, management, codeVerification, codeFamilies, linkRequestOrigin,
        challengeRetries, auditAggregation, sealing, hmacRotation, adminTokenExpiry, machineClients, jobs, resourceServers,
        backchannelLogout, dpop, jobInputPieces,
    ]

    /// Instants are integer milliseconds, booleans 0/1 and hashes raw bytes in both
    /// dialects, so repository SQL is identical on SQLite and PostgreSQL.
    static let initial = Migration(
        id: "0001_initial",
        sqlite: tables(integer: "INTEGER", bytes: "BLOB", serial: "INTEGER PRIMARY KEY AUTOINCREMENT"),
        postgres: tables(integer: "BIGINT", bytes: "BYTEA", serial: "BIGSERIAL PRIMARY KEY"))

    private static func tables(integer int: String, bytes: String, serial: String) -> [String] {
        [
            """
            CREATE TABLE users (id TEXT PRIMARY KEY, connection TEXT NOT NULL, identifier TEXT NOT NULL,
              email TEXT, email_verified \(int) NOT NULL, phone_number TEXT, phone_verified \(int) NOT NULL,
              name TEXT, nickname TEXT, picture TEXT, blocked \(int) NOT NULL, created_at \(int) NOT NULL,
              updated_at \(int) NOT NULL, last_login \(int), logins_count \(int) NOT NULL,
              UNIQUE (connection, identifier))
            """,
            "CREATE INDEX users_created ON users (created_at)",
            """
            CREATE TABLE applications (client_id TEXT PRIMARY KEY, client_secret TEXT, name TEXT NOT NULL,
              type TEXT NOT NULL, is_default \(int) NOT NULL, options TEXT NOT NULL, created_at \(int) NOT NULL)
            """,
            "CREATE TABLE connections (name TEXT PRIMARY KEY, strategy TEXT NOT NULL, options TEXT NOT NULL)",
            """
            CREATE TABLE challenges (seq \(serial), id TEXT NOT NULL UNIQUE, connection TEXT NOT NULL,
              recipient TEXT NOT NULL, client_id TEXT NOT NULL, kind TEXT NOT NULL, secret_hash \(bytes) NOT NULL,
              attempts \(int) NOT NULL, max_attempts \(int) NOT NULL, created_at \(int) NOT NULL,
              expires_at \(int) NOT NULL, consumed_at \(int))
            """,
            "CREATE INDEX challenges_recipient ON challenges (connection, recipient, seq)",
            "CREATE INDEX challenges_expiry ON challenges (expires_at)",
            """
            CREATE TABLE authorization_codes (code_hash \(bytes) PRIMARY KEY, client_id TEXT NOT NULL,
              user_id TEXT NOT NULL, redirect_uri TEXT NOT NULL, scope TEXT NOT NULL, nonce TEXT, audience TEXT,
              code_challenge TEXT, created_at \(int) NOT NULL, expires_at \(int) NOT NULL, consumed_at \(int))
            """,
            """
            CREATE TABLE refresh_tokens (id TEXT PRIMARY KEY, family_id TEXT NOT NULL,
              token_hash \(bytes) NOT NULL UNIQUE, client_id TEXT NOT NULL, user_id TEXT NOT NULL,
              scope TEXT NOT NULL, audience TEXT, created_at \(int) NOT NULL, expires_at \(int) NOT NULL,
              rotated_at \(int), revoked_at \(int))
            """,
            "CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id)",
            "CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id)",
            "CREATE TABLE signing_keys (kid TEXT PRIMARY KEY, private_key_pem TEXT NOT NULL, created_at \(int) NOT NULL)",
            "CREATE TABLE hmac_secrets (seq \(serial), secret \(bytes) NOT NULL, created_at \(int) NOT NULL)",
            "CREATE TABLE rate_limits (key TEXT PRIMARY KEY, window_start \(int) NOT NULL, count \(int) NOT NULL)",
            """
            CREATE TABLE outbox (seq \(serial), id TEXT NOT NULL, channel TEXT NOT NULL, recipient TEXT NOT NULL,
              code TEXT, link TEXT, subject TEXT, body TEXT NOT NULL, created_at \(int) NOT NULL)
            """,
            "CREATE INDEX outbox_recipient ON outbox (recipient, seq)",
            """
            CREATE TABLE audit_events (seq \(serial), type TEXT NOT NULL, user_id TEXT, client_id TEXT, ip TEXT,
              detail TEXT NOT NULL, at \(int) NOT NULL)
            """,
        ]
    }
}

extension Migrations {
    /// Passkeys and the ceremonies that make and use them.
    static let passkeys = Migration(
        id: "0003_passkeys",
        sqlite: passkeyTables(integer: "INTEGER", bytes: "BLOB"),
        postgres: passkeyTables(integer: "BIGINT", bytes: "BYTEA"))

    private static func passkeyTables(integer int: String, bytes: String) -> [String] {
        [
            """
            CREATE TABLE passkey_credentials (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL,
              public_key \(bytes) NOT NULL, algorithm \(int) NOT NULL, sign_count \(int) NOT NULL,
              backup_eligible \(int) NOT NULL, backed_up \(int) NOT NULL, format TEXT NOT NULL, aaguid TEXT NOT NULL,
              transports TEXT NOT NULL, disabled \(int) NOT NULL, created_at \(int) NOT NULL, last_used_at \(int))
            """,
            "CREATE INDEX passkey_credentials_user ON passkey_credentials (user_id, created_at)",
            """
            CREATE TABLE passkey_sessions (id TEXT PRIMARY KEY, session_hash \(bytes) NOT NULL UNIQUE,
              ceremony TEXT NOT NULL, client_id TEXT NOT NULL, connection TEXT NOT NULL, challenge \(bytes) NOT NULL,
              pending_user TEXT, created_at \(int) NOT NULL, expires_at \(int) NOT NULL, consumed_at \(int))
            """,
            "CREATE INDEX passkey_sessions_expiry ON passkey_sessions (expires_at)",
        ]
    }
}

extension SQLStorage {
    /// Instances that start together take turns: on PostgreSQL a transaction-scoped advisory
    /// lock, released at commit; SQLite's `BEGIN IMMEDIATE` already admits one writer.
    static func serializeMigrations(_ db: any SQLDatabase, _ flavor: SQLFlavor) async throws {
        guard flavor == .postgres else { return }
        try await db.raw("SELECT pg_advisory_xact_lock(7365616)").run()
    }

    /// Applies the migrations that have not run yet, each in its own transaction; refuses a
    /// database a newer binary migrated (``SchemaVersionError``), before changing anything.
    /// - Returns: the ids applied now.
    @discardableResult
    public func migrate() async throws -> [String] {
        let flavor = executor.flavor
        try await executor.transaction { db in
            try await Self.serializeMigrations(db, flavor)
            try await db.raw("CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
                .run()
        }
        let status = try await schemaStatus()
        guard status.unknown.isEmpty else { throw SchemaVersionError.newer(status) }
        for migration in Migrations.all where status.pending.contains(migration.id) {
            try await executor.transaction { db in
                try await Self.serializeMigrations(db, flavor)
                let done = try await db.raw("SELECT id FROM schema_migrations WHERE id = \(bind: migration.id)").first()
                guard done == nil else { return }
                for statement in migration.statements(for: flavor) { try await db.raw(SQLQueryString(statement)).run() }
                try await db.raw(
                    "INSERT INTO schema_migrations (id, applied_at) VALUES (\(bind: migration.id), \(bind: Date().epochMilliseconds))"
                ).run()
            }
        }
        return status.pending
    }
}

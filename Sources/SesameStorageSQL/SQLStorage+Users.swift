public import Foundation
import SQLKit
import SesameAPI
public import SesameCore

extension SQLStorage: UserRepository {
    static let userColumns = """
        id, connection, identifier, email, email_verified, phone_number, phone_verified, name, nickname, picture,
        blocked, created_at, updated_at, last_login, logins_count, tokens_valid_after, user_metadata, app_metadata,
        given_name, family_name, provider
        """

    /// ``userColumns`` of the table aliased `alias`, each named with `prefix`, for a statement
    /// that returns a user beside another table's row (``user(from:prefix:)`` reads them).
    static func userColumns(of alias: String, prefix: String) -> String {
        userColumns.split(separator: ",").map { column in
            let name = column.trimmingCharacters(in: .whitespacesAndNewlines)
            return "\(alias).\(name) AS \(prefix)\(name)"
        }.joined(separator: ", ")
    }

    public func createUser(_ user: User) async throws {
        _ = try await executor.write { db in try await Self.insert(user, into: db, suffix: "") }
    }

    public func user(id: String) async throws -> User? {
        try await executor.read { db in
            try await db.raw(Self.userByID(id)).first().map(Self.user(from:))
        }
    }

    public func user(connection: String, identifier: String) async throws -> User? {
        try await executor.read { db in
            try await db.raw(Self.userByIdentifier(connection: connection, identifier: identifier)).first()
                .map(Self.user(from:))
        }
    }

    /// The user with this id (without its connection).
    static func userByID(_ id: String) -> SQLQueryString {
        "SELECT \(unsafeRaw: userColumns) FROM users WHERE id = \(bind: id)"
    }

    static func userByIdentifier(connection: String, identifier: String) -> SQLQueryString {
        """
        SELECT \(unsafeRaw: userColumns) FROM users
        WHERE connection = \(bind: connection) AND identifier = \(bind: identifier)
        """
    }

    public func listUsers(limit: Int, offset: Int) async throws -> [User] {
        try await executor.read { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.userColumns) FROM users ORDER BY created_at DESC, id
                LIMIT \(bind: limit) OFFSET \(bind: offset)
                """
            ).all().map(Self.user(from:))
        }
    }

    public func updateUser(id: String, _ transform: @escaping @Sendable (inout User) throws -> Void) async throws -> User {
        try await executor.transaction { db in try await Self.updateUser(id: id, transform, db: db) }
    }

    /// Reads the user, applies `transform` and saves it, inside the caller's transaction.
    static func updateUser(
        id: String, _ transform: @Sendable (inout User) throws -> Void, db: any SQLDatabase
    ) async throws -> User {
        guard let row = try await db.raw(Self.userByID(id)).first()
        else { throw StorageError.notFound("user \(id)") }
        var user = try Self.user(from: row)
        try transform(&user)
        try await db.raw(
            """
            UPDATE users SET identifier = \(bind: user.identifier), email = \(bind: user.email),
            email_verified = \(bind: user.emailVerified.sqlValue),
            phone_number = \(bind: user.phoneNumber), phone_verified = \(bind: user.phoneVerified.sqlValue),
            name = \(bind: user.name), nickname = \(bind: user.nickname), picture = \(bind: user.picture),
            blocked = \(bind: user.blocked.sqlValue), updated_at = \(bind: user.updatedAt.sqlValue),
            tokens_valid_after = \(bind: user.tokensValidAfter?.sqlValue),
            user_metadata = \(bind: try metadataText(user.userMetadata)),
            app_metadata = \(bind: try metadataText(user.appMetadata)), given_name = \(bind: user.givenName),
            family_name = \(bind: user.familyName)
            WHERE id = \(bind: id)
            """
        ).run()
        return user
    }

    public func deleteUser(id: String, at: Date) async throws {
        try await executor.transaction { db in
            guard let row = try await db.raw("DELETE FROM users WHERE id = \(bind: id) RETURNING connection").first() else {
                throw StorageError.notFound("user \(id)")
            }
            let userID = "\(try row.string("connection"))|\(id)"
            try await Self.revokeRefreshTokens(userID: userID, at: at, db: db)
            // The user's roles and permissions go too: a new user given the same id by an
            // import must not inherit them.
            try await db.raw("DELETE FROM user_roles WHERE user_id = \(bind: userID)").run()
            try await db.raw("DELETE FROM user_permissions WHERE user_id = \(bind: userID)").run()
        }
    }

    public func setUserBlocked(id: String, _ blocked: Bool, at: Date) async throws -> User {
        // A block ends every token issued so far, not only refresh tokens: access tokens
        // without a family, authorization codes and browser sessions would otherwise come
        // back to life at the unblock.
        let validAfter: SQLQueryString = blocked ? ", tokens_valid_after = \(bind: at.sqlValue)" : ""
        return try await executor.transaction { db in
            guard
                let row = try await db.raw(
                    """
                    UPDATE users SET blocked = \(bind: blocked.sqlValue), updated_at = \(bind: at.sqlValue)\(validAfter)
                    WHERE id = \(bind: id) RETURNING \(unsafeRaw: Self.userColumns)
                    """
                ).first()
            else { throw StorageError.notFound("user \(id)") }
            let user = try Self.user(from: row)
            if blocked { try await Self.revokeRefreshTokens(userID: user.userID, at: at, db: db) }
            return user
        }
    }

    public func recordLogin(_ newUser: User, at: Date) async throws -> User {
        try await executor.write { db in try await Self.recordLogin(newUser, at: at, db) }
    }

    public func recordLogin(_ newUser: User, at: Date, audit: @escaping @Sendable (User) -> [AuditEvent]) async throws
        -> User
    {
        try await executor.transaction { db in try await Self.recordLogin(newUser, at: at, db, audit: audit) }
    }

    public func recordLogin(_ newUser: User, at: Date, audit: LoginAudit) async throws -> User {
        guard let user = try await recordLogin(newUser, at: at, audit: audit, claim: nil) else {
            throw StorageError.unavailable("recordLogin returned no row")
        }
        return user
    }

    /// The login and its outcome's events, after `claim` (a statement returning a row when it
    /// wins) when there is one: nil, with nothing written, when the claim loses.
    func recordLogin(_ newUser: User, at: Date, audit: LoginAudit, claim: SQLQueryString?) async throws -> User? {
        guard executor.flavor == .postgres else {
            return try await executor.transaction { db in
                if let claim, try await db.raw(claim).first() == nil { return nil }
                return try await Self.recordLogin(newUser, at: at, db) { audit.events(for: $0) }
            }
        }
        // PostgreSQL: the claim, the upsert and its outcome's events as one statement, instead
        // of BEGIN, each statement and COMMIT. The upsert reads the claim's row, so it writes
        // nothing when the claim returns none.
        let row = try await executor.write { db in
            try await Self.insert(
                newUser, into: db, prefix: claim.map { "WITH c AS (\($0)), u AS (" } ?? "WITH u AS (",
                onlyIf: claim == nil ? nil : "EXISTS (SELECT 1 FROM c)",
                suffix: """
                    \(Self.loginUpsert(at: at)) RETURNING \(unsafeRaw: Self.userColumns)),
                    \(Self.auditOutcome(audit)) SELECT * FROM u
                    """,
                login: at)
        }
        if claim != nil, row == nil { return nil }
        guard let row else { throw StorageError.unavailable("recordLogin returned no row") }
        return try Self.user(from: row)
    }

    /// Appends, from the user `u` a login stored, the events `audit` holds for its outcome,
    /// in their order. The outcome and the user's identifier are chosen as
    /// ``LoginAudit/outcome(of:)`` and ``User/userID`` choose them.
    private static func auditOutcome(_ audit: LoginAudit) -> SQLQueryString {
        var rows: [SQLQueryString] = []
        for outcome in LoginAudit.Outcome.allCases {
            for event in audit.events[outcome] ?? [] {
                rows.append(
                    """
                    (\(bind: outcome.rawValue), \(bind: rows.count), \(bind: event.type), \(bind: event.clientID),
                    \(bind: event.ip), \(bind: event.detail), \(bind: event.at.sqlValue))
                    """)
            }
        }
        guard !rows.isEmpty else { return "a AS (SELECT 1)" }
        return """
            a AS (INSERT INTO audit_events (type, user_id, client_id, ip, detail, at)
              SELECT e.type, u.connection || '|' || u.id, e.client_id, e.ip, e.detail, e.at
              FROM u, (VALUES \(rows.joined(separator: ", "))) AS e (outcome, ord, type, client_id, ip, detail, at)
              WHERE e.outcome = CASE WHEN u.blocked <> 0 THEN 'blocked' WHEN u.logins_count = 1 THEN 'created'
                ELSE 'returning' END
              ORDER BY e.ord)
            """
    }

    private static func recordLogin(_ newUser: User, at: Date, _ db: any SQLDatabase) async throws -> User {
        // One statement: concurrent first logins of one address create one user.
        let row = try await Self.insert(
            newUser, into: db, suffix: "\(loginUpsert(at: at)) RETURNING \(unsafeRaw: Self.userColumns)", login: at)
        guard let row else { throw StorageError.unavailable("recordLogin returned no row") }
        return try Self.user(from: row)
    }

    /// The login, and the events `audit` makes of the stored user, on `db` (in a transaction).
    private static func recordLogin(
        _ newUser: User, at: Date, _ db: any SQLDatabase, audit: (User) -> [AuditEvent]
    ) async throws -> User {
        let user = try await recordLogin(newUser, at: at, db)
        let events = audit(user)
        if !events.isEmpty { try await db.raw(insert(events)).run() }
        return user
    }

    /// What a login does to a user who exists. The time is bound, not written into the SQL:
    /// one statement text for every login, prepared once.
    private static func loginUpsert(at: Date) -> SQLQueryString {
        """
        ON CONFLICT (connection, identifier) DO UPDATE SET logins_count = users.logins_count + 1,
        last_login = \(bind: at.sqlValue), updated_at = \(bind: at.sqlValue)
        """
    }

    @discardableResult
    static func insert(
        _ user: User, into db: any SQLDatabase, prefix: SQLQueryString = "", onlyIf condition: SQLQueryString? = nil,
        suffix: SQLQueryString, login: Date? = nil
    ) async throws -> (any SQLRow)? {
        // With a condition, the row is inserted from a one-row VALUES list filtered by it. There
        // PostgreSQL types a NULL parameter as text, not as its target column, so the nullable
        // integer columns are cast.
        let source: SQLQueryString = condition == nil ? "VALUES (" : "SELECT * FROM (VALUES ("
        let filter: SQLQueryString = condition.map { ") AS v WHERE \($0)" } ?? ""
        func integer(_ value: Int64?) -> SQLQueryString {
            condition == nil ? "\(bind: value)" : "CAST(\(bind: value) AS BIGINT)"
        }
        return try await db.raw(
            """
            \(prefix)INSERT INTO users (\(unsafeRaw: userColumns)) \(source)\(bind: user.id), \(bind: user.connection),
            \(bind: user.identifier), \(bind: user.email), \(bind: user.emailVerified.sqlValue), \(bind: user.phoneNumber),
            \(bind: user.phoneVerified.sqlValue), \(bind: user.name), \(bind: user.nickname), \(bind: user.picture),
            \(bind: user.blocked.sqlValue), \(bind: user.createdAt.sqlValue), \(bind: (login ?? user.updatedAt).sqlValue),
            \(integer((login ?? user.lastLogin)?.sqlValue)), \(bind: login == nil ? user.loginsCount : 1),
            \(integer(user.tokensValidAfter?.sqlValue)), \(bind: try metadataText(user.userMetadata)),
            \(bind: try metadataText(user.appMetadata)), \(bind: user.givenName), \(bind: user.familyName),
            \(bind: user.provider))\(filter) \(suffix)
            """
        ).first()
    }

    static func user(from row: any SQLRow) throws -> User {
        try user(from: row, prefix: "")
    }

    /// The user in `row`, in the columns ``userColumns(of:prefix:)`` names with `prefix`.
    static func user(from row: any SQLRow, prefix: String) throws -> User {
        var user = User(
            id: try row.string(prefix + "id"), connection: try row.string(prefix + "connection"),
            identifier: try row.string(prefix + "identifier"),
            email: try row.optionalString(prefix + "email"), emailVerified: try row.bool(prefix + "email_verified"),
            phoneNumber: try row.optionalString(prefix + "phone_number"), phoneVerified: try row.bool(prefix + "phone_verified"),
            name: try row.optionalString(prefix + "name"), nickname: try row.optionalString(prefix + "nickname"),
            picture: try row.optionalString(prefix + "picture"), blocked: try row.bool(prefix + "blocked"),
            createdAt: try row.date(prefix + "created_at"), updatedAt: try row.date(prefix + "updated_at"),
            lastLogin: try row.optionalDate(prefix + "last_login"), loginsCount: try row.int(prefix + "logins_count"),
            tokensValidAfter: try row.optionalDate(prefix + "tokens_valid_after"))
        user.userMetadata = try row.metadata(prefix + "user_metadata")
        user.appMetadata = try row.metadata(prefix + "app_metadata")
        user.givenName = try row.optionalString(prefix + "given_name")
        user.familyName = try row.optionalString(prefix + "family_name")
        user.provider = try row.optionalString(prefix + "provider")
        return user
    }
}

extension SQLStorage {
    public func searchUsers(_ search: UserSearch) async throws -> [User] {
        try await executor.read { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.userColumns) FROM users \(Self.condition(search.match))
                ORDER BY created_at DESC, id LIMIT \(bind: search.limit) OFFSET \(bind: search.offset)
                """
            ).all().map(Self.user(from:))
        }
    }

    public func countUsers(_ search: UserSearch) async throws -> Int {
        try await executor.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM users \(Self.condition(search.match))").first()?.int("n") ?? 0
        }
    }

    /// The `WHERE` clause of a search; `LIKE` patterns escape `%`, `_` and the escape itself,
    /// so the text is matched as typed.
    private static func condition(_ match: UserSearch.Match) -> SQLQueryString {
        switch match {
        case .all:
            return ""
        case .email(let email):
            return "WHERE LOWER(email) = \(bind: email.lowercased())"
        case .phoneNumber(let phone):
            return "WHERE phone_number = \(bind: phone)"
        case .containing(let text):
            let escaped = text.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            let pattern = "%\(escaped)%"
            return """
                WHERE LOWER(email) LIKE \(bind: pattern) ESCAPE '\\' OR phone_number LIKE \(bind: pattern) ESCAPE '\\'
                """
        }
    }
}

extension SQLRow {
    /// A metadata column, nil when it holds no field. Almost every user's metadata is `{}`,
    /// and every login reads the user more than once, so that case skips the decoder.
    func metadata(_ column: String) throws -> [String: JSONValue]? {
        let text = try string(column)
        guard text != "{}" else { return nil }
        let metadata = try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
        return metadata.isEmpty ? nil : metadata
    }
}

/// Metadata as its column's JSON text; no metadata is `{}`, written without the encoder.
func metadataText(_ metadata: [String: JSONValue]?) throws -> String {
    guard let metadata, !metadata.isEmpty else { return "{}" }
    return try jsonText(metadata)
}

import Foundation
public import Logging
import SQLKit
import SesameCore

/// The SQL backend of every repository protocol. The statements are shared by SQLite and
/// PostgreSQL; only the ``SQLExecutor`` and the migrations differ.
public final class SQLStorage: Sendable {
    let executor: any SQLExecutor
    /// Applications and connections by key, for a second (see ``ReadCache``).
    let cachedApplications = ReadCache<Application>(lifetime: .seconds(1))
    let cachedConnections = ReadCache<Connection>(lifetime: .seconds(1))
    /// The webhook endpoints, read for every audited event: an endpoint added by another
    /// instance or the CLI is seen within two seconds.
    let cachedWebhooks = ReadCache<[WebhookEndpoint]>(lifetime: .seconds(2))
    /// The message template overrides, read for every message sent; likewise.
    let cachedTemplates = ReadCache<[MessageTemplateOverride]>(lifetime: .seconds(2))
    /// The seal of the secret columns, once ``unseal(with:random:)`` has opened it.
    let sealHolder = SealHolder()

    init(executor: any SQLExecutor) {
        self.executor = MeasuredExecutor(executor)
    }

    /// Opens (creating if needed) an SQLite database file and brings its schema up to date.
    /// - Parameters:
    ///   - path: the file, or nil for a private in-memory database (tests).
    ///   - migrate: false leaves the schema as it is (`sesame admin migrate`, `serve --no-migrate`).
    public static func sqlite(
        path: String?, migrate: Bool = true, logger: Logger = Logger(label: "sesame.sqlite")
    ) async throws -> SQLStorage {
        let executor = try await SQLiteExecutor.open(path: path, logger: logger)
        let storage = SQLStorage(executor: executor)
        if migrate { try await storage.migrating() }
        // A fresh database's migrations left the writer 0.3 MB of pages and statements that
        // serving does not use; freed now, the rest of the start reuses the memory
        // (docs/performance.md).
        executor.releaseMemory()
        return storage
    }

    /// Migrates, closing the connections when that fails (a refused newer schema included).
    private func migrating() async throws {
        do {
            try await migrate()
        } catch {
            try? await shutdown()
            throw error
        }
    }

    /// Connects to PostgreSQL and brings its schema up to date; instances that start
    /// together migrate one at a time.
    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database[?sslmode=disable|prefer|require]`.
    ///   - maxConnections: the connection pool's size.
    ///   - schema: a schema to work in instead of `public` (created when missing).
    ///   - timeout: the longest one storage operation may wait, connecting included.
    ///   - preparedStatements: whether statements run as named prepared statements, planned
    ///     once per connection (`database_prepared_statements`; off for a pooler that cannot
    ///     keep them, such as PgBouncer before 1.21 in transaction mode).
    ///   - migrate: false leaves the schema as it is (`sesame admin migrate`, `serve --no-migrate`).
    public static func postgres(
        url: String, maxConnections: Int = 20, schema: String? = nil, timeout: Duration = .seconds(5),
        preparedStatements: Bool = true, migrate: Bool = true, logger: Logger = Logger(label: "sesame.postgres")
    ) async throws -> SQLStorage {
        let executor = try PostgresExecutor.open(
            url: url, maxConnections: maxConnections, searchPath: schema, timeout: timeout,
            preparedStatements: preparedStatements, logger: logger)
        let storage = SQLStorage(executor: executor)
        if let schema {
            // Under the migration lock: concurrent CREATE SCHEMA IF NOT EXISTS can still collide.
            try await storage.executor.transaction { db in
                try await serializeMigrations(db, .postgres)
                try await db.raw("CREATE SCHEMA IF NOT EXISTS \(ident: schema)").run()
            }
        }
        if migrate { try await storage.migrating() }
        try await executor.learnIsolation()
        return storage
    }

    /// Closes the database connections.
    public func shutdown() async throws {
        try await executor.shutdown()
    }
}

extension Bool {
    /// Booleans are stored as 0/1 in both dialects.
    var sqlValue: Int { self ? 1 : 0 }
}

extension Date {
    /// Instants are stored as integer milliseconds.
    var sqlValue: Int64 { epochMilliseconds }
}

extension SQLRow {
    func string(_ column: String) throws -> String { try decode(column: column, as: String.self) }
    func optionalString(_ column: String) throws -> String? { try decode(column: column, as: String?.self) }
    func int(_ column: String) throws -> Int { Int(try decode(column: column, as: Int64.self)) }
    func bool(_ column: String) throws -> Bool { try decode(column: column, as: Int64.self) != 0 }
    func date(_ column: String) throws -> Date { Date(epochMilliseconds: try decode(column: column, as: Int64.self)) }
    func optionalDate(_ column: String) throws -> Date? {
        try decode(column: column, as: Int64?.self).map(Date.init(epochMilliseconds:))
    }
    func bytes(_ column: String) throws -> [UInt8] { [UInt8](try decode(column: column, as: Data.self)) }

    /// Decodes a JSON text column into `T`.
    func json<T: Decodable>(_ column: String, as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(try string(column).utf8))
    }
}

/// JSON text for option columns.
func jsonText(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

import SQLKit

/// Where a database's schema stands against the migrations this binary knows. The schema's
/// version is the number of migrations applied, named by the last one's id: both come from
/// ``Migrations/all``, so a new migration moves the version without another edit.
public struct SchemaStatus: Sendable, Equatable {
    /// This binary's migrations, in order.
    public let known: [String]
    /// The migrations recorded in the database, in id order.
    public let applied: [String]

    /// Known migrations the database has not had yet.
    public var pending: [String] { known.filter { !applied.contains($0) } }
    /// Migrations the database has that this binary does not know: a newer binary ran there.
    public var unknown: [String] { applied.filter { !known.contains($0) } }
    /// The schema version this binary brings a database to.
    public var binaryVersion: SchemaVersion { SchemaVersion(ids: known) }
    /// The database's schema version.
    public var databaseVersion: SchemaVersion { SchemaVersion(ids: applied) }
    /// True when the database is exactly at this binary's version.
    public var isCurrent: Bool { pending.isEmpty && unknown.isEmpty }
}

/// A schema version: how many migrations, and the last one's id (`18 (0018_audit_aggregation)`).
public struct SchemaVersion: Sendable, Equatable, CustomStringConvertible {
    public let number: Int
    public let lastID: String?

    init(ids: [String]) {
        number = ids.count
        lastID = ids.last
    }

    public var description: String { lastID.map { "\(number) (\($0))" } ?? "0 (empty)" }
}

/// Why storage will not open a database: its schema is newer than this binary knows, or (when
/// migrating was left to `sesame admin migrate up`) older.
public struct SchemaVersionError: Error, CustomStringConvertible {
    public let status: SchemaStatus
    public let description: String

    /// A database migrated by a newer Sesame: this one could misread what it does not know.
    public static func newer(_ status: SchemaStatus) -> SchemaVersionError {
        SchemaVersionError(
            status: status,
            description: "the database schema is at version \(status.databaseVersion), newer than this binary's "
                + "version \(status.binaryVersion) (it does not know \(status.unknown.joined(separator: ", "))): "
                + "run the newer Sesame, or restore a backup taken before the upgrade")
    }

    /// A database this binary would have to migrate, when told not to.
    public static func older(_ status: SchemaStatus) -> SchemaVersionError {
        SchemaVersionError(
            status: status,
            description: "the database schema is at version \(status.databaseVersion), older than this binary's "
                + "version \(status.binaryVersion) (\(status.pending.count) migration(s) pending): "
                + "run `sesame admin migrate up` first (started with --no-migrate)")
    }
}

extension SQLStorage {
    /// The schema against this binary's migrations; nothing is changed.
    public func schemaStatus() async throws -> SchemaStatus {
        let flavor = executor.flavor
        let applied = try await executor.read { db in
            guard try await Self.hasMigrationTable(db, flavor) else { return [String]() }
            return try await db.raw("SELECT id FROM schema_migrations ORDER BY id").all().map { try $0.string("id") }
        }
        return SchemaStatus(known: Migrations.all.map(\.id), applied: applied)
    }

    /// Throws unless the schema is exactly this binary's (for `serve --no-migrate`).
    public func requireCurrentSchema() async throws {
        let status = try await schemaStatus()
        if !status.unknown.isEmpty { throw SchemaVersionError.newer(status) }
        if !status.pending.isEmpty { throw SchemaVersionError.older(status) }
    }

    private static func hasMigrationTable(_ db: any SQLDatabase, _ flavor: SQLFlavor) async throws -> Bool {
        let query: SQLQueryString =
            flavor == .sqlite
            ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
            : "SELECT table_name AS name FROM information_schema.tables WHERE table_name = 'schema_migrations' AND table_schema = current_schema()"
        return try await db.raw(query).first() != nil
    }
}

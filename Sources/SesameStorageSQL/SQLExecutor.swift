import SQLKit
import SesameCore

/// How a backend runs statements: the only part of storage that differs between SQLite and
/// PostgreSQL besides the migrations. Repositories are written once against it.
protocol SQLExecutor: Sendable {
    /// Which SQL dialect the migrations use.
    var flavor: SQLFlavor { get }
    /// Runs read-only statements (may use a separate reader connection).
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs one self-contained write statement atomically.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs several statements in one transaction: all or nothing.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs several statements in one transaction without the deadline a request's operation
    /// has: bulk work (a copy, a seed) lasts as long as its data.
    func bulkTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body` holding a lock that excludes every other process using this database.
    func withExclusiveLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
    /// Rewrites the database so no deleted or replaced value stays in a free page or a log
    /// (after secrets are sealed in place); a no-op where the server manages its own files.
    func compact() async throws
    /// Closes the connections.
    func shutdown() async throws
}

extension SQLExecutor {
    /// A backend whose transactions have no deadline runs bulk work as any other transaction.
    func bulkTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await transaction(body)
    }

    /// PostgreSQL keeps its files to itself: a replaced row is gone once vacuumed, which
    /// autovacuum does, and nothing here can reach its disk pages or log.
    func compact() async throws {}
}

/// The SQL dialects with migrations.
enum SQLFlavor: Sendable { case sqlite, postgres }

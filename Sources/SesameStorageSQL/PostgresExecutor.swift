import Foundation
import Logging
import NIOSSL
import PostgresKit
import PostgresNIO
import SQLKit
import SesameCore
import Synchronization

/// PostgreSQL through a postgres-nio connection pool: every instance of Sesame shares one
/// database, and PostgreSQL's row locks make the single-use updates atomic across them.
final class PostgresExecutor: SQLExecutor {
    let flavor = SQLFlavor.postgres
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger
    private let timeout: Duration
    /// The names of the statements run prepared; nil runs every statement unnamed.
    private let statements: PostgresStatementRegistry?
    /// Whether each `write` runs inside BEGIN and COMMIT (``learnIsolation()``).
    private let explicitCommits = Atomic<Bool>(false)

    private init(client: PostgresClient, timeout: Duration, preparedStatements: Bool, logger: Logger) {
        self.client = client
        self.timeout = timeout
        self.logger = logger
        statements = preparedStatements ? PostgresStatementRegistry() : nil
        runner = Task { await client.run() }
    }

    /// Connects to `url` (`postgres://user:password@host:port/database?sslmode=…`).
    /// - Parameters:
    ///   - maxConnections: the pool size.
    ///   - searchPath: a schema to use instead of `public` (tests isolate themselves this way).
    ///   - preparedStatements: run statements as named prepared statements (``PostgresStatementDatabase``).
    static func open(
        url: String, maxConnections: Int, searchPath: String?, timeout: Duration, preparedStatements: Bool = true,
        logger: Logger
    ) throws -> PostgresExecutor {
        var configuration = try PostgresURL.configuration(url)
        configuration.options.maximumConnections = maxConnections
        // No keep-alive pings: the pool arms a keep-alive timer (a task group, a sleep and a
        // dispatch timer) each time it parks a connection, that is after every operation, and
        // cancels it at the next lease: 12 % of a login's context switches. A connection idle
        // for `connectionIdleTimeout` (60 s) is closed anyway (no minimum is kept), well before the idle
        // timeouts of NAT gateways and load balancers (4 minutes and up) that pings guard against.
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectTimeout = timeout
        if let searchPath { configuration.options.additionalStartupParameters.append(("search_path", searchPath)) }
        return PostgresExecutor(
            client: PostgresClient(configuration: configuration, backgroundLogger: logger), timeout: timeout,
            preparedStatements: preparedStatements, logger: logger)
    }

    private func database(_ connection: PostgresConnection) -> any SQLDatabase {
        statements.map { PostgresStatementDatabase(connection: connection, registry: $0) } ?? connection.sql()
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await bounded(by: timeout) { [client] in try await client.withConnection { try await body(self.database($0)) } }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if explicitCommits.load(ordering: .relaxed) { return try await transaction(body) }
        return try await bounded(by: timeout) { [client] in
            try await client.withConnection { try await body(self.database($0)) }
        }
    }

    /// Reads the server's default isolation and, at SERIALIZABLE, makes every `write` commit
    /// explicitly. A lone statement commits when the server reaches the Sync after it, and
    /// SERIALIZABLE may refuse that commit (40001) after the statement has already reported
    /// itself complete; postgres-nio has then handed the result over as a success, and only
    /// closes the connection. A write rolled back but acknowledged: a delivery claimed by
    /// two workers, a code consumed twice. A COMMIT of its own reports the refusal as its
    /// answer, and the write is retried. Other levels never refuse a commit (Sesame has no
    /// deferred constraints), so their writes keep the one round trip.
    func learnIsolation() async throws {
        let level = try await read { db in
            try await db.raw("SHOW transaction_isolation").first()?.decode(column: "transaction_isolation", as: String.self)
        }
        explicitCommits.store(level == "serializable", ordering: .relaxed)
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await transaction(within: timeout, body)
    }

    func bulkTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await transaction(within: nil, body)
    }

    /// A transaction with its own deadline, or none: copying a whole deployment takes as long
    /// as its data, not as long as one request may wait.
    private func transaction<T: Sendable>(
        within deadline: Duration?, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T
    ) async throws -> T {
        try await bounded(by: deadline) { [client, logger] in
            try await client.withTransaction(logger: logger) { try await body(self.database($0)) }
        }
    }

    /// Runs one storage operation with a deadline. While the database is unreachable the pool
    /// keeps retrying in the background; a request must not wait for that, so it fails with
    /// ``StorageError/unavailable`` (a 503) and the next one finds the pool reconnected.
    /// An operation cut off here is never reported as done, so nothing acknowledged is lost.
    /// The deadline does not wait for a query stuck on a connection the server dropped.
    /// A nil `deadline` waits as long as the operation takes.
    private func bounded<T: Sendable>(
        by deadline: Duration?, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let attempt: @Sendable () async throws -> T = { [self] in
            try await mapErrors { try await Self.retryingConflicts(operation) }
        }
        guard let timeout = deadline else { return try await attempt() }
        return try await withDeadline(
            timeout, timeoutError: { StorageError.unavailable("postgres: no answer within \(timeout)") }, attempt)
    }

    /// Runs `operation` again when the database rolled it back for a conflict it may not
    /// have with the next attempt: a serialization failure (40001: SERIALIZABLE isolation,
    /// the default of CockroachDB and of servers configured so) or a deadlock (40P01).
    /// Safe because the attempt was rolled back whole: every `write` body is one statement,
    /// and several statements always run in a `transaction`. The operation's deadline still
    /// bounds all attempts together.
    private static func retryingConflicts<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T {
        for attempt in 1... {
            do {
                return try await operation()
            } catch let error where attempt < maxAttempts && (isConflict(error) || isStale(error)) {
                // A little jitter, growing, so the racers do not collide again in step.
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...5) * attempt))
            }
        }
        fatalError("unreachable: the last attempt returns or throws")
    }

    private static let maxAttempts = 8

    private static func isConflict(_ error: any Error) -> Bool {
        guard let state = serverError(error)?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    /// A prepared statement gone stale (``PostgresStatementRegistry/isStale(_:)``): the
    /// registry has already named it afresh, so the next attempt prepares it again.
    private static func isStale(_ error: any Error) -> Bool {
        serverError(error).map(PostgresStatementRegistry.isStale) ?? false
    }

    private static func serverError(_ error: any Error) -> PSQLError.ServerInfo? {
        let cause = (error as? PostgresTransactionError).flatMap { $0.closureError ?? $0.commitError ?? $0.beginError } ?? error
        return (cause as? PSQLError)?.serverInfo
    }

    /// A session-level advisory lock, held on one leased connection while `body` runs its
    /// statements on others.
    func withExclusiveLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await mapErrors {
            try await client.withConnection { connection in
                let db = connection.sql()
                try await db.raw("SELECT pg_advisory_lock(\(unsafeRaw: String(Self.setupLockKey)))").run()
                do {
                    let result = try await body()
                    try await db.raw("SELECT pg_advisory_unlock(\(unsafeRaw: String(Self.setupLockKey)))").run()
                    return result
                } catch {
                    try? await db.raw("SELECT pg_advisory_unlock(\(unsafeRaw: String(Self.setupLockKey)))").run()
                    throw error
                }
            }
        }
    }

    /// Distinct from the migration lock, which is taken inside transactions.
    static let setupLockKey = 7_365_617

    func shutdown() async throws {
        runner.cancel()
        _ = await runner.value
    }

    /// Translates driver errors into ``StorageError`` in one place.
    private func mapErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            // The transaction was rolled back; what matters is why.
            let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError
            throw cause.map(Self.translate) ?? StorageError.unavailable("postgres: transaction failed")
        } catch let error as PSQLError {
            throw Self.translate(error)
        } catch let error as StorageError {
            throw error
        } catch {
            // Pool errors (its circuit breaker while the server is down), cancellation.
            throw StorageError.unavailable("postgres: \(error)")
        }
    }

    private static func translate(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError else { return error }
        // 23505 unique_violation, 23P01 exclusion_violation.
        if let state = error.serverInfo?[.sqlState], state == "23505" || state == "23P01" {
            return StorageError.alreadyExists(error.serverInfo?[.message] ?? "duplicate")
        }
        return StorageError.unavailable("postgres: \(error.serverInfo?[.message] ?? "\(error.code)")")
    }
}

/// `postgres://` URLs, as libpq and every PostgreSQL host write them.
enum PostgresURL {
    /// The client configuration for `url`. TLS follows `sslmode`: `disable`, `prefer` (TLS when
    /// the server offers it) or `require`/`verify-full` (TLS or fail). Without `sslmode`, a
    /// server on loopback gets `prefer` and any other `require`: across a network, a
    /// downgrade to plaintext would expose every code hash, token and secret in transit.
    static func configuration(_ url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty, let user = components.user
        else {
            throw StorageError.unavailable("database URL must look like postgres://user:password@host:5432/database")
        }
        let database = components.path.split(separator: "/").first.map(String.init)
        let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? defaultSSLMode(host: host)
        let tls = try tlsMode(mode)
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user.removingPercentEncoding ?? user,
            password: components.password?.removingPercentEncoding, database: database, tls: tls)
        if let options = components.queryItems?.first(where: { $0.name == "options" })?.value {
            configuration.options.additionalStartupParameters = try serverSettings(options)
        }
        return configuration
    }

    /// libpq's `sslmode` values, in the order they are listed in errors.
    static let sslModes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// The TLS setting for `sslmode` `mode`. An unknown value is refused rather than read as
    /// `prefer`: a typo such as `requre` must not quietly allow a plaintext connection.
    static func tlsMode(_ mode: String) throws -> PostgresClient.Configuration.TLS {
        switch mode {
        case "disable": return .disable
        case "allow", "prefer": return .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": return .require(.makeClientConfiguration())
        default:
            throw StorageError.unavailable(
                "database URL sslmode '\(mode)' is unknown; use one of \(sslModes.joined(separator: ", "))")
        }
    }

    /// `prefer` for a server on this machine, `require` for any other.
    static func defaultSSLMode(host: String) -> String {
        let local = host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.") || host.hasPrefix("/")
        return local ? "prefer" : "require"
    }

    /// libpq's `options` parameter, `-c name=value` (or `--name=value`) pairs separated by
    /// spaces: server settings for every connection, e.g. `options=-c statement_timeout=5000`.
    static func serverSettings(_ options: String) throws -> [(String, String)] {
        var settings: [(String, String)] = []
        var words = options.split(separator: " ").map(String.init)[...]
        while let word = words.popFirst() {
            let assignment: String
            if word == "-c", let next = words.popFirst() {
                assignment = next
            } else if word.hasPrefix("-c") {
                assignment = String(word.dropFirst(2))
            } else if word.hasPrefix("--") {
                assignment = String(word.dropFirst(2))
            } else {
                throw StorageError.unavailable("database URL options: '\(word)' is not -c name=value")
            }
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw StorageError.unavailable("database URL options: '\(assignment)' is not name=value")
            }
            settings.append((parts[0].replacingOccurrences(of: "-", with: "_"), parts[1]))
        }
        return settings
    }
}

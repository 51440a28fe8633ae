import Foundation
import Logging
import SQLKit
import SesameCore
import Synchronization

/// SQLite as docs/design.md ("Storage rules") describes: one writer connection whose jobs run one
/// batch at a time in `BEGIN IMMEDIATE` transactions (``GroupCommitWriter``), separate reader
/// connections, WAL. Statements run on the calling thread through ``SQLiteHandle``, each
/// connection keeping its prepared statements.
final class SQLiteExecutor: SQLExecutor {
    let flavor = SQLFlavor.sqlite
    private let writer: SQLiteHandle
    private let readers: [SQLiteDirectDatabase]
    private let batches: GroupCommitWriter
    private let checkpointer: SQLiteCheckpointer?
    private let next = Atomic<Int>(0)
    /// The file, nil for a private in-memory database.
    private let path: String?

    private init(
        path: String?, writer: SQLiteHandle, readers: [SQLiteHandle], checkpointer: SQLiteCheckpointer?, logger: Logger
    ) {
        self.path = path
        self.writer = writer
        self.checkpointer = checkpointer
        self.batches = GroupCommitWriter(
            database: SQLiteDirectDatabase(handle: writer, logger: logger),
            betweenBatches: { checkpointer?.catchUp(with: writer) })
        self.readers = readers.map { SQLiteDirectDatabase(handle: $0, logger: logger) }
    }

    /// Opens `path` (or a private in-memory database when nil) with `readerCount` readers.
    /// A reader is held only for one statement, on the thread of the task that reads, so one
    /// for each of the cores Swift's task pool runs on serves every read: four on two cores
    /// added a sixth of a megabyte of idle memory each and no speed (docs/performance.md).
    static func open(
        path: String?, readerCount: Int = max(2, ProcessInfo.processInfo.activeProcessorCount), logger: Logger
    ) async throws -> SQLiteExecutor {
        let writer = try SQLiteHandle(path: path)
        // Every job of a batch runs in a SAVEPOINT, whose statement journal holds the original of
        // each page the job changes; past 64 KB SQLite spills it to a temporary file, opened
        // and written anew in every transaction. Kept in memory, it costs no system call.
        //
        // New files get 2 KB pages, not SQLite's 4 KB: a login changes about 25 pages, mostly
        // leaves of indexes on random keys, and each is written to the log and copied back.
        // Half the page is half the bytes written, checksummed and copied, and a 2 KB frame
        // spans fewer of the kernel's pages; email-code logins rose by about 6 %, refresh
        // grants did not change, and 1 KB pages made them 5 % slower (docs/performance.md).
        // A file keeps the page size it was made with.
        var pragmas = [
            "PRAGMA page_size=2048", "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON",
            "PRAGMA temp_store=MEMORY",
        ]
        // A file's log is checkpointed by SQLiteCheckpointer, off the writer; once checkpointed
        // it is cut back to 64 MB, so a burst of writes does not leave a large file behind.
        if path != nil { pragmas += ["PRAGMA wal_autocheckpoint=0", "PRAGMA journal_size_limit=67108864"] }
        for pragma in pragmas { try writer.run(pragma, []) { _ in } }
        // An in-memory database is private to its connection, so it gets no readers.
        let readers = try path.map { path in try (0..<readerCount).map { _ in try SQLiteHandle(path: path) } } ?? []
        let checkpointer = try path.map { try SQLiteCheckpointer(path: $0) }
        // After the pragmas: `wal_autocheckpoint` would take the checkpointer's place.
        if let checkpointer { writer.observeCommits(checkpointer.logGrew(to:)) }
        return SQLiteExecutor(path: path, writer: writer, readers: readers, checkpointer: checkpointer, logger: logger)
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        guard !readers.isEmpty else { return try await write(body) }
        let index = next.wrappingAdd(1, ordering: .relaxed).newValue % readers.count
        return try await mapErrors { try await body(readers[index]) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await mapErrors { try await batches.submit(transaction: false, body) }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await mapErrors { try await batches.submit(transaction: true, body) }
    }

    /// One process owns an SQLite file in practice, and the setup it guards is idempotent
    /// within a process; `BEGIN IMMEDIATE` already serialises the writes themselves.
    func withExclusiveLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await body()
    }

    /// `VACUUM` and a truncating checkpoint on a connection of their own: the file is written
    /// afresh and the log emptied. Meant for start-up, before requests arrive.
    func compact() async throws {
        guard let path else { return }
        let handle = try SQLiteHandle(path: path)
        defer { handle.close() }
        try handle.run("VACUUM", []) { _ in }
        try handle.run("PRAGMA wal_checkpoint(TRUNCATE)", []) { _ in }
    }

    /// Lets go of the writer's cached pages and statements: after the migrations, which filled
    /// them with what a serving writer does not use, before the rest of the start allocates.
    func releaseMemory() {
        writer.releaseMemory()
    }

    func shutdown() async throws {
        checkpointer?.stop()
        writer.close()
        for reader in readers { reader.handle.close() }
    }

    /// Translates driver errors into ``StorageError`` in one place.
    private func mapErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SQLiteFailure {
            guard error.isConstraint else { throw StorageError.unavailable("sqlite: \(error.message)") }
            throw StorageError.alreadyExists(error.message)
        }
    }
}

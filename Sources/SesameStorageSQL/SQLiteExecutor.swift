import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import SQLiteNIO
import SesameCore
import Synchronization

/// SQLite as docs/design.md ("Storage rules") describes: one writer connection whose jobs run one
/// batch at a time in `BEGIN IMMEDIATE` transactions (``GroupCommitWriter``), separate reader
/// connections, WAL, and SQLite's own thread pools (the shared 2-thread pool deadlocks when
/// callers wait on each other).
final class SQLiteExecutor: SQLExecutor {
    let flavor = SQLFlavor.sqlite
    private let writer: SQLiteConnection
    private let readers: [SQLiteConnection]
    private let pools: [NIOThreadPool]
    private let batches: GroupCommitWriter
    private let next = Atomic<Int>(0)

    private init(writer: SQLiteConnection, readers: [SQLiteConnection], pools: [NIOThreadPool]) {
        self.writer = writer
        self.batches = GroupCommitWriter(connection: writer)
        self.readers = readers
        self.pools = pools
    }

    /// Opens `path` (or a private in-memory database when nil) with `readerCount` readers.
    static func open(path: String?, readerCount: Int = 2, logger: Logger) async throws -> SQLiteExecutor {
        let writerPool = NIOThreadPool(numberOfThreads: 1)
        let readerPool = NIOThreadPool(numberOfThreads: max(1, readerCount))
        writerPool.start()
        readerPool.start()
        // An in-memory database is private to its connection, so it gets no readers.
        let storage: SQLiteConnection.Storage = path.map { .file(path: $0) } ?? .memory
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let writer = try await SQLiteConnection.open(storage: storage, threadPool: writerPool, logger: logger, on: loop).get()
        for pragma in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"] {
            _ = try await writer.query(pragma)
        }
        var readers: [SQLiteConnection] = []
        if path != nil {
            for _ in 0..<readerCount {
                readers.append(
                    try await SQLiteConnection.open(storage: storage, threadPool: readerPool, logger: logger, on: loop).get())
            }
        }
        return SQLiteExecutor(writer: writer, readers: readers, pools: [writerPool, readerPool])
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        guard !readers.isEmpty else { return try await write(body) }
        let index = next.wrappingAdd(1, ordering: .relaxed).newValue % readers.count
        return try await mapErrors { try await body(readers[index].sql()) }
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

    func shutdown() async throws {
        try await writer.close()
        for reader in readers { try await reader.close() }
        for pool in pools { try await pool.shutdownGracefully() }
    }

    /// Translates driver errors into ``StorageError`` in one place.
    private func mapErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SQLiteError {
            switch error.reason {
            case .constraint, .constraintUniqueFailed, .constraintPrimaryKeyFailed:
                throw StorageError.alreadyExists(error.message)
            default:
                throw StorageError.unavailable("sqlite: \(error.message)")
            }
        }
    }
}

import NIOCore
import SQLiteNIO
import Synchronization
import VaporCSQLite

/// One SQLite connection used synchronously, with its prepared statements kept.
///
/// SQLiteNIO runs every statement as a job on a thread pool whose result comes back through an
/// event loop to the waiting task: three thread hops per statement, which made the kernel's
/// scheduler the largest cost of a login (docs/performance.md). A statement here runs on the
/// calling thread, under the connection's lock, in microseconds; the prepared statement is
/// reused the next time the same SQL text comes.
final class SQLiteHandle: Sendable {
    private struct Prepared {
        let statement: OpaquePointer
        let columns: SQLiteColumns
    }

    private struct State: ~Copyable {
        var connection: OpaquePointer?
        var statements: [String: Prepared] = [:]
        var commits: CommitObserver?

        /// The connection, or the refusal every use of a closed handle gets.
        func open() throws -> OpaquePointer {
            guard let connection else { throw SQLiteFailure(code: SQLITE_MISUSE, message: "closed") }
            return connection
        }

        /// Finalizes every kept statement and forgets it.
        mutating func finalizeStatements() {
            for prepared in statements.values { sqlite_nio_sqlite3_finalize(prepared.statement) }
            statements = [:]
        }
    }

    /// What ``observeCommits(_:)`` calls, kept alive for as long as SQLite may call it.
    private final class CommitObserver: Sendable {
        let logSize: @Sendable (Int) -> Void

        init(_ logSize: @escaping @Sendable (Int) -> Void) { self.logSize = logSize }
    }

    /// Enough for every statement the repositories write; dynamic statements beyond it (search
    /// filters, IN lists) are prepared for one use.
    private static let cacheLimit = 256
    private let state: Mutex<State>

    /// Opens `path` (nil: a private in-memory database), waiting up to `busyTimeout` ms for
    /// another process's write lock.
    init(path: String?, busyTimeout: Int32 = 5_000) throws {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let connection = try Self.openConnection(path ?? ":memory:", flags: flags, busyTimeout: busyTimeout)
        sqlite_nio_sqlite3_extended_result_codes(connection, 1)
        state = Mutex(State(connection: connection))
    }

    /// A raw connection to `path` opened with `flags`, which the caller closes.
    static func openConnection(_ path: String, flags: Int32, busyTimeout: Int32 = 5_000) throws -> OpaquePointer {
        var connection: OpaquePointer?
        let opened = sqlite_nio_sqlite3_open_v2(path, &connection, flags, nil)
        guard opened == SQLITE_OK, let connection else {
            let message = connection.flatMap { sqlite_nio_sqlite3_errmsg($0).map { String(cString: $0) } } ?? "cannot open"
            sqlite_nio_sqlite3_close(connection)
            throw SQLiteFailure(code: opened, message: message)
        }
        sqlite_nio_sqlite3_busy_timeout(connection, busyTimeout)
        return connection
    }

    /// Runs `sql` with `binds`, passing each result row to `onRow`.
    func run(_ sql: String, _ binds: [SQLiteData], onRow: (SQLiteValues) throws -> Void) throws {
        try state.withLock { state in
            let connection = try state.open()
            let cached = state.statements[sql]
            let prepared = try cached ?? Self.prepare(sql, on: connection)
            defer { Self.release(prepared, sql: sql, cached: cached != nil, in: &state) }
            try Self.bind(binds, to: prepared.statement, on: connection)
            while true {
                let step = sqlite_nio_sqlite3_step(prepared.statement)
                if step == SQLITE_DONE { return }
                guard step == SQLITE_ROW else { throw SQLiteFailure(step, connection) }
                try onRow(SQLiteValues(columns: prepared.columns, values: Self.row(prepared.statement)))
            }
        }
    }

    /// A passive checkpoint of the main database (it never waits for the writer or readers),
    /// through SQLite's call rather than `PRAGMA wal_checkpoint`: a statement would make a
    /// connection that runs nothing else read and parse the whole schema first, and map the
    /// parser's code back into an idle server half a second after each start.
    /// - Returns: the log's frames and how many of them are now in the database file.
    /// - Throws: ``SQLiteFailure`` (`SQLITE_BUSY` when another checkpoint runs).
    @discardableResult
    func checkpoint() throws -> (logFrames: Int, copied: Int) {
        try state.withLock { state in
            let connection = try state.open()
            var (log, copied): (Int32, Int32) = (0, 0)
            let result = sqlite_nio_sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
            guard result == SQLITE_OK else { throw SQLiteFailure(result, connection) }
            return (Int(log), Int(copied))
        }
    }

    /// Finalizes the kept statements and frees the cached pages no transaction holds: each is
    /// read or prepared again when next needed.
    func releaseMemory() {
        state.withLock { state in
            state.finalizeStatements()
            if let connection = state.connection { sqlite_nio_sqlite3_db_release_memory(connection) }
        }
    }

    /// How many prepared statements are kept for reuse.
    var keptStatements: Int { state.withLock { $0.statements.count } }

    /// Calls `logSize` after each commit of this connection, on the committing thread, with the
    /// number of frames in the write-ahead log: it must be quick, since the commit's caller
    /// waits for it. It takes the place of SQLite's automatic checkpoint, as
    /// `PRAGMA wal_autocheckpoint` would take its place; so either is set after the other.
    func observeCommits(_ logSize: @escaping @Sendable (Int) -> Void) {
        state.withLock { state in
            guard let connection = state.connection else { return }
            let observer = CommitObserver(logSize)
            state.commits = observer
            sqlite_nio_sqlite3_wal_hook(connection, Self.afterCommit, Unmanaged.passUnretained(observer).toOpaque())
        }
    }

    private static let afterCommit:
        @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = {
            observer, _, _, frames in
            if let observer { Unmanaged<CommitObserver>.fromOpaque(observer).takeUnretainedValue().logSize(Int(frames)) }
            return SQLITE_OK
        }

    /// Finalizes the statements and closes the connection.
    func close() {
        state.withLock { state in
            state.finalizeStatements()
            sqlite_nio_sqlite3_close(state.connection)
            state.connection = nil
            state.commits = nil
        }
    }

    private static func prepare(_ sql: String, on connection: OpaquePointer) throws -> Prepared {
        var statement: OpaquePointer?
        let result = sqlite_nio_sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw SQLiteFailure(result, connection) }
        let count = sqlite_nio_sqlite3_column_count(statement)
        let names = (0..<count).map { String(cString: sqlite_nio_sqlite3_column_name(statement, $0)) }
        return Prepared(statement: statement, columns: SQLiteColumns(names: names))
    }

    /// Resets a statement for its next use and keeps it, unless the cache is full or it
    /// changes the schema.
    ///
    /// Its bindings are left in place, not cleared: `sqlite3_clear_bindings` marks a statement
    /// whose plan looked at a bound value as expired, so SQLite compiled such statements again
    /// on every use (the code check's attempt `UPDATE` among them: 1.5 % of an email-code
    /// login; docs/performance.md). Every run binds every parameter (``bind(_:to:on:)``).
    /// - Parameter cached: whether it came from the cache, so the SQL text (often a few hundred
    ///   bytes) is hashed once per run, not twice.
    private static func release(_ prepared: Prepared, sql: String, cached: Bool, in state: inout State) {
        sqlite_nio_sqlite3_reset(prepared.statement)
        if cached { return }
        if state.statements.count < cacheLimit && !changesSchema(sql) {
            state.statements[sql] = prepared
        } else {
            sqlite_nio_sqlite3_finalize(prepared.statement)
        }
    }

    /// Whether `sql` creates, alters or drops a table or index: a migration's statement, run
    /// once in the life of a database. Kept prepared, the writer held a migration's hundreds of
    /// them for the life of the process (0.35 MB of an idle server's memory), and each schema
    /// change makes SQLite prepare every kept statement again before its next use anyway.
    static func changesSchema(_ sql: String) -> Bool {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x0A || byte == 0x09 }
        let verb = sql.utf8.drop(while: isSpace).prefix { !isSpace($0) }
        return ["CREATE", "ALTER", "DROP"].contains { verb.elementsEqual($0.utf8) }
    }

    /// Binds every parameter of `statement`; a count that differs is refused, so no value of
    /// an earlier run can stand in for a missing one.
    private static func bind(_ binds: [SQLiteData], to statement: OpaquePointer, on connection: OpaquePointer) throws {
        let parameters = Int(sqlite_nio_sqlite3_bind_parameter_count(statement))
        guard binds.count == parameters else {
            throw SQLiteFailure(code: SQLITE_RANGE, message: "\(binds.count) values for \(parameters) parameters")
        }
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .integer(let integer): result = sqlite_nio_sqlite3_bind_int64(statement, index, Int64(integer))
            case .float(let double): result = sqlite_nio_sqlite3_bind_double(statement, index, double)
            case .null: result = sqlite_nio_sqlite3_bind_null(statement, index)
            case .text(let text):
                result = sqlite_nio_sqlite3_bind_text64(
                    statement, index, text, UInt64(text.utf8.count), transient, UInt8(SQLITE_UTF8))
            case .blob(let buffer):
                result = buffer.withUnsafeReadableBytes {
                    sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), transient)
                }
            }
            guard result == SQLITE_OK else { throw SQLiteFailure(result, connection) }
        }
    }

    private static func row(_ statement: OpaquePointer) -> [SQLiteData] {
        (0..<sqlite_nio_sqlite3_column_count(statement)).map { column in
            switch sqlite_nio_sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER: return .integer(SQLiteInt64(sqlite_nio_sqlite3_column_int64(statement, column)))
            case SQLITE_FLOAT: return .float(sqlite_nio_sqlite3_column_double(statement, column))
            case SQLITE_TEXT:
                let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
                guard let text = sqlite_nio_sqlite3_column_text(statement, column) else { return .text("") }
                return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
                guard let blob = sqlite_nio_sqlite3_column_blob(statement, column) else { return .blob(ByteBuffer()) }
                return .blob(ByteBuffer(bytes: UnsafeRawBufferPointer(start: blob, count: count)))
            default: return .null
            }
        }
    }
}

/// SQLite copies bound text and blobs (`SQLITE_TRANSIENT`), so callers' buffers may go at once.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// The column names of one statement's results, shared by all its rows.
final class SQLiteColumns: Sendable {
    let names: [String]
    let offsets: [String: Int]

    init(names: [String]) {
        self.names = names
        // The first of two same-named columns wins, as in SQLiteNIO.
        self.offsets = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// One result row: its values and the statement's column names.
struct SQLiteValues: Sendable {
    let columns: SQLiteColumns
    let values: [SQLiteData]
}

/// An SQLite result code and message, translated into ``StorageError`` by the executor.
struct SQLiteFailure: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    init(_ code: Int32, _ connection: OpaquePointer) {
        self.init(code: code, message: sqlite_nio_sqlite3_errmsg(connection).map { String(cString: $0) } ?? "error \(code)")
    }

    /// A constraint violation (unique, primary key, foreign key, check), whatever its
    /// extended code.
    var isConstraint: Bool { code & 0xff == SQLITE_CONSTRAINT }

    var description: String { message }
}

import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import SesameCore
import SesameServer
import SesameStorageSQL

/// Which server a benchmark drives, shared by every benchmark.
struct TargetOptions: ParsableArguments {
    @Option(help: "Target an already running server instead of starting one (needs --data-dir).") var url: String?
    @Option(help: "The target server's data directory, to read codes from its console outbox.") var dataDir: String?
    @Option(help: "A postgres:// URL: started servers share this PostgreSQL database instead of SQLite.")
    var database: String?
    @Option(help: "How many servers to start on the --database; requests alternate over them.") var instances = 1

    func validate() throws {
        if url != nil && dataDir == nil && database == nil {
            throw ValidationError("--url needs --data-dir or --database to read codes")
        }
        if instances < 1 || (instances > 1 && database == nil) {
            throw ValidationError("--instances above 1 needs --database (instances share one PostgreSQL database)")
        }
        if url != nil && instances > 1 { throw ValidationError("--instances starts servers; it does not go with --url") }
    }

    /// Whether the benchmark made (and so removes) the data directory.
    var ownsDirectory: Bool { url == nil && dataDir == nil }
}

/// The servers a benchmark drives: `sesame serve` children over a fresh data directory (first
/// start creates it; the measured start is a restart, so ready time and idle RSS are a
/// normal start's), several of them on one PostgreSQL database, or a running server (`--url`).
struct BenchTarget {
    /// Every server's base URL; a load balancer's job is played by alternating over them.
    let bases: [String]
    let directory: String
    let servers: [ServerProcess]
    /// The servers' database, for the default client id and the console outbox.
    let database: SQLStorage
    let clientID: String
    let client: HTTPClient
    /// The thread the client's connections and the measured workers run on.
    let executor: LoopExecutor
    /// The codes the servers send, as they arrive.
    let codes: CodeFeed

    /// The first server.
    var base: String { bases[0] }

    static func start(
        _ options: TargetOptions, environment: [String: String], concurrency: Int, report: inout Report
    ) async throws -> BenchTarget {
        let directory =
            options.dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("sesame-bench-\(UUID())").path
        var environment = environment
        if let url = options.database { environment["SESAME_DATABASE_URL"] = url }
        var servers: [ServerProcess] = []
        if options.url == nil {
            let first = try await ServerProcess(dataDirectory: directory, environment: environment)
            if options.dataDir == nil && options.database == nil {
                // The idle memory an operator sees: a second after the first answer on a
                // fresh data directory, with the outbox, the sweeper and the metrics running.
                try await Task.sleep(for: .seconds(1))
                let memory = first.memory
                report.idleRSSFreshBytes = memory.residentBytes
                report.idleAnonymousFreshBytes = memory.anonymousBytes
                report.idleThreads = memory.threads
            }
            first.stop()
            for index in 0..<options.instances {
                // Only the first shares the directory of the first start (SQLite lives there).
                let own = index == 0 ? directory : directory + "/\(index)"
                servers.append(try await ServerProcess(dataDirectory: own, environment: environment))
            }
            try await Task.sleep(for: .seconds(1))
            report.idleRSSBytes = servers[0].residentBytes
            report.readyMilliseconds = servers[0].readyMilliseconds
        }
        report.instances = max(1, servers.count)
        report.database = options.database == nil ? "sqlite" : "postgresql"
        let database = try await openDatabase(options, directory: directory)
        guard let clientID = try await database.listApplications().first(where: \.isDefault)?.clientID else {
            for server in servers { server.stop() }
            throw BenchError("no default application in the database")
        }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
        let executor = LoopExecutor()
        return BenchTarget(
            bases: options.url.map { [$0] } ?? servers.map { "http://127.0.0.1:\($0.port)" }, directory: directory,
            servers: servers, database: database, clientID: clientID,
            client: HTTPClient(eventLoopGroupProvider: .shared(executor.group), configuration: configuration),
            executor: executor,
            codes: try await CodeFeed(outbox: database, on: executor, interval: .milliseconds(options.database == nil ? 1 : 5)))
    }

    /// One set of connections (one to each server) for each of `count` measured workers.
    func connections(count: Int) async throws -> [BenchConnections] {
        var connections: [BenchConnections] = []
        for _ in 0..<count { connections.append(try await BenchConnections(bases: bases, loop: executor.loop)) }
        return connections
    }

    static func openDatabase(_ options: TargetOptions, directory: String) async throws -> SQLStorage {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        if let url = options.database { return try await SQLStorage.postgres(url: url, logger: logger) }
        return try await SQLStorage.sqlite(path: directory + "/sesame.sqlite", logger: logger)
    }

    /// Closes the client and database, stops the servers and removes a directory it made.
    func stop(removeDirectory: Bool) async throws {
        try await client.shutdown()
        await codes.stop()
        try await executor.shutdown()
        try await database.shutdown()
        for server in servers { server.stop() }
        if removeDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }
}

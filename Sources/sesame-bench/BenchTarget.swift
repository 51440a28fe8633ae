import AsyncHTTPClient
import Foundation
import Logging
import SesameStorageSQL

/// The server a benchmark drives: a `sesame serve` child over a fresh data directory (first
/// start creates it; the measured start is a restart, so ready time and idle RSS are a
/// normal start's), or an already running server given by `--url`.
struct BenchTarget {
    let base: String
    let directory: String
    let server: ServerProcess?
    /// The server's own database, for the default client id and the console outbox.
    let database: SQLStorage
    let clientID: String
    let client: HTTPClient

    static func start(
        url: String?, dataDir: String?, environment: [String: String], concurrency: Int, report: inout Report
    ) async throws -> BenchTarget {
        let directory = dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("sesame-bench-\(UUID())").path
        var server: ServerProcess?
        if url == nil {
            try await ServerProcess(dataDirectory: directory, environment: environment).stop()
            let restarted = try await ServerProcess(dataDirectory: directory, environment: environment)
            try await Task.sleep(for: .seconds(1))
            report.idleRSSBytes = restarted.residentBytes
            report.readyMilliseconds = restarted.readyMilliseconds
            server = restarted
        }
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let database = try await SQLStorage.sqlite(path: directory + "/sesame.sqlite", logger: logger)
        guard let clientID = try await database.listApplications().first(where: \.isDefault)?.clientID else {
            server?.stop()
            throw BenchError("no default application in \(directory)")
        }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
        return BenchTarget(
            base: url ?? "http://127.0.0.1:\(server!.port)", directory: directory, server: server, database: database,
            clientID: clientID, client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
    }

    /// Closes the client and database, stops the server and removes a directory it made.
    func stop(removeDirectory: Bool) async throws {
        try await client.shutdown()
        try await database.shutdown()
        server?.stop()
        if removeDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }
}

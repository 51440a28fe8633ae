import ArgumentParser
import Foundation
import SesameCore
import SesameStorageSQL

/// `sesame-bench seed --users N`: fills a data directory (or a PostgreSQL database) with N
/// users, each with a refresh token, a passkey, a device key, a used code, a sent delivery
/// and audit events, so the benchmarks can be run against a large database with
/// `--data-dir` (or `--database`).
struct SeedBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed", abstract: "Fill a data directory or database with N users for the benchmarks.")

    @Option(help: "How many users to add.") var users: Int
    @Option(help: "The data directory to fill (created and set up by a first `sesame serve` when new).")
    var dataDir: String?
    @Option(help: "A postgres:// URL to fill instead.") var database: String?

    func validate() throws {
        if users < 1 { throw ValidationError("--users must be at least 1") }
        if (dataDir == nil) == (database == nil) { throw ValidationError("give one of --data-dir or --database") }
    }

    func run() async throws {
        // A first start sets the database up exactly as a server would (keys, default application).
        let environment = database.map { ["SESAME_DATABASE_URL": $0] } ?? [:]
        let directory = dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("sesame-seed-\(UUID())").path
        try await ServerProcess(dataDirectory: directory, environment: environment).stop()
        let options = try TargetOptions.parse(database.map { ["--database", $0] } ?? ["--data-dir", directory])
        let storage = try await BenchTarget.openDatabase(options, directory: directory)
        guard let clientID = try await storage.listApplications().first(where: \.isDefault)?.clientID else {
            throw BenchError("no default application in the database")
        }
        let started = ContinuousClock.now
        let total = try await storage.seed(users: users, clientID: clientID, now: Date())
        try await storage.shutdown()
        if dataDir == nil { try? FileManager.default.removeItem(atPath: directory) }
        let seconds = (ContinuousClock.now - started).seconds
        print("seeded \(users) users in \(String(format: "%.1f", seconds)) s (\(total) seeded users in all)")
    }
}

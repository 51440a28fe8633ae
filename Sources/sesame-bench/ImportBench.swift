import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SesameCore
import SesameServer
import SesameStorageSQL

/// `sesame-bench import`: a generated file of users in Auth0's export shape, uploaded to
/// `POST /api/v2/jobs/users-imports` of a fresh server and run by its worker to completion.
/// It reports users a second and the server's memory sampled every 0.1 s, so a file ten times
/// larger shows whether memory stays flat while the job runs, not only how long it takes.
struct ImportBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Users a second for a bulk import of --users users; the server's memory while it runs.")

    @Option(help: "Users in the generated file.") var users = 100_000
    @Option(help: "A postgres:// URL: the server runs on this PostgreSQL database instead of SQLite.")
    var database: String?
    @Flag(help: "Print one JSON object.") var json = false

    func validate() throws {
        guard users >= 1 else { throw ValidationError("--users must be at least 1") }
    }

    func run() async throws {
        let report = try await measure()
        print(json ? try report.json() : report.text)
    }

    func measure() async throws -> ImportReport {
        let file = UsersFile.generate(count: users)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-bench-\(UUID())").path
        let environment = database.map { ["SESAME_DATABASE_URL": $0] } ?? [:]
        let server = try await ServerProcess(dataDirectory: directory, environment: environment)
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        // Opened as `sesame admin` opens it: unsealed with the key the server made, so a
        // management token can be made the way an operator makes one.
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let configuration = try await ServerConfiguration.load(
            flags: ["data_dir": directory], environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        let storage = try await SesameRuntime.openUnsealed(configuration, create: false, logger: logger)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        var report = ImportReport(users: users, fileBytes: file.count, database: database == nil ? "sqlite" : "postgresql")
        report.idleRSSBytes = server.residentBytes
        var failure: (any Error)?
        do {
            let session = try await ImportSession(storage: storage, client: client, base: "http://127.0.0.1:\(server.port)")
            try await session.run(file, server: server, into: &report)
        } catch {
            failure = error
        }
        try? await client.shutdown()
        try? await storage.shutdown()
        if let failure { throw failure }
        return report
    }
}

/// One import against a started server: a management token made in its database, the upload,
/// then the job polled until it ends, with the server's memory sampled throughout.
struct ImportSession {
    let storage: SQLStorage
    let client: HTTPClient
    let base: String
    let token: String
    let connectionID: String

    init(storage: SQLStorage, client: HTTPClient, base: String) async throws {
        (self.storage, self.client, self.base) = (storage, client, base)
        let keys = try await Bootstrap(storage: storage, clock: SystemClock(), random: SystemRandomSource()).hmacKeys()
        let tokens = AdminTokens(storage: storage, hasher: SecretHasher(ring: HMACKeys(keys)), random: SystemRandomSource())
        token = try await tokens.create(name: "bench", scopes: [], lifetime: nil, at: Date()).token
        guard let email = try await storage.listConnections().first(where: { $0.name == "email" }) else {
            throw BenchError("no email connection in the database")
        }
        connectionID = email.id
    }

    func run(_ file: Data, server: ServerProcess, into report: inout ImportReport) async throws {
        let sampler = MemorySampler(server)
        defer { sampler.stop() }
        let started = ContinuousClock.now
        let jobID = try await upload(file)
        report.uploadSeconds = (ContinuousClock.now - started).seconds
        report.uploadPeakRSSBytes = sampler.take().max() ?? 0
        let imported = ContinuousClock.now
        var job = try await storage.job(id: jobID)
        var byProgress: [Int: Int] = [:]  // quarter of the users processed → the highest RSS within it
        while let current = job, current.status != .completed, current.status != .failed {
            try await Task.sleep(for: .milliseconds(100))
            let quarter = min(3, current.processed * 4 / report.users)
            byProgress[quarter] = max(byProgress[quarter] ?? 0, sampler.take().max() ?? 0)
            job = try await storage.job(id: jobID)
        }
        report.importSeconds = (ContinuousClock.now - imported).seconds
        report.importRSSByQuarter = (0..<4).map { byProgress[$0] ?? 0 }
        report.peakRSSBytes = server.peakResidentBytes
        report.finalRSSBytes = server.residentBytes
        guard let job else { throw BenchError("the job \(jobID) disappeared") }
        report.status = job.status.rawValue
        (report.inserted, report.failed) = (job.summary.inserted, job.summary.failed)
        report.finish()
    }

    /// Uploads the file as the Management API's multipart form; the job's id.
    private func upload(_ file: Data) async throws -> String {
        let boundary = "sesame-bench-\(UUID().uuidString)"
        var body = ByteBuffer()
        body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"connection_id\"\r\n\r\n\(connectionID)\r\n")
        body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"users\"; filename=\"users.json\"\r\n")
        body.writeString("Content-Type: application/json\r\n\r\n")
        body.writeBytes(file)
        body.writeString("\r\n--\(boundary)--\r\n")
        var request = HTTPClientRequest(url: base + "/api/v2/jobs/users-imports")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.body = .bytes(body)
        let response = try await client.execute(request, timeout: .minutes(10))
        let answer = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .created,
            let object = try JSONSerialization.jsonObject(with: Data(answer.readableBytesView)) as? [String: Any],
            let id = object["id"] as? String
        else { throw BenchError("the upload was refused: \(response.status) \(String(buffer: answer))") }
        return id
    }
}

/// The server's resident memory read every 0.1 s on a thread of its own, so that a busy
/// server or a slow upload never leaves a gap in the samples.
final class MemorySampler: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [Int] = []
    private var running = true

    init(_ server: ServerProcess) {
        let pid = String(server.process.processIdentifier)
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let rss = ProcessMemory.read(pid).residentBytes
                lock.withLock { samples.append(rss) }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    /// The samples since the last call.
    func take() -> [Int] {
        lock.withLock {
            defer { samples = [] }
            return samples
        }
    }

    func stop() { lock.withLock { running = false } }
}

/// A users file in the shape of Auth0's export: names, a picture, both metadata.
enum UsersFile {
    static func generate(count: Int) -> Data {
        var text = "[\n"
        text.reserveCapacity(count * 420)
        for index in 0..<count {
            let id = String(format: "%024x", 0x5f7c_8ec7_c33c + index)
            text += """
                  {"user_id": "email|\(id)", "email": "user\(index)@import.example.com", "email_verified": true, \
                "name": "User \(index) Lima", "given_name": "User \(index)", "family_name": "Lima", "nickname": "user\(index)", \
                "picture": "https://cdn.example.com/avatars/\(index).png", "created_at": "2021-03-01T10:00:00.000Z", \
                "user_metadata": {"theme": "dark", "language": "pt"}, "app_metadata": {"plan": "pro", "roles": ["member"]}}
                """
            text += index == count - 1 ? "\n" : ",\n"
        }
        return Data((text + "]\n").utf8)
    }
}

import Foundation
import Hummingbird
import Logging
import SesameAPI
import SesameClient
import SesameCore
import SesameServer
import SesameStorageSQL

/// A real `sesame serve` in this process: SQLite in a temporary directory, the console
/// outbox, and an HTTP listener on a free loopback port that the client reaches over TCP.
struct LiveServer {
    let runtime: SesameRuntime
    /// The server's clock: real time, which tests move forward to expire codes without waiting.
    let clock: ShiftedClock
    let port: Int
    let clientID: String

    var domain: URL { URL(string: "http://localhost:\(port)")! }

    /// Runs `body` against a fresh server, and stops it however `body` ends.
    /// `body` runs on the caller's actor (the main actor for the login model's tests).
    static func run(
        isolation: isolated (any Actor)? = #isolation, _ body: (LiveServer) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-client-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "client-test")
        logger.logLevel = .critical
        var configuration = ServerConfiguration(port: 0, dataDirectory: directory)
        configuration.settings.startLimitPerIP = RateLimitRule(limit: 1000, windowSeconds: 3600)
        let clock = ShiftedClock()
        let runtime = try await SesameRuntime.start(configuration, clock: clock, logger: logger)
        let (ports, ready) = AsyncStream.makeStream(of: Int.self)
        let app = buildApplication(runtime) { port in ready.yield(port) }
        let server = Task { try await app.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw LiveServerError("the server did not start") }
        let clientID = try await runtime.storage.listApplications().first(where: \.isDefault)?.clientID ?? ""
        do {
            try await body(LiveServer(runtime: runtime, clock: clock, port: port, clientID: clientID))
        } catch {
            server.cancel()
            _ = await server.result
            try? await runtime.shutdown()
            throw error
        }
        server.cancel()
        _ = await server.result
        try await runtime.shutdown()
    }

    /// The newest code sent to `recipient`, read from the console outbox as an operator would.
    func code(for recipient: String) async throws -> String {
        guard let code = try await sent(to: recipient)?.code else { throw LiveServerError("no code for \(recipient)") }
        return code
    }

    /// The newest console-outbox message to `recipient`, once the outbox has no delivery
    /// waiting: the server answers a start before its worker sends.
    private func sent(to recipient: String) async throws -> OutboxMessage? {
        for _ in 0..<100 {
            if try await runtime.storage.pendingDeliveries().count == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await runtime.storage.recentOutboxMessages(limit: 1, recipient: recipient).first
    }

    /// A client of this server's default application.
    var client: SesameClient { SesameClient(domain: domain, clientID: clientID) }

    /// Signs `email` in through `client` with the code the server sends, as a person would.
    func signIn(
        _ client: SesameClient, _ email: String = "ana@example.com", scope: String = SesameClient.defaultScope
    ) async throws -> Credentials {
        try await client.startPasswordless(email: email)
        return try await client.login(email: email, code: try await code(for: email), scope: scope)
    }

    /// The newest sign-in link sent to `recipient`.
    func link(for recipient: String) async throws -> URL {
        guard let link = try await sent(to: recipient)?.link,
            let url = URL(string: link)
        else { throw LiveServerError("no link for \(recipient)") }
        return url
    }
}

struct LiveServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Real time plus an offset a test can grow: the server ages codes as if time passed, while
/// a client's own timestamps (a device assertion's `iat`) still match it.
final class ShiftedClock: SesameClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0

    func now() -> Date { Date().addingTimeInterval(lock.withLock { offset }) }

    /// Moves the server's time forward.
    func advance(by seconds: TimeInterval) {
        lock.withLock { offset += seconds }
    }
}

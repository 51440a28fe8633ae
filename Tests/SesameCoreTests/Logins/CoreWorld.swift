import Foundation
import Logging
import SesameCore
import SesameStorageConformance
import SesameStorageSQL
import Synchronization

/// The domain with nothing in front of it: `Sesame` over in-memory SQLite, a test clock,
/// seeded randomness and a capturing sender. Core services are called directly; the HTTP
/// suites keep to the wire shape.
struct CoreWorld {
    let sesame: Sesame
    let clock: TestClock
    let sender: CapturingSender
    let application: Application
    /// The logout tokens posted to applications.
    let logoutTokens: CapturingTransport

    static let issuer = "https://login.example.com/"
    static let callback = "https://app.example.com/cb"

    /// Runs `body` against a fresh world, and closes the database however it ends.
    static func run(
        seed: UInt64 = 1, configure: (inout LoginSettings) -> Void = { _ in }, _ body: (CoreWorld) async throws -> Void
    ) async throws {
        var settings = LoginSettings(issuer: issuer)
        // Tests read a message as soon as a start answers: send it before answering.
        settings.delivery.sendBeforeAnswering = true
        configure(&settings)
        let storage = try await SQLStorage.sqlite(path: nil)
        do {
            let clock = TestClock()
            let sender = CapturingSender()
            let logoutTokens = CapturingTransport()
            var logger = Logger(label: "core-test")
            logger.logLevel = .critical
            try await TestSigningKey.preload(storage, at: clock.now())
            let sesame = try await Sesame.bootstrap(
                storage: storage, settings: settings,
                delivery: MessageDelivery(email: sender, sms: sender, logoutTokens: logoutTokens),
                clock: clock,
                random: SeededRandomSource(seed: seed), logger: logger)
            let application = try await storage.updateApplication(clientID: try await storage.listApplications()[0].clientID) {
                $0.callbacks = [callback]
            }
            try await body(
                CoreWorld(
                    sesame: sesame, clock: clock, sender: sender, application: application, logoutTokens: logoutTokens))
        } catch {
            try? await storage.shutdown()
            throw error
        }
        try await storage.shutdown()
    }

    /// What an application asks tokens for.
    func request(_ scope: String = "openid profile email offline_access") -> TokenGrantRequest {
        TokenGrantRequest(application: application, scope: Scope(scope))
    }

    /// Asks for a code for `email` and returns it, as the mail would show it.
    func code(for email: String, send: String = "code") async throws -> String {
        _ = try await sesame.passwordless.start(
            PasswordlessStartRequest(
                clientID: application.clientID, clientSecret: nil, connection: "email", email: email, phoneNumber: nil,
                send: send, ip: "198.51.100.7"))
        guard let message = sender.sent(to: email).last, let secret = message.code ?? message.link else {
            throw CoreWorldError("nothing was sent to \(email)")
        }
        return secret
    }

    /// A code login for `email`.
    func signIn(_ email: String, scope: String = "openid profile email offline_access") async throws -> TokenResponse {
        let code = try await code(for: email)
        return try await sesame.passwordless.finish(
            PasswordlessCredentials(connection: "email", username: email, code: code), request: request(scope), ip: nil)
    }
}

/// A transport that keeps what it was asked to post.
final class CapturingTransport: WebhookTransport {
    struct Post: Sendable {
        let url: String
        let headers: [String: String]
        let body: String
    }

    private let posts = Mutex<[Post]>([])

    func post(url: String, headers: [(name: String, value: String)], body: Data) async throws {
        let post = Post(
            url: url, headers: Dictionary(headers.map { ($0.name, $0.value) }) { $1 }, body: String(decoding: body, as: UTF8.self)
        )
        posts.withLock { $0.append(post) }
    }

    /// Everything posted so far.
    var all: [Post] { posts.withLock { $0 } }
}

struct CoreWorldError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` and returns the `SesameError` it throws; fails the test when it throws none.
func refusal(_ body: () async throws -> Void) async throws -> SesameError {
    do {
        try await body()
    } catch let error as SesameError {
        return error
    }
    throw CoreWorldError("nothing was refused")
}

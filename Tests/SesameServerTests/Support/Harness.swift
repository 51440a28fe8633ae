import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import SesameAPI
import SesameCore
import SesameServer
import SesameStorageConformance
import SesameStorageSQL
import Synchronization

/// One in-process server on in-memory SQLite with a test clock, driven through the router.
struct Harness {
    let client: any TestClientProtocol
    let sesame: Sesame
    let clock: TestClock
    let sender: CapturingSender
    let clientID: String

    /// Runs `body` against a fresh server.
    static func run(
        configure: (inout LoginSettings) -> Void = { _ in }, _ body: @escaping @Sendable (Harness) async throws -> Void
    ) async throws {
        var settings = LoginSettings(issuer: "https://login.example.com")
        settings.startLimitPerIP = RateLimitRule(limit: 1000, windowSeconds: 3600)
        configure(&settings)
        let storage = try await SQLStorage.sqlite(path: nil)
        let clock = TestClock()
        let sender = CapturingSender()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let sesame = try await Sesame.bootstrap(
            storage: storage, settings: settings, delivery: MessageDelivery(email: sender, sms: sender), clock: clock,
            random: SeededRandomSource(seed: 7), logger: logger)
        let clientID = try await storage.listApplications()[0].clientID
        let app = Application(router: buildRouter(sesame, proxies: .localNetworks), logger: logger)
        do {
            try await app.test(.router) { client in
                try await body(Harness(client: client, sesame: sesame, clock: clock, sender: sender, clientID: clientID))
            }
        } catch {
            // An open SQLite connection traps when freed, which would hide the failure.
            try? await storage.shutdown()
            throw error
        }
        try await storage.shutdown()
    }

    // MARK: requests

    func post(_ path: String, _ body: [String: Any?], headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        headers[.contentType] = headers[.contentType] ?? "application/json"
        let data = try JSONSerialization.data(withJSONObject: body.compactMapValues { $0 ?? NSNull() })
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(data: data))
    }

    func postRaw(_ path: String, _ body: String, contentType: String = "application/json") async throws -> TestResponse {
        try await client.execute(
            uri: path, method: .post, headers: [.contentType: contentType], body: ByteBuffer(string: body))
    }

    func form(_ path: String, _ fields: [String: String], headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        let body = fields.map { "\(Self.formEscape($0.key))=\(Self.formEscape($0.value))" }.joined(separator: "&")
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    func get(_ path: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: headers)
    }

    func delete(_ path: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await client.execute(uri: path, method: .delete, headers: headers)
    }

    static func formEscape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    // MARK: flows

    func start(email: String, send: String? = "code", from ip: String = "198.51.100.7") async throws -> TestResponse {
        try await post(
            "/passwordless/start", ["client_id": clientID, "connection": "email", "email": email, "send": send],
            headers: [HTTPField.Name("X-Forwarded-For")!: ip])
    }

    func start(phone: String) async throws -> TestResponse {
        try await post("/passwordless/start", ["client_id": clientID, "connection": "sms", "phone_number": phone])
    }

    /// The newest code sent to `recipient`.
    func code(for recipient: String) -> String? {
        sender.sent(to: recipient).last?.code
    }

    func otp(
        _ username: String, _ code: String?, realm: String = "email", scope: String? = "openid profile email",
        audience: String? = nil
    ) async throws -> TestResponse {
        try await post(
            "/oauth/token",
            [
                "grant_type": GrantType.passwordlessOTP, "client_id": clientID, "realm": realm, "username": username,
                "otp": code, "scope": scope, "audience": audience,
            ])
    }

    /// The scope an app asks for to let its user manage device keys and passkeys.
    static let accountScope = """
        openid profile email offline_access create:current_user_device_credentials read:current_user_device_credentials \
        delete:current_user_device_credentials read:me:authentication_methods update:me:authentication_methods \
        delete:me:authentication_methods
        """

    /// A complete email login whose tokens may manage the user's device keys and passkeys.
    func accountLogin(email: String) async throws -> TokenBody {
        try await login(email: email, scope: Self.accountScope)
    }

    /// A complete email login; fails the test if any step fails.
    func login(email: String, scope: String = "openid profile email offline_access") async throws -> TokenBody {
        let started = try await start(email: email)
        guard started.status == .ok, let code = code(for: email) else { throw HarnessError("start failed: \(started.text)") }
        let response = try await otp(email, code, scope: scope)
        guard response.status == .ok else { throw HarnessError("login failed: \(response.text)") }
        return try response.decode(TokenBody.self)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer: body))
    }

    /// The Auth0 error body.
    var error: ErrorBody? { try? decode(ErrorBody.self) }

    func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }

    func tokens() throws -> TokenBody { try decode(TokenBody.self) }
}

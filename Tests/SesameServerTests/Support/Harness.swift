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
    /// The forgery-protection cookie, kept across requests as a browser keeps it.
    let formCookie = FormCookieJar()
    /// Every `Set-Cookie` of the last ``form(_:_:headers:)``, the 303 it followed included.
    let formCookies = FormCookieJar.List()

    /// Runs `body` against a fresh server.
    static func run(
        configure: (inout LoginSettings) -> Void = { _ in }, pages: PageTemplates = .shipped,
        storage: SQLStorage? = nil, _ body: @escaping @Sendable (Harness) async throws -> Void
    ) async throws {
        var settings = LoginSettings(issuer: "https://login.example.com")
        settings.startLimitPerIP = RateLimitRule(limit: 1000, windowSeconds: 3600)
        // Tests read a message as soon as a start answers: send it before answering.
        settings.delivery.sendBeforeAnswering = true
        configure(&settings)
        let storage = if let storage { storage } else { try await SQLStorage.sqlite(path: nil) }
        let clock = TestClock()
        let sender = CapturingSender()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        try await TestSigningKey.preload(storage, at: clock.now())
        let sesame = try await Sesame.bootstrap(
            storage: storage, settings: settings, delivery: MessageDelivery(email: sender, sms: sender), clock: clock,
            random: SeededRandomSource(seed: 7), logger: logger, exportCompression: GzipCompression())
        let clientID = try await storage.listApplications()[0].clientID
        let app = Application(router: buildRouter(sesame, proxies: .localNetworks, pages: pages), logger: logger)
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
        return try await send(path, .post, headers, ByteBuffer(data: data))
    }

    func patch(_ path: String, _ body: [String: Any], headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        headers[.contentType] = "application/json"
        return try await send(path, .patch, headers, ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
    }

    func postRaw(_ path: String, _ body: String, contentType: String = "application/json") async throws -> TestResponse {
        try await send(path, .post, [.contentType: contentType], ByteBuffer(string: body))
    }

    /// Posts a hosted page's form. A step that answers 303 to `GET /authorize/step` (or a link's
    /// page to its own GET) is followed
    /// as a browser follows it (with the cookies it set); ``formCookies`` holds the cookies of both.
    func form(_ path: String, _ fields: [String: String], headers: HTTPFields = [:]) async throws -> TestResponse {
        var posted = headers
        posted[.contentType] = "application/x-www-form-urlencoded"
        let body = fields.map { "\(Self.formEscape($0.key))=\(Self.formEscape($0.value))" }.joined(separator: "&")
        let response = try await send(path, .post, posted, ByteBuffer(string: body))
        let set = response.headers[values: .setCookie]
        guard response.status == .seeOther, let location = response.headers[.location],
            location.hasPrefix("/authorize/step") || location.hasPrefix("/passwordless/verify_redirect?")
        else {
            formCookies.values = set
            return response
        }
        var followed = headers
        let cookies = set.map { String($0.prefix { $0 != ";" }) }.filter { !$0.hasPrefix(FormCookieJar.name + "=") }
        if !cookies.isEmpty {
            let added = cookies.joined(separator: "; ")
            followed[.cookie] = followed[.cookie].map { "\($0); \(added)" } ?? added
        }
        let page = try await get(location, headers: followed)
        formCookies.values = set + page.headers[values: .setCookie]
        return page
    }

    func get(_ path: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await send(path, .get, headers, nil)
    }

    func delete(_ path: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await send(path, .delete, headers, nil)
    }

    /// After a code login the page offers a passkey; this follows "Not now" with the session
    /// just begun, as the browser would (to `/authorize` again), and returns the application's
    /// answer. Other responses are returned as they are.
    func finishHosted(_ response: TestResponse, headers: HTTPFields = [:]) async throws -> TestResponse {
        guard response.status == .ok, response.text.contains("id=\"enroll-form\""),
            let start = response.text.range(of: "id=\"skip\" href=\"")
        else { return response }
        let href = String(response.text[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
        let session = (response.headers[values: .setCookie] + formCookies.values).first { $0.contains("sesame_session=") }
            .map { String($0.prefix { $0 != ";" }) }
        var headers = headers
        if let session { headers[.cookie] = session }
        let later = try await get(href, headers: headers)
        guard later.status == .seeOther, let next = later.headers[.location], next.hasPrefix("/authorize?") else {
            return later
        }
        return try await get(next, headers: headers)
    }

    /// Sends a request with the forgery-protection cookie added, and keeps a new one.
    private func send(_ path: String, _ method: HTTPRequest.Method, _ headers: HTTPFields, _ body: ByteBuffer?)
        async throws -> TestResponse
    {
        var headers = headers
        if let cookie = formCookie.value {
            headers[.cookie] = headers[.cookie].map { "\($0); \(cookie)" } ?? cookie
        }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body)
        for setting in response.headers[values: .setCookie] where setting.hasPrefix(FormCookieJar.name + "=") {
            formCookie.value = String(setting.prefix { $0 != ";" })
        }
        return response
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

    /// A second instance on the harness's database and clock, sending through `sender` (the
    /// harness's own when nil): several instances behind one load balancer.
    func otherInstance(sending sender: (any MessageSender)? = nil) async throws -> Sesame {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let sender = sender ?? self.sender
        return try await Sesame.bootstrap(
            storage: sesame.storage, settings: sesame.settings, delivery: MessageDelivery(email: sender, sms: sender),
            clock: clock, random: SeededRandomSource(seed: 99), logger: logger)
    }

    /// The newest code sent to `recipient`.
    func code(for recipient: String) -> String? {
        sender.sent(to: recipient).last { $0.code != nil }?.code
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

    /// The Auth0 error body; under `/api/v2/` read from the Management API's shape, its
    /// `errorCode` as the code.
    var error: ErrorBody? {
        if let management = try? decode(ManagementErrorBody.self) {
            return ErrorBody(
                error: management.errorCode, errorDescription: management.errorDescription, errorReason: management.errorReason)
        }
        return try? decode(ErrorBody.self)
    }

    func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }

    func tokens() throws -> TokenBody { try decode(TokenBody.self) }
}

/// The hosted pages' forgery-protection cookie of the test browser (`__Host-` on the https issuer).
final class FormCookieJar: Sendable {
    static let name = "__Host-sesame_csrf"

    /// Cookies a response set.
    final class List: Sendable {
        private let stored = Mutex<[String]>([])

        var values: [String] {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }

    private let stored = Mutex<String?>(nil)

    var value: String? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}

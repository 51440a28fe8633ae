import Crypto
import Foundation
import Logging
import SesameCore
import SesameStorageConformance
import SesameStorageSQL
import Synchronization
import Testing

/// Webhooks: audited events become signed calls in the durable outbox, sent once per
/// subscribed endpoint, retried with the same id, and dropped for deleted endpoints.
@Suite("Webhooks: events, Standard Webhooks signatures, retries and operators' endpoints")
struct WebhookTests {
    /// Records every call; fails them while `failing` is set.
    final class RecordingTransport: WebhookTransport {
        struct Call {
            var url: String
            var headers: [String: String]
            var body: Data
        }
        private let state = Mutex<(calls: [Call], failing: Bool)>(([], false))

        func post(url: String, headers: [(name: String, value: String)], body: Data) async throws {
            let failing = state.withLock { state in
                state.calls.append(Call(url: url, headers: Dictionary(uniqueKeysWithValues: headers), body: body))
                return state.failing
            }
            if failing { throw DeliveryError(message: "webhook endpoint answered HTTP 503", providerCode: "503") }
        }

        var calls: [Call] { state.withLock { $0.calls } }
        func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }
    }

    struct World {
        let sesame: Sesame
        let clock: TestClock
        let sender: CapturingSender
        let transport: RecordingTransport
        let webhooks: WebhookAdministration
        let clientID: String

        /// A complete email-code login of `email` through Core.
        func login(_ email: String) async throws {
            let application = try #require(try await sesame.storage.application(clientID: clientID))
            _ = try await sesame.passwordless.start(
                PasswordlessStartRequest(
                    clientID: clientID, clientSecret: nil, connection: "email", email: email, phoneNumber: nil, send: "code",
                    ip: "198.51.100.7"))
            let code = try #require(sender.sent(to: email).last?.code)
            _ = try await sesame.passwordless.finish(
                PasswordlessCredentials(connection: "email", username: email, code: code),
                request: TokenGrantRequest(application: application, scope: Scope("openid")), ip: nil)
        }

        /// The events of every call to `url`, in order.
        func types(at url: String) throws -> [String] {
            try transport.calls.filter { $0.url == url }.map { call in
                let json = try JSONSerialization.jsonObject(with: call.body) as? [String: Any]
                return json?["type"] as? String ?? "?"
            }
        }
    }

    static func run(_ body: (World) async throws -> Void) async throws {
        var settings = LoginSettings(issuer: "https://login.example.com")
        settings.delivery.sendBeforeAnswering = true
        let storage = try await SQLStorage.sqlite(path: nil)
        let clock = TestClock()
        let sender = CapturingSender()
        let transport = RecordingTransport()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        do {
            try await TestSigningKey.preload(storage, at: clock.now())
            let sesame = try await Sesame.bootstrap(
                storage: storage, settings: settings, delivery: MessageDelivery(email: sender, sms: sender, webhooks: transport),
                clock: clock, random: SeededRandomSource(seed: 3), logger: logger)
            let clientID = try await storage.listApplications()[0].clientID
            var webhooks = WebhookAdministration(
                storage: storage, clock: clock, random: SeededRandomSource(seed: 4), logger: logger)
            // Loopback receivers are private: allowed here as an operator would, with
            // webhook_allowed_hosts.
            webhooks.addressPolicy = WebhookAddressPolicy.parse(["127.0.0.0/8"]).policy
            try await body(
                World(
                    sesame: sesame, clock: clock, sender: sender, transport: transport, webhooks: webhooks, clientID: clientID))
        } catch {
            try? await storage.shutdown()
            throw error
        }
        try await storage.shutdown()
    }

    /// The Standard Webhooks signature, computed here from the spec, not by Sesame's code.
    static func expectedSignature(_ call: RecordingTransport.Call, secret: String) throws -> String {
        let key = try #require(Data(base64Encoded: String(secret.dropFirst("whsec_".count))))
        let signed = Data("\(call.headers["webhook-id"] ?? "").\(call.headers["webhook-timestamp"] ?? "").".utf8) + call.body
        return "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))).base64EncodedString()
    }

    @Test("a signup sends user.created and login.succeeded, signed with the endpoint's secret; others hear only theirs")
    func signupEvents() async throws {
        try await Self.run { w in
            let (all, secret) = try await w.webhooks.create(
                url: "https://a.example.com/hooks", events: ["login.succeeded", "user.created"])
            _ = try await w.webhooks.create(url: "https://b.example.com/hooks", events: ["user.deleted"])
            try await w.login("ana@example.com")
            await w.sesame.outbox.worker.drain()
            // Calls go out concurrently and retry independently, so they may arrive in either
            // order (docs/delivery.md); receivers order events by their `timestamp`.
            #expect(try w.types(at: all.url).sorted() == ["login.succeeded", "user.created"])
            #expect(try w.types(at: "https://b.example.com/hooks").isEmpty)
            for call in w.transport.calls {
                #expect(call.headers["webhook-signature"] == (try Self.expectedSignature(call, secret: secret)))
                #expect(call.headers["webhook-id"]?.hasPrefix("msg_") == true)
                #expect(Int64(call.headers["webhook-timestamp"] ?? "") == Int64(w.clock.now().timeIntervalSince1970))
            }
            try await w.login("ana@example.com")
            await w.sesame.outbox.worker.drain()
            #expect(try w.types(at: all.url).filter { $0 == "user.created" }.count == 1, "a second login creates no one")
        }
    }

    @Test("retries keep the webhook-id (receivers drop duplicates) and sign again with a fresh timestamp")
    func retriesKeepTheID() async throws {
        try await Self.run { w in
            let (endpoint, secret) = try await w.webhooks.create(url: "https://a.example.com/hooks", events: ["user.created"])
            w.transport.fail(true)
            try await w.login("ana@example.com")
            await w.sesame.outbox.worker.drain()
            w.transport.fail(false)
            w.clock.advance(by: 10)
            await w.sesame.outbox.worker.drain()
            let calls = w.transport.calls
            #expect(calls.count == 2 && Set(calls.map { $0.headers["webhook-id"] }).count == 1)
            #expect(calls[0].headers["webhook-timestamp"] != calls[1].headers["webhook-timestamp"])
            #expect(calls[1].headers["webhook-signature"] == (try Self.expectedSignature(calls[1], secret: secret)))
            let delivery = try #require(try await w.sesame.deliveries.list(recipient: endpoint.url).first)
            #expect(delivery.status == .sent && delivery.attempts == 2)
        }
    }

    @Test("a call queued for an endpoint deleted since is dropped, not sent")
    func deletedEndpoint() async throws {
        try await Self.run { w in
            let (endpoint, _) = try await w.webhooks.create(url: "https://a.example.com/hooks", events: ["user.created"])
            w.transport.fail(true)
            try await w.login("ana@example.com")
            await w.sesame.outbox.worker.drain()
            try await w.webhooks.delete(id: endpoint.id)
            w.clock.advance(by: 10)
            await w.sesame.outbox.worker.drain()
            #expect(w.transport.calls.count == 1)
            let delivery = try #require(try await w.sesame.deliveries.list(recipient: endpoint.url).first)
            #expect(delivery.status == .failed && delivery.lastError?.contains("deleted") == true)
        }
    }

    /// Attack: an operator's typo (or a compromised config script) pointing events carrying
    /// email addresses at a plain-http host, or subscribing to nothing by misspelling.
    @Test("create refuses plain http off this machine, unknown events and no events; the secret is sealed at rest")
    func createRefusals() async throws {
        try await Self.run { w in
            await #expect(throws: SesameError.self) {
                _ = try await w.webhooks.create(url: "http://hooks.example.com/x", events: ["user.created"])
            }
            await #expect(throws: SesameError.self) {
                _ = try await w.webhooks.create(url: "https://hooks.example.com/x", events: ["user.craeted"])
            }
            await #expect(throws: SesameError.self) { _ = try await w.webhooks.create(url: "https://h.example.com", events: []) }
            let (endpoint, secret) = try await w.webhooks.create(url: "http://127.0.0.1:9/x", events: ["user.created"])
            #expect(secret.hasPrefix("whsec_") && Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
            let stored = try #require(try await w.sesame.storage.webhook(id: endpoint.id))
            #expect(!String(decoding: stored.sealedSecret, as: UTF8.self).contains(secret.dropFirst(6)))
        }
    }

    /// Attack (server-side request forgery): whoever may register an endpoint aims the server's
    /// own calls at its private network: the cloud metadata service (169.254.169.254, which
    /// hands out credentials), a loopback admin port, an RFC 1918 host. A literal private
    /// address is refused with 400 unless webhook_allowed_hosts lists it.
    @Test("registering a webhook at a private, link-local or metadata address is refused unless allowed")
    func webhookToPrivateAddressRegistered() async throws {
        try await Self.run { w in
            var strict = w.webhooks
            strict.addressPolicy = WebhookAddressPolicy()
            for url in [
                "https://169.254.169.254/latest/meta-data", "https://10.0.0.7/x", "https://172.16.3.4/x", "https://192.168.1.1/x",
                "https://100.64.0.1/x", "https://0.0.0.0/x", "https://[fd00::1]/x", "https://[fe80::1]/x", "https://[::1]/x",
                "https://[::ffff:127.0.0.1]/x", "http://127.0.0.1:9/x", "http://localhost:9/x",
            ] {
                await #expect(throws: SesameError.self, "\(url)") {
                    _ = try await strict.create(url: url, events: ["user.created"])
                }
            }
            await #expect {
                _ = try await strict.create(url: "https://10.1.2.3/x", events: ["user.created"])
            } throws: { error in
                let error = error as? SesameError
                return error?.kind == .badRequest && error?.message.contains("webhook_allowed_hosts") == true
            }
            _ = try await strict.create(url: "https://hooks.example.com/x", events: ["user.created"])
            strict.addressPolicy = WebhookAddressPolicy.parse(["10.0.0.0/8", "hooks.internal", "localhost"]).policy
            _ = try await strict.create(url: "https://10.1.2.3/x", events: ["user.created"])
            _ = try await strict.create(url: "https://hooks.internal/x", events: ["user.created"])
            _ = try await strict.create(url: "http://localhost:9/x", events: ["user.created"])
            await #expect(throws: SesameError.self) {
                _ = try await strict.create(url: "https://192.168.1.1/x", events: ["user.created"])
            }
        }
    }

    @Test("every subscribable event has the audit events that raise it; others raise none")
    func eventMapping() {
        let raised = Dictionary(
            grouping: AuditEventType.allCases.compactMap { type in
                WebhookEventType(audit: type.rawValue).map { ($0, type) }
            }, by: \.0
        ).mapValues { $0.map(\.1.rawValue).sorted() }
        #expect(Set(raised.keys) == Set(WebhookEventType.subscribable), "each event can happen")
        #expect(raised[.passkeyRegistered] == ["passkey_registered"])
        #expect(raised[.deviceKeyRegistered] == ["device_credential_registered"])
        #expect(raised[.loginFailed] == ["device_key_refused", "login_refused", "otp_failed", "passkey_failed"])
        #expect(WebhookEventType(audit: "code_sent") == nil, "codes are not events: they would carry nothing useful")
    }
}

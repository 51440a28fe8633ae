import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SesameCore
import SesameServer
import SesameStorageSQL
import Testing

/// Attacks on a deployment rather than an endpoint: reading secrets off the disk, codes in a
/// production log, internals in error messages, unsafe callback URLs.
@Suite("Attacks: readable data directory, codes in logs, unsafe callbacks")
struct DeploymentHardeningTests {
    static func quietLogger() -> Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }

    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sesame-hardening-\(UUID().uuidString)").path
    }

    /// Starts a server of `configuration` (no SMS provider), asks it for an SMS code and stops
    /// it: what the start threw, and whether the outbox table stayed empty.
    static func smsStartWithoutProvider(
        _ configuration: ServerConfiguration
    ) async throws -> (refusal: SesameError?, outboxEmpty: Bool) {
        let runtime = try await SesameRuntime.start(configuration, logger: quietLogger())
        let clientID = try await runtime.storage.listApplications()[0].clientID
        let request = PasswordlessStartRequest(
            clientID: clientID, clientSecret: nil, connection: "sms", email: nil, phoneNumber: "+14155550123", send: "code",
            ip: "198.51.100.7")
        var refusal: SesameError?
        do {
            _ = try await runtime.sesame.passwordless.start(request)
        } catch let error as SesameError {
            refusal = error
        }
        let outboxEmpty = try await runtime.storage.recentOutboxMessages(limit: 10, recipient: nil).isEmpty
        try await runtime.shutdown()
        return (refusal, outboxEmpty)
    }

    static func mode(_ path: String) -> Int16? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.int16Value
    }

    /// Attack: another local user reads the HMAC secret and signing keys out of a
    /// world-readable `sesame-data/` and forges tokens.
    @Test("readable secrets: the data directory is created 0700 and the database and its WAL 0600")
    func privateDataDirectory() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration(port: 1, dataDirectory: directory)
        configuration.host = "127.0.0.1"
        let runtime = try await SesameRuntime.start(configuration, logger: Self.quietLogger())
        // A write, so SQLite has opened its write-ahead log.
        _ = try await runtime.sesame.passwordless.start(
            PasswordlessStartRequest(
                clientID: try await runtime.storage.listApplications()[0].clientID, clientSecret: nil, connection: "email",
                email: "ana@example.com", phoneNumber: nil, send: "code", ip: "127.0.0.1"))
        let database = configuration.sqlitePath
        #expect(Self.mode(directory) == 0o700)
        #expect(Self.mode(database) == 0o600)
        #expect(Self.mode(database + "-wal") == 0o600)
        try await runtime.shutdown()
    }

    /// An existing data directory left open (created by hand, or by an older version) is not
    /// changed behind the operator's back, but the start says so.
    @Test("readable secrets: a data directory open to other users is reported at start")
    func openDataDirectoryWarned() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: NSNumber(value: Int16(0o755))])
        let lines = CapturedLog()
        let logger = Logger(label: "test") { _ in lines }
        let runtime = try await SesameRuntime.start(ServerConfiguration(port: 1, dataDirectory: directory), logger: logger)
        try await runtime.shutdown()
        #expect(lines.messages.contains { $0.contains(directory) && $0.contains("mode 755") && $0.contains("chmod 700") })
        #expect(Self.mode(directory) == 0o755, "left as the operator made it")
    }

    /// systemd's `StateDirectory` with `DynamicUser` is a symbolic link (mode 777) to a private
    /// directory: what counts is the directory's mode, not the link's, so no false alarm.
    @Test("a data directory reached through a symbolic link is judged by the directory it names")
    func symlinkedDataDirectory() async throws {
        let parent = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let target = parent + "/private-sesame"
        try FileManager.default.createDirectory(
            atPath: target, withIntermediateDirectories: true, attributes: [.posixPermissions: NSNumber(value: Int16(0o700))])
        let link = parent + "/sesame"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let lines = CapturedLog()
        let runtime = try await SesameRuntime.start(
            ServerConfiguration(port: 1, dataDirectory: link), logger: Logger(label: "test") { _ in lines })
        try await runtime.shutdown()
        #expect(!lines.messages.contains { $0.contains("open to other users") }, "\(lines.messages)")
    }

    /// Attack: an operator configured SMTP for production but not SMS; SMS codes fell back to
    /// the console outbox and landed in a log that many people (and a log service) can read.
    @Test("codes in logs: without a provider, a server beyond loopback refuses to send instead of logging")
    func consoleDeliveryRefusedBeyondLoopback() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration(port: 1, dataDirectory: directory)
        configuration.host = "0.0.0.0"
        #expect(!configuration.consoleDeliveryAllowed)
        let (refusal, outboxEmpty) = try await Self.smsStartWithoutProvider(configuration)
        #expect(
            refusal?.code == "sms_provider_error" && refusal?.message == "The text message could not be sent. Try again later.")
        #expect(outboxEmpty, "nothing in the outbox")

        configuration.allowConsoleDelivery = true
        #expect(configuration.consoleDeliveryAllowed, "the operator may allow it explicitly")
        configuration.host = "127.0.0.1"
        configuration.allowConsoleDelivery = false
        #expect(configuration.consoleDeliveryAllowed, "loopback: only this machine can reach it")
    }

    /// Attack: an application's callback list holds `javascript:` (or `data:`); a code or
    /// link redirected there runs the attacker's script on Sesame's origin.
    @Test("unsafe callbacks: javascript:, data:, http beyond loopback and fragments are refused")
    func callbackSchemes() async throws {
        #expect(CallbackURL.problem("https://app.example.com/cb", type: .spa) == nil)
        #expect(CallbackURL.problem("http://localhost:3000/callback", type: .spa) == nil)
        #expect(CallbackURL.problem("http://127.0.0.1:8123/cb", type: .native) == nil)
        #expect(CallbackURL.problem("com.example.app:/callback", type: .native) == nil)
        #expect(CallbackURL.problem("com.example.app:/callback", type: .regular) != nil, "custom schemes are for native apps")
        #expect(CallbackURL.problem("http://app.example.com/cb", type: .regular) != nil)
        #expect(CallbackURL.problem("javascript:alert(document.cookie)", type: .native) != nil)
        #expect(CallbackURL.problem("JavaScript:alert(1)", type: .native) != nil)
        #expect(CallbackURL.problem("data:text/html,<script>alert(1)</script>", type: .native) != nil)
        #expect(CallbackURL.problem("https://app.example.com/cb#frag", type: .spa) != nil)
        #expect(CallbackURL.problem("/relative", type: .native) != nil)

        // A stored row from before the rules: Sesame still never redirects there.
        try await Harness.run { h in
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) { $0.callbacks = ["javascript:alert(1)"] }
            let response = try await h.get(
                "/authorize?client_id=\(h.clientID)&response_type=code&redirect_uri=javascript:alert(1)&scope=openid")
            #expect(response.status == .badRequest)
            #expect(response.headers[.location] == nil)
        }
    }

    /// Attack: `127.evil.example` (or `localhost.evil.example`) is a name anyone can register;
    /// when an http callback counted as loopback by its first label, codes and tokens went in
    /// clear to the attacker's host.
    @Test("look-alike loopback: http callbacks must be 127/8, ::1 or localhost itself")
    func lookalikeLoopbackCallback() {
        for url in [
            "http://127.evil.example/cb", "http://127.0.0.1.evil.example/cb", "http://localhost.evil.example/cb",
            "http://127.1/cb", "http://0x7f.0.0.1/cb", "http://[::2]/cb",
        ] {
            #expect(CallbackURL.problem(url, type: .native) != nil, "\(url) is not loopback")
        }
        for url in ["http://127.0.0.1:8123/cb", "http://127.10.20.30/cb", "http://[::1]:8080/cb", "http://LOCALHOST/cb"] {
            #expect(CallbackURL.problem(url, type: .native) == nil, "\(url) is loopback")
        }
    }
}

/// A log handler that keeps warnings and above, for checking what a start reports.
final class CapturedLog: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning

    var messages: [String] { lock.withLock { stored } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.withLock { stored.append(event.message.description) }
    }
}

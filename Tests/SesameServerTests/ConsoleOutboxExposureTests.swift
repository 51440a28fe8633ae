import Foundation
import Logging
import SesameCore
import SesameServer
import SesameStorageSQL
import Testing

/// Where codes may be printed to the log (the console outbox).
@Suite("Console outbox on public servers")
struct ConsoleOutboxExposureTests {
    /// Attack (codes in logs): the sample production configuration listens on 127.0.0.1 behind
    /// a reverse proxy, with an https issuer. Loopback made the console outbox look safe, so
    /// with SMS enabled every code was printed to a log that operators, log shippers and a log
    /// service read, and kept in clear in the outbox table: anyone there could sign in as
    /// anyone with a phone number.
    @Test("codes in logs: an https issuer or a trusted proxy makes the server public, so codes are not logged")
    func consoleOutboxBehindProxy() async throws {
        var configuration = ServerConfiguration(port: 1, issuer: "https://login.example.com/")
        #expect(configuration.host == "127.0.0.1")
        #expect(!configuration.consoleDeliveryAllowed, "an https issuer is public")
        #expect(configuration.consoleDeliveryRefusal?.contains("https") == true)

        configuration = ServerConfiguration(port: 1)
        configuration.trustedProxies = [IPRange("127.0.0.1")!]
        #expect(!configuration.consoleDeliveryAllowed, "a trusted proxy publishes the server")
        configuration.trustedProxies = []
        configuration.trustProxy = true
        #expect(!configuration.consoleDeliveryAllowed, "so does trust_proxy")

        configuration.allowConsoleDelivery = true
        #expect(configuration.consoleDeliveryAllowed, "the operator may opt in explicitly")
    }

    @Test("zero configuration on http://localhost keeps the console outbox")
    func zeroConfigurationKeepsConsole() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-console-\(UUID().uuidString)")
            .path
        let configuration = try await ServerConfiguration.load(flags: ["data_dir": directory], environment: [:])
        #expect(configuration.settings.issuer.hasPrefix("http://localhost"))
        #expect(configuration.consoleDeliveryAllowed)
        #expect(configuration.consoleDeliveryRefusal == nil)
    }

    /// The same attack end to end: an SMS start on a public server without a provider is
    /// refused and nothing lands in the outbox table.
    @Test("codes in logs: a public server without an SMS provider refuses to send and stores no code")
    func publicServerStoresNoCode() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-console-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = ServerConfiguration(port: 1, dataDirectory: directory, issuer: "https://login.example.com/")
        let (refusal, outboxEmpty) = try await DeploymentHardeningTests.smsStartWithoutProvider(configuration)
        #expect(refusal?.code == "sms_provider_error")
        #expect(outboxEmpty, "no code in the outbox")
    }
}

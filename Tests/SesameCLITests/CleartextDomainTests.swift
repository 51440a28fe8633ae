import Foundation
import Testing

@testable import SesameCLI

/// Attack (eavesdropping): `sesame login --domain http://login.example.com` sent the code, the
/// link and the tokens in clear to anyone on the path (a café's Wi-Fi, a proxy), who could
/// replay them. http:// is for a server on this machine only.
@Suite("sesame login: cleartext domains")
struct CleartextDomainTests {
    @Test("login over http:// to another host is refused before anything is sent")
    func cleartextLoginToRemoteHost() async throws {
        let directory = Sesame.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for domain in ["http://login.example.com", "http://localhost.example.com", "http://127.0.0.1.example.com"] {
            let result = try await Sesame.run(
                ["login", "email", "someone@example.com", "--domain", domain, "--client-id", "app"],
                environment: ["XDG_CONFIG_HOME": directory])
            #expect(result.status != 0, "\(domain)")
            #expect(result.stderr.contains("http:// is allowed only on this machine"), "\(domain): \(result.stderr)")
        }
    }

    @Test(
        "http:// stays allowed on loopback, https:// everywhere",
        arguments: [
            "http://localhost:3000", "http://LOCALHOST", "http://127.0.0.1:3000", "http://127.8.9.10", "http://[::1]:3000",
            "https://login.example.com",
        ])
    func loopbackAndTLSAllowed(domain: String) throws {
        #expect(ClientSessionOptions.cleartextProblem(try #require(URL(string: domain))) == nil)
    }

    @Test(
        "http:// to anything that is not loopback is refused",
        arguments: ["http://login.example.com", "http://10.0.0.1", "http://[::2]", "http://localhost.evil.example"])
    func remoteCleartextRefused(domain: String) throws {
        #expect(ClientSessionOptions.cleartextProblem(try #require(URL(string: domain))) != nil)
    }
}

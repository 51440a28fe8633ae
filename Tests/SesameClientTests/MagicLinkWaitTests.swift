import Foundation
import SesameAPI
import SesameClient
import SesameCore
import SesameServer
import Testing

@testable import SesameClientCore

/// A link opened on another device while the app waits: the person confirms there with the
/// number the app shows (approved here through the server's Core API, as the page does).
@Suite("SesameClient: magic links across devices")
struct MagicLinkWaitTests {
    /// Confirms the newest link to `email` with `match`, as the page on the other device does.
    func approve(_ server: LiveServer, _ email: String, match: String) async throws {
        let query = URLComponents(url: try await server.link(for: email), resolvingAgainstBaseURL: false)?.queryItems ?? []
        let value = { (name: String) in query.first { $0.name == name }?.value }
        _ = try await server.runtime.sesame.linkRequests.approve(
            id: value("request"), match: match,
            credentials: PasswordlessCredentials(connection: "email", username: email, code: value("verification_code")),
            ip: nil)
    }

    @Test("the app shows the number, waits while pending, and signs in once the link is confirmed")
    func waitsThenSignsIn() async throws {
        try await LiveServer.run { server in
            let client = server.client
            let wait = try await client.startMagicLink(email: "ana@example.com")
            #expect(wait.matchCode.count == 2 && wait.interval == 2 && wait.expiresIn == 900)
            let sleeps = Counter()
            let credentials = try await client.waitForMagicLink(wait, scope: SesameClient.defaultScope, audience: nil) {
                seconds in
                #expect(seconds == 2)
                // The person confirms while the app waits.
                sleeps.increment()
                if sleeps.count == 1 { try await approve(server, "ana@example.com", match: wait.matchCode) }
            }
            #expect(sleeps.count == 1, "one pending poll, then the tokens")
            #expect(credentials.idToken != nil && credentials.refreshToken != nil)
            let profile = try await client.userInfo(accessToken: credentials.accessToken)
            #expect(profile.email == "ana@example.com")
        }
    }

    /// Attack: a stranger's link; the person who gets it types a number they were never shown.
    @Test("a wrong number on the other device ends the wait with isAccessDenied")
    func denied() async throws {
        try await LiveServer.run { server in
            let client = server.client
            let wait = try await client.startMagicLink(email: "ana@example.com")
            let wrong = wait.matchCode == "00" ? "01" : "00"
            await #expect(throws: SesameError.self) { try await approve(server, "ana@example.com", match: wrong) }
            await #expect {
                try await client.waitForMagicLink(wait)
            } throws: {
                ($0 as? SesameClientError)?.isAccessDenied == true
            }
        }
    }

    @Test("an expired link ends the wait with isLinkExpired")
    func expired() async throws {
        try await LiveServer.run { server in
            let client = server.client
            let wait = try await client.startMagicLink(email: "ana@example.com")
            server.clock.advance(by: 901)
            await #expect {
                try await client.waitForMagicLink(wait)
            } throws: {
                ($0 as? SesameClientError)?.isLinkExpired == true
            }
        }
    }
}

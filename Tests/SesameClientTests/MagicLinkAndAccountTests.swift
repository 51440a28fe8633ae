import Foundation
import SesameClient
import Testing

/// Links an app opens, and the passkey list a signed-in person manages.
@Suite("SesameClient: magic links and the account's passkeys")
struct MagicLinkAndAccountTests {
    @Test("a mailed web link signs in through the SDK; foreign URLs are not links")
    func webLink() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            try await client.startPasswordless(email: "ana@example.com", send: .link)
            let parsed = try #require(client.magicLink(from: try await server.link(for: "ana@example.com")))
            #expect(parsed.connection == "email" && parsed.identifier == "ana@example.com")
            let credentials = try await client.login(with: parsed)
            #expect(credentials.idToken != nil)
            #expect(
                client.magicLink(from: URL(string: "https://evil.example/passwordless/verify_redirect?verification_code=x")!)
                    == nil)
        }
    }

    @Test("an app link carries only the code; the app supplies the address it asked for")
    func appLink() throws {
        let client = SesameClient(domain: URL(string: "https://login.example.com")!, clientID: "app")
        let link = try #require(
            client.magicLink(from: URL(string: "https://login.example.com/ios/com.example.app/email?code=abc")!))
        #expect(link == MagicLink(connection: "email", code: "abc", identifier: nil))
    }

    @Test("the passkey list needs the My Account scope; an unknown passkey is a typed 404")
    func accountPasskeys() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            let scope = "openid email read:me:authentication_methods delete:me:authentication_methods"
            let credentials = try await server.signIn(client, scope: scope)
            #expect(try await client.passkeys(accessToken: credentials.accessToken).isEmpty)
            await #expect { try await client.deletePasskey("nope", accessToken: credentials.accessToken) } throws: {
                ($0 as? SesameClientError)?.status == 404
            }
            await #expect { try await client.renamePasskey("nope", to: "x", accessToken: credentials.accessToken) } throws: {
                ($0 as? SesameClientError)?.code == "insufficient_scope"
            }
        }
    }
}

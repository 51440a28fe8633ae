import Foundation
import SesameAPI
import SesameClient
import Testing

@testable import SesameClientCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Attack: a token that is not the server's, or not for this app, passed off as a login
/// (a forged signature, a token minted for another client, an expired one, a replayed nonce).
@Suite("SesameClient: id_token verification")
struct IDTokenVerifierTests {
    @Test("forged signatures, other audiences, expiry and wrong nonces are refused")
    func refusals() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            let credentials = try await server.signIn(client)
            let token = try #require(credentials.idToken)
            let transport = client.transport
            let ours = IDTokenVerifier(transport: transport, clientID: server.clientID)
            try await ours.verify(token, nonce: nil, now: Date())

            var parts = token.split(separator: ".").map(String.init)
            var signature = try #require(Base64URL.decode(parts[2]))
            signature[0] ^= 0x01
            parts[2] = Base64URL.encode(signature)
            await #expect { try await ours.verify(parts.joined(separator: "."), nonce: nil, now: Date()) } throws: {
                ($0 as? SesameClientError)?.isInvalidIDToken == true
            }
            let theirs = IDTokenVerifier(transport: transport, clientID: "another-app")
            await #expect { try await theirs.verify(token, nonce: nil, now: Date()) } throws: {
                ($0 as? SesameClientError)?.message.contains("not for this client") == true
            }
            await #expect { try await ours.verify(token, nonce: nil, now: Date().addingTimeInterval(86400)) } throws: {
                ($0 as? SesameClientError)?.message.contains("expired") == true
            }
            await #expect { try await ours.verify(token, nonce: "n-1", now: Date()) } throws: {
                ($0 as? SesameClientError)?.message.contains("nonce") == true
            }
        }
    }
}

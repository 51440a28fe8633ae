import Foundation
import SesameAPI
import SesameClient
import Testing

/// The SDK's DPoP (RFC 9449) against a real server: the nonce round trip, bound tokens at
/// /userinfo, and a refresh token that renews only with the key.
@Suite("SesameClient with DPoP against a live server")
struct DPoPClientTests {
    @Test("a DPoP client signs in bound, reads the profile and renews; its tokens are useless without the key")
    func boundLifecycle() async throws {
        try await LiveServer.run { server in
            let dpop = DPoP()
            let client = server.client.usingDPoP(dpop)
            try await client.startPasswordless(email: "ana@example.com")
            let credentials = try await client.login(
                email: "ana@example.com", code: try await server.code(for: "ana@example.com"))
            #expect(credentials.tokenType == "DPoP")
            let profile = try await client.userInfo(accessToken: credentials.accessToken)
            #expect(profile.email == "ana@example.com")
            let renewed = try await client.renew(refreshToken: try #require(credentials.refreshToken))
            #expect(renewed.tokenType == "DPoP")

            // The same tokens through a client without the key: refused.
            await #expect { _ = try await server.client.userInfo(accessToken: renewed.accessToken) } throws: {
                ($0 as? SesameClientError)?.status == 401
            }
            await #expect {
                _ = try await server.client.usingDPoP(DPoP()).renew(refreshToken: try #require(renewed.refreshToken))
            } throws: { ($0 as? SesameClientError)?.code == "invalid_grant" }
        }
    }

    @Test("the device key is usable as the DPoP key, and its thumbprint is RFC 7638's")
    func deviceKeyAsDPoPKey() async throws {
        try await LiveServer.run { server in
            let store = FileDeviceKeyStore(
                path: FileManager.default.temporaryDirectory.appendingPathComponent("dpop-\(UUID().uuidString)").path)
            let key = try DeviceKey.generate()
            let dpop = try DPoP(deviceKey: key, store: store)
            #expect(dpop.thumbprint.count == 43)
            let client = server.client.usingDPoP(dpop)
            try await client.startPasswordless(email: "ben@example.com")
            let credentials = try await client.login(
                email: "ben@example.com", code: try await server.code(for: "ben@example.com"))
            #expect(credentials.tokenType == "DPoP")
            #expect(try await client.userInfo(accessToken: credentials.accessToken).email == "ben@example.com")
        }
    }
}

import Foundation
import SesameAPI
import SesameClient
import SesameSoftwareAuthenticator
import Testing

/// Passkeys through the SDK with the software authenticator, against a live server.
@Suite("SesameClient: passkeys")
struct PasskeyLoginTests {
    @Test("sign up with a passkey, then sign in with it alone; the authenticator keeps it in a 0600 file")
    func signUpThenSignIn() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-passkeys-\(UUID().uuidString)")
                .path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/passkeys.json"
            let authenticator = try SoftwareAuthenticator(path: path)
            let created = try await client.signUpWithPasskey(email: "ana@example.com", authenticator: authenticator)
            #expect(created.idToken != nil && created.refreshToken == nil, "no refresh token until the address is proven")
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600)

            let reloaded = try SoftwareAuthenticator(path: path)
            let signedIn = try await client.loginWithPasskey(authenticator: reloaded)
            let profile = try await client.userInfo(accessToken: signedIn.accessToken)
            #expect(profile.email == "ana@example.com" && profile.emailVerified == false)
        }
    }

    @Test("an authenticator without a passkey for the server says so")
    func noPasskey() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            await #expect(throws: SoftwareAuthenticatorError.self) {
                _ = try await client.loginWithPasskey(authenticator: try SoftwareAuthenticator())
            }
        }
    }
}

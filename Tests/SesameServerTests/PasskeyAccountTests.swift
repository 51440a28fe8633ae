import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import SesameAPI
import SesameCore
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

@Suite("Passkeys: users' own list, rename and delete; CORS; app association files")
struct PasskeyAccountTests {
    @Test("a user lists, renames and deletes their passkeys with their access token")
    func manageOwnPasskeys() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            let tokens = try await device.signUp(email: "ana@example.com")
            let auth: HTTPFields = [.authorization: "Bearer \(tokens.accessToken)"]
            let list = try await h.get("/me/passkeys", headers: auth)
            let items = try #require(try JSONSerialization.jsonObject(with: Data(buffer: list.body)) as? [[String: Any]])
            #expect(items.count == 1 && items[0]["public_key"] == nil)
            let id = try #require(items[0]["id"] as? String)
            let renamed = try await h.client.execute(
                uri: "/me/passkeys/\(id)", method: .patch,
                headers: [.authorization: "Bearer \(tokens.accessToken)", .contentType: "application/json"],
                body: .init(string: #"{"name":"Work laptop"}"#))
            let name = try renamed.json()["name"] as? String
            #expect(renamed.status == .ok && name == "Work laptop")
            let deleted = try await h.client.execute(uri: "/me/passkeys/\(id)", method: .delete, headers: auth)
            #expect(deleted.status == .noContent)
            #expect(try await device.signIn().status == .forbidden)
        }
    }

    @Test("one user cannot see, rename or delete another user's passkey")
    func otherUsersPasskeys() async throws {
        try await Harness.run { h in
            let ana = PasskeyClient(h)
            _ = try await ana.signUp(email: "ana@example.com")
            let bob = try await h.accountLogin(email: "bob@example.com")
            let auth: HTTPFields = [.authorization: "Bearer \(bob.accessToken)"]
            let id = SesameAPI.Base64URL.encode(ana.credentialID)
            let list = try await h.get("/me/passkeys", headers: auth)
            #expect(list.status == .ok && list.text == "[]")
            let deleted = try await h.client.execute(uri: "/me/passkeys/\(id)", method: .delete, headers: auth)
            #expect(deleted.status == .notFound)
            #expect(try await ana.signIn().status == .ok)
        }
    }

    @Test("without a valid access token /me/passkeys is 401")
    func unauthenticated() async throws {
        try await Harness.run { h in
            let anonymous = try await h.get("/me/passkeys")
            let forged = try await h.get("/me/passkeys", headers: [.authorization: "Bearer sat_forged"])
            #expect(anonymous.status == .unauthorized && forged.status == .unauthorized)
        }
    }

    @Test("CORS preflight answers an application's allowed origin, and an admin change applies at once")
    func cors() async throws {
        try await Harness.run { h in
            let origin = "https://app.example.net"
            let preflight: HTTPFields = [.origin: origin, .accessControlRequestMethod: "POST"]
            let before = try await h.client.execute(uri: "/passkey/challenge", method: .options, headers: preflight)
            #expect(before.headers[.accessControlAllowOrigin] == nil)
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) { $0.allowedOrigins = [origin] }
            let after = try await h.client.execute(uri: "/passkey/challenge", method: .options, headers: preflight)
            #expect(after.status == .noContent && after.headers[.accessControlAllowOrigin] == origin)
            let token = try await h.post("/oauth/token", ["grant_type": "refresh_token"], headers: [.origin: origin])
            #expect(token.headers[.accessControlAllowOrigin] == origin)
        }
    }

    @Test("a passkey made on an allowed web origin works once the application lists it")
    func applicationOrigin() async throws {
        try await Harness.run { h in
            var device = PasskeyClient(h)
            device.origin = "https://shop.example.com"
            let challenge = try await device.signupChallenge(["email": "ana@example.com"])
            let refused = try await device.finish(challenge, try device.attest(challenge))
            #expect(refused.status == .forbidden)
            let origin = device.origin
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) { $0.allowedOrigins = [origin] }
            let retry = try await device.signupChallenge(["email": "ana@example.com"])
            #expect(try await device.finish(retry, try device.attest(retry)).status == .ok)
        }
    }

    @Test("an Android app's signing certificate becomes an accepted origin and an assetlinks statement")
    func androidApp() async throws {
        try await Harness.run { h in
            let fingerprint = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) {
                $0.androidPackages = ["com.example.app"]
                $0.androidFingerprints = [fingerprint]
                $0.iosTeamID = "ABCDE12345"
                $0.iosBundleIDs = ["com.example.ios"]
            }
            var device = PasskeyClient(h)
            device.origin = "android:apk-key-hash:" + SesameAPI.Base64URL.encode(Array(0..<32))
            #expect(try await device.signUp(email: "ana@example.com").idToken != nil)
            let links = try await h.get("/.well-known/assetlinks.json")
            #expect(links.text.contains(#""package_name":"com.example.app""#) && links.text.contains(fingerprint))
            #expect(links.text.contains("delegate_permission/common.get_login_creds"))
            let apple = try await h.get("/.well-known/apple-app-site-association")
            #expect(apple.text.contains(#""webcredentials":{"apps":["ABCDE12345.com.example.ios"]}"#))
        }
    }

    @Test("a connection's policy: required user verification refuses an answer without UV")
    func policyUserVerification() async throws {
        try await Harness.run { h in
            var connection = try #require(try await h.sesame.storage.connection(name: "email"))
            connection.passkeyPolicy.userVerification = "required"
            try await h.sesame.storage.saveConnection(connection)
            let device = PasskeyClient(h)
            let challenge = try await device.signupChallenge(["email": "ana@example.com"])
            let options = try challenge.json()["authn_params_public_key"] as? [String: Any]
            #expect((options?["authenticatorSelection"] as? [String: Any])?["userVerification"] as? String == "required")
            let response = try await device.finish(challenge, try device.attest(challenge) { $0.flags = 0x41 })
            #expect(response.status == .forbidden && response.error?.errorDescription.contains("user_verification") == true)
        }
    }

    @Test("passkeys switched off on a connection answer 404 with a reason")
    func policyDisabled() async throws {
        try await Harness.run { h in
            var connection = try #require(try await h.sesame.storage.connection(name: "email"))
            connection.passkeyPolicy.enabled = false
            try await h.sesame.storage.saveConnection(connection)
            let response = try await PasskeyClient(h).loginChallenge()
            #expect(response.status == .notFound && response.error?.errorDescription.contains("not enabled") == true)
        }
    }
}

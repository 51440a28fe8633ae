import CryptoExtras
import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import NIOFoundationEssentialsCompat
import SesameAPI
import SesameCore
import SesameServer
import SesameStorageConformance
import SesameWebAuthn
import Testing

@Suite("OpenID Connect: discovery, JWKS, id_token, /userinfo")
struct OIDCTests {
    @Test("discovery names our endpoints; the issuer keeps its trailing slash")
    func discovery() async throws {
        try await Harness.run { h in
            let response = try await h.get("/.well-known/openid-configuration")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            #expect(document["issuer"] as? String == "https://login.example.com/")
            #expect(document["token_endpoint"] as? String == "https://login.example.com/oauth/token")
            #expect(document["jwks_uri"] as? String == "https://login.example.com/.well-known/jwks.json")
            #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
        }
    }

    /// auth0-python parses every JWKS key as RSA, so any other key type would break it.
    @Test("the JWKS holds only RSA signing keys")
    func jwksIsRSAOnly() async throws {
        try await Harness.run { h in
            let jwks = try await h.get("/.well-known/jwks.json").decode(JWKSDocument.self)
            #expect(!jwks.keys.isEmpty)
            #expect(jwks.keys.allSatisfy { $0.kty == "RSA" && $0.alg == "RS256" && $0.use == "sig" && $0.e == "AQAB" })
        }
    }

    /// Verified only with what the JWKS endpoint publishes, as a relying party would.
    @Test("the id_token verifies against the published JWKS with the claims Auth0 clients check")
    func idTokenVerifies() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "ana@example.com")
            let tokens = try await h.post(
                "/oauth/token",
                [
                    "grant_type": GrantType.passwordlessOTP, "client_id": h.clientID, "realm": "email",
                    "username": "ana@example.com", "otp": h.code(for: "ana@example.com"), "scope": "openid email",
                    "nonce": "n-0S6_WzA2Mj",
                ]
            ).tokens()
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: try await h.get("/.well-known/jwks.json").text)
            let claims = try await keys.verify(try #require(tokens.idToken), as: IDTokenClaims.self)
            #expect(claims.iss == "https://login.example.com/")
            #expect(claims.aud == h.clientID)
            #expect(claims.sub.hasPrefix("email|"))
            #expect(claims.exp - claims.iat == 36000)
            #expect(claims.nonce == "n-0S6_WzA2Mj")
            #expect(claims.email == "ana@example.com" && claims.emailVerified == true)
            #expect(claims.name == nil, "profile claims only with the profile scope")
            let header = try #require(String(tokens.idToken!.split(separator: ".")[0]).base64URLJSON)
            #expect(header["alg"] as? String == "RS256" && header["kid"] as? String != nil)
        }
    }

    @Test("/userinfo answers the profile for a valid access token")
    func userInfo() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com")
            let response = try await h.get("/userinfo", headers: [.authorization: "Bearer \(tokens.accessToken)"])
            let info = try response.decode(UserInfo.self)
            #expect(info.sub.hasPrefix("email|") && info.email == "ana@example.com" && info.nickname == "ana")
        }
    }

    /// Attack: forged or altered access tokens, and tokens of blocked users.
    @Test("/userinfo refuses missing, forged, expired and blocked-user tokens with 401")
    func userInfoRefusals() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com")
            let missing = try await h.get("/userinfo")
            #expect(missing.status == .unauthorized && missing.error?.error == "invalid_token")
            #expect(missing.header("WWW-Authenticate") == "Bearer error=\"invalid_token\"")
            var forged = Array(tokens.accessToken)
            forged[10] = forged[10] == "A" ? "B" : "A"
            #expect(try await h.get("/userinfo", headers: [.authorization: "Bearer \(String(forged))"]).status == .unauthorized)
            let user = try #require(try await h.sesame.storage.listUsers(limit: 1, offset: 0).first)
            _ = try await h.sesame.storage.updateUser(id: user.id) { $0.blocked = true }
            #expect(
                try await h.get("/userinfo", headers: [.authorization: "Bearer \(tokens.accessToken)"]).status == .unauthorized)
            _ = try await h.sesame.storage.updateUser(id: user.id) { $0.blocked = false }
            h.clock.advance(by: 86401)
            #expect(
                try await h.get("/userinfo", headers: [.authorization: "Bearer \(tokens.accessToken)"]).status == .unauthorized)
        }
    }

    /// Attack: a JWT access token signed with an attacker's key under our kid.
    @Test("a JWT access token signed by another key is refused")
    func foreignJWT() async throws {
        try await Harness.run(configure: { $0.audiences = ["https://api.example.com"] }) { h in
            let kid = try await h.get("/.well-known/jwks.json").decode(JWKSDocument.self).keys[0].kid
            let attacker = JWTKeyCollection()
            await attacker.add(
                rsa: try Insecure.RSA.PrivateKey(backing: try _RSA.Signing.PrivateKey(keySize: .bits2048)),
                digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            let user = try await h.login(email: "ana@example.com")
            _ = user
            let sub = try #require(try await h.sesame.storage.listUsers(limit: 1, offset: 0).first).userID
            let claims = AccessTokenClaims(
                iss: "https://login.example.com/", sub: sub,
                aud: ["https://api.example.com", "https://login.example.com/userinfo"], azp: h.clientID,
                iat: h.clock.now().epochSeconds, exp: h.clock.now().epochSeconds + 600, scope: "openid email", gty: nil)
            let forged = try await attacker.sign(claims, kid: JWKIdentifier(string: kid))
            #expect(try await h.get("/userinfo", headers: [.authorization: "Bearer \(forged)"]).status == .unauthorized)
        }
    }

    @Test("/health answers ok with the version and commit running")
    func health() async throws {
        try await Harness.run { h in
            let response = try await h.get("/health")
            #expect(
                response.text
                    == "{\"commit\":\"\(BuildInfo.commit)\",\"status\":\"ok\",\"version\":\"\(BuildInfo.version)\"}")
        }
    }
}

extension String {
    /// Decodes a base64url JSON object (a JWT header).
    var base64URLJSON: [String: Any]? {
        Base64URL.decode(self).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }
}

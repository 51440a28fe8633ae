import Crypto
import Foundation
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

/// DPoP (RFC 9449) in Core: proofs at the token endpoint, bound tokens at protected
/// resources, and refresh tokens bound to the key that got them.
@Suite struct DPoPTests {
    /// The key a token request proves, after the nonce round trip the token endpoint asks for.
    static func provenKey(_ world: CoreWorld, _ key: DPoPKey) async throws -> String {
        let first = try await refusal {
            _ = try await world.sesame.tokens.tokenRequestKey(
                proofs: [key.proof(at: world.clock.now())], path: "/oauth/token")
        }
        #expect(first.code == .useDPoPNonce)
        let nonce = try #require(first.dpop?.nonce)
        let proof = key.proof(at: world.clock.now(), nonce: nonce)
        return try #require(try await world.sesame.tokens.tokenRequestKey(proofs: [proof], path: "/oauth/token"))
    }

    /// A code login whose tokens are bound to `key`.
    static func boundSignIn(_ world: CoreWorld, _ key: DPoPKey) async throws -> TokenResponse {
        var request = world.request()
        request.dpopThumbprint = try await provenKey(world, key)
        let code = try await world.code(for: "ana@example.com")
        return try await world.sesame.passwordless.finish(
            PasswordlessCredentials(connection: "email", username: "ana@example.com", code: code), request: request,
            ip: nil)
    }

    /// A resource request presenting `token` as DPoP with `proof`.
    static func presented(_ token: String, proof: String?, path: String = "/userinfo") -> PresentedAccessToken {
        PresentedAccessToken(scheme: .dpop, token: token, proofs: proof.map { [$0] } ?? [], method: "GET", path: path)
    }

    @Test("a login with a proof answers token_type DPoP, and /userinfo takes the token with a proof by its key")
    func boundLogin() async throws {
        try await CoreWorld.run { world in
            let key = DPoPKey()
            let tokens = try await Self.boundSignIn(world, key)
            #expect(tokens.tokenType == "DPoP" && tokens.refreshToken != nil)
            let proof = key.proof("GET", CoreWorld.issuer + "userinfo", at: world.clock.now(), accessToken: tokens.accessToken)
            let profile = try await world.sesame.tokens.userInfo(Self.presented(tokens.accessToken, proof: proof))
            #expect(profile.email == "ana@example.com")
            // An unbound login stays Bearer.
            #expect(try await world.signIn("ben@example.com").tokenType == "Bearer")
        }
    }

    // Attack: a refresh token of a public client leaks (a backup, a log, malware reading the
    // app's storage) and the thief spends it from their own machine, without the device's key
    // or with a key of their own. The token is bound to the key that got it, so both are
    // refused before rotation, and the owner's next refresh still works.
    @Test("a stolen refresh token without the key (or with another key) is refused; the owner's keeps working")
    func stolenRefreshTokenWithoutKey() async throws {
        try await CoreWorld.run { world in
            let key = DPoPKey()
            let tokens = try await Self.boundSignIn(world, key)
            let refreshToken = try #require(tokens.refreshToken)
            let bare = try await refusal {
                _ = try await world.sesame.tokens.refresh(refreshToken, application: world.application, scope: nil)
            }
            #expect(bare.code == .invalidGrant)
            let thief = try await Self.provenKey(world, DPoPKey())
            let other = try await refusal {
                _ = try await world.sesame.tokens.refresh(
                    refreshToken, application: world.application, scope: nil, dpopThumbprint: thief)
            }
            #expect(other.code == .invalidGrant)
            let owner = try await Self.provenKey(world, key)
            let renewed = try await world.sesame.tokens.refresh(
                refreshToken, application: world.application, scope: nil, dpopThumbprint: owner)
            #expect(renewed.tokenType == "DPoP")
            // Rotation keeps the binding: the heir is refused without the key too.
            let heir = try await refusal {
                _ = try await world.sesame.tokens.refresh(
                    renewed.refreshToken, application: world.application, scope: nil)
            }
            #expect(heir.code == .invalidGrant)
            // Attack: the rotated token replayed without the key. Reuse would revoke the family;
            // a thief without the key must not be able to end the owner's session that way.
            let replay = try await refusal {
                _ = try await world.sesame.tokens.refresh(refreshToken, application: world.application, scope: nil)
            }
            #expect(replay.code == .invalidGrant)
            let next = try await world.sesame.tokens.refresh(
                renewed.refreshToken, application: world.application, scope: nil,
                dpopThumbprint: try await Self.provenKey(world, key))
            #expect(next.tokenType == "DPoP")
        }
    }

    // Attack: an attacker who sees one request (a proxy log, a compromised TLS terminator)
    // sends its DPoP proof again to get tokens or use a token. A proof's jti is spent on first
    // use, so the replay is refused.
    @Test("a replayed proof is refused")
    func replayedProof() async throws {
        try await CoreWorld.run { world in
            let key = DPoPKey()
            let nonce = world.sesame.tokens.dpopNonce()
            let proof = key.proof(at: world.clock.now(), nonce: nonce)
            _ = try await world.sesame.tokens.tokenRequestKey(proofs: [proof], path: "/oauth/token")
            let replay = try await refusal {
                _ = try await world.sesame.tokens.tokenRequestKey(proofs: [proof], path: "/oauth/token")
            }
            #expect(replay.code == .invalidDPoPProof)
        }
    }

    // Attack: a proof captured for one endpoint (or method) is sent to another, to use a
    // bound token there or to get tokens. htm and htu must name this request.
    @Test("a proof for another URL or method is refused")
    func proofForAnotherURLOrMethod() async throws {
        try await CoreWorld.run { world in
            let key = DPoPKey()
            let nonce = world.sesame.tokens.dpopNonce()
            let wrongURL = key.proof("POST", CoreWorld.issuer + "userinfo", at: world.clock.now(), nonce: nonce)
            let wrongMethod = key.proof("GET", at: world.clock.now(), nonce: nonce)
            for proof in [wrongURL, wrongMethod] {
                let error = try await refusal {
                    _ = try await world.sesame.tokens.tokenRequestKey(proofs: [proof], path: "/oauth/token")
                }
                #expect(error.code == .invalidDPoPProof)
            }
            // The query and fragment are not compared (RFC 9449 §4.3).
            let withQuery = key.proof("POST", CoreWorld.issuer + "oauth/token?x=1#y", at: world.clock.now(), nonce: nonce)
            #expect(try await world.sesame.tokens.tokenRequestKey(proofs: [withQuery], path: "/oauth/token") != nil)
        }
    }

    // Attack: a proof made long ago (kept by an attacker, or pre-computed on a device the
    // attacker held for a moment) is used later. Its iat must be within minutes of now.
    @Test("a proof with a stale or future iat is refused")
    func staleIat() async throws {
        try await CoreWorld.run { world in
            let key = DPoPKey()
            let nonce = world.sesame.tokens.dpopNonce()
            for iat in [world.clock.now() - 600, world.clock.now() + 600] {
                let error = try await refusal {
                    _ = try await world.sesame.tokens.tokenRequestKey(
                        proofs: [key.proof(at: iat, nonce: nonce)], path: "/oauth/token")
                }
                #expect(error.code == .invalidDPoPProof)
            }
        }
    }

    @Test("a nonce of another window, a proof of another type or a tampered one is refused")
    func badNonceTypeAndSignature() async throws {
        try await CoreWorld.run { world in
            let key = DPoPKey()
            let old = world.sesame.tokens.dpopNonce()
            world.clock.advance(by: 700)
            let stale = try await refusal {
                _ = try await world.sesame.tokens.tokenRequestKey(
                    proofs: [key.proof(at: world.clock.now(), nonce: old)], path: "/oauth/token")
            }
            #expect(stale.code == .useDPoPNonce && stale.dpop?.nonce != old)
            let nonce = world.sesame.tokens.dpopNonce()
            let jwt = key.proof(at: world.clock.now(), nonce: nonce, typ: "JWT")
            // Another key's signature over this proof's header and claims.
            let signed = key.proof(at: world.clock.now(), nonce: nonce)
            let forged = DPoPKey().proof(at: world.clock.now(), nonce: nonce)
            let tampered =
                String(signed.prefix { $0 != "." }) + "." + signed.split(separator: ".")[1] + "."
                + forged.split(separator: ".")[2]
            for proof in [jwt, tampered, "not.a.jwt"] {
                let error = try await refusal {
                    _ = try await world.sesame.tokens.tokenRequestKey(proofs: [proof], path: "/oauth/token")
                }
                #expect(error.code == .invalidDPoPProof)
            }
        }
    }

    // Attack: a DPoP-bound access token is stolen and sent as a plain bearer token, or as
    // DPoP with a proof the thief made with their own key, or with no ath: every resource
    // refuses it, answering with a DPoP challenge.
    @Test("bearer use of a bound token, or a proof by another key or for another token, is refused")
    func bearerUseOfBoundToken() async throws {
        try await CoreWorld.run { world in
            let key = DPoPKey()
            let token = try await Self.boundSignIn(world, key).accessToken
            let bearer = try await refusal { _ = try await world.sesame.tokens.authenticate(accessToken: token) }
            #expect(bearer.code == .invalidToken && bearer.dpop?.resource == true)
            let now = world.clock.now()
            let url = CoreWorld.issuer + "userinfo"
            let proofs = [
                DPoPKey().proof("GET", url, at: now, accessToken: token),  // the thief's key
                key.proof("GET", url, at: now),  // no ath
                key.proof("GET", url, at: now, accessToken: token + "x"),  // another token's ath
                nil,  // no proof
            ]
            for proof in proofs {
                let error = try await refusal {
                    _ = try await world.sesame.tokens.authenticate(Self.presented(token, proof: proof))
                }
                #expect(error.kind == .unauthorized && error.dpop?.resource == true, "\(error)")
            }
            // An unbound token sent as DPoP is refused too: the scheme must match the token.
            let plain = try await world.signIn("ben@example.com").accessToken
            let unbound = try await refusal {
                _ = try await world.sesame.tokens.authenticate(
                    Self.presented(plain, proof: key.proof("GET", url, at: now, accessToken: plain)))
            }
            #expect(unbound.code == .invalidToken)
        }
    }
    // Attack: an authorization code is stolen from the redirect (another app registered for
    // the same callback scheme, a leaked log) and exchanged by the thief, with PKCE's verifier
    // leaked too. The app asked for it with dpop_jkt (RFC 9449 §10): without a proof by that
    // key, or with the thief's own, the exchange is refused.
    @Test("a code asked for with dpop_jkt is refused without that key's proof, and exchanged with it")
    func stolenCodeWithoutTheKey() async throws {
        try await CoreWorld.run { world in
            _ = try await world.signIn("ana@example.com")
            let user = try #require(try await world.sesame.storage.user(connection: "email", identifier: "ana@example.com"))
            let key = DPoPKey()
            let verifier = String(repeating: "v", count: 43)
            var parameters = AuthorizeParameters(
                codeChallenge: Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8)))), codeChallengeMethod: "S256")
            parameters.dpopJKT = try await Self.provenKey(world, key)
            func exchange(_ thumbprint: String?) async throws -> TokenResponse {
                let code = try await world.sesame.tokens.issueAuthorizationCode(
                    user: user, application: world.application, redirectURI: CoreWorld.callback, parameters: parameters)
                return try await world.sesame.tokens.exchange(
                    code: code, redirectURI: CoreWorld.callback, codeVerifier: verifier, application: world.application,
                    dpopThumbprint: thumbprint)
            }
            let thief = try await Self.provenKey(world, DPoPKey())
            for thumbprint in [nil, thief] {
                let error = try await refusal { _ = try await exchange(thumbprint) }
                #expect(error.code == .invalidGrant)
            }
            #expect(try await exchange(parameters.dpopJKT).tokenType == "DPoP")
        }
    }
}

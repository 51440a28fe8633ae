import Crypto
public import Foundation
import SesameAPI

extension TokenService {
    /// Stores a single-use authorization code for a completed browser login.
    /// - Returns: the code to put in the redirect.
    /// - Parameters:
    ///   - authTime: when the person proved who they are, if not now (a browser session).
    ///   - sessionID: the browser session the code is issued from (the id_token's `sid`).
    public func issueAuthorizationCode(
        user: User, application: Application, redirectURI: String, parameters: AuthorizeParameters, authTime: Date? = nil,
        sessionID: String? = nil
    ) async throws -> String {
        let now = clock.now()
        let code = issuer.random.token(32)
        var record =
            AuthorizationCode(
                codeHash: hasher.hash(code, purpose: .authorizationCode), clientID: application.clientID,
                userID: user.userID, redirectURI: redirectURI, scope: Scope(parameters.scope).description,
                nonce: parameters.nonce, audience: parameters.audience, codeChallenge: parameters.codeChallenge,
                createdAt: now, expiresAt: now.addingTimeInterval(Double(issuer.settings.authorizationCodeLifetime)),
                authTime: authTime ?? now, identifierVerified: user.identifierVerified)
        record.sessionID = sessionID
        record.dpopThumbprint = parameters.dpopJKT
        try await storage.createAuthorizationCode(record)
        return code
    }

    /// `grant_type=authorization_code`: exchanges a code once (RFC 6749 §4.1.3) and checks
    /// PKCE (RFC 7636 §4.6). Public clients must have used PKCE.
    /// - Parameter dpopThumbprint: the DPoP key the request proved, which the tokens are bound to.
    public func exchange(
        code: String?, redirectURI: String?, codeVerifier: String?, application: Application,
        dpopThumbprint: String? = nil
    ) async throws -> TokenResponse {
        try application.requireGrant(GrantType.authorizationCode)
        guard let code else { throw SesameError.invalidRequest("Missing required parameter: code") }
        let now = clock.now()
        let hashes = hasher.candidates(code, purpose: .authorizationCode)
        // The login this exchange starts, recorded on the code as it is consumed.
        let familyID = issuer.random.orderedHex(at: now)
        // Consumed before any other check: the atomic single-use gate, so a code that fails
        // a later check is still spent and cannot be retried.
        guard let grant = try await storage.consumeAuthorizationCode(hashes: hashes, at: now, familyID: familyID) else {
            try await revokeReplayedLogin(hashes, application: application, at: now)
            throw SesameError.invalidGrant("Invalid authorization code")
        }
        guard grant.clientID == application.clientID else {
            throw SesameError.invalidGrant("Invalid authorization code", logDetail: "code of another client")
        }
        // RFC 6749 §4.1.3: the authorization request named a redirect_uri (every Sesame code
        // has one), so the exchange must send the same: a code leaked from one callback
        // cannot be redeemed as if it came from another.
        guard let redirectURI else {
            throw SesameError.invalidGrant("Missing required parameter: redirect_uri (the one of the authorization request)")
        }
        guard redirectURI == grant.redirectURI else {
            throw SesameError.invalidGrant("redirect_uri does not match the one of the authorization request")
        }
        try verifyPKCE(challenge: grant.codeChallenge, verifier: codeVerifier, application: application)
        // RFC 9449 §10: a code asked for with dpop_jkt is redeemed only with a proof by that key.
        if let bound = grant.dpopThumbprint, bound != dpopThumbprint {
            throw SesameError.invalidGrant("Invalid authorization code", logDetail: "code bound to another DPoP key")
        }
        let user = try await liveUser(grant.userID)
        // A code issued before the user's tokens were last revoked (the address's first
        // verification, a block) belongs to whoever held the account then: it dies with them.
        if let validAfter = user.tokensValidAfter, grant.createdAt.epochMilliseconds < validAfter.epochMilliseconds {
            throw SesameError.invalidGrant("Invalid authorization code", logDetail: "code issued before tokens_valid_after")
        }
        // Issued while the address was unproven and proven since: whoever held the account
        // then may not be its owner, even when both happened within one millisecond.
        if grant.identifierVerified == false, user.identifierVerified {
            throw SesameError.invalidGrant("Invalid authorization code", logDetail: "code issued before the address was proven")
        }
        var request = TokenGrantRequest(
            application: application, scope: Scope(grant.scope), audience: grant.audience, nonce: grant.nonce)
        request.sessionID = grant.sessionID
        request.dpopThumbprint = dpopThumbprint
        // Whether the login earns a refresh token is decided by the account as it was when the
        // code was issued: a code of an unproven account stays one, whatever happened since.
        return try await issuer.issue(
            for: user, request, authTime: grant.authTime ?? grant.createdAt, now: clock.now(), familyID: familyID,
            refreshAllowed: grant.identifierVerified ?? true, namesFamily: true)
    }

    /// A code presented again after its exchange was stolen or leaked, by the thief or by its
    /// client: the login of the first exchange is revoked, refresh tokens and access tokens
    /// alike (RFC 6749 §4.1.2), since nobody can tell which of the two holds them.
    private func revokeReplayedLogin(_ hashes: [[UInt8]], application: Application, at now: Date) async throws {
        let until = now.addingTimeInterval(Double(issuer.settings.accessTokenLifetime))
        guard let family = try await storage.revokeReplayedAuthorizationCode(hashes: hashes, at: now, until: until) else {
            return
        }
        await coordinator.audit(
            .refreshTokenReuse, client: application.clientID,
            detail: "authorization code presented again: family \(family) revoked")
    }

    private func verifyPKCE(challenge: String?, verifier: String?, application: Application) throws {
        guard let challenge else {
            if !application.isConfidential { throw SesameError.invalidGrant("PKCE is required for public clients") }
            return
        }
        guard let verifier, (43...128).contains(verifier.count) else {
            throw SesameError.invalidGrant("Failed to verify code verifier")
        }
        let computed = Base64URL.encode(SHA256.hash(data: Data(verifier.utf8)))
        guard SecretHasher.constantTimeEquals(Array(computed.utf8), Array(challenge.utf8)) else {
            throw SesameError.invalidGrant("Failed to verify code verifier")
        }
    }
}

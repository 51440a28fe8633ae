import Crypto
public import Foundation
import SesameAPI

/// Auth0's My Account API for a person's passkeys (`/me/v1/authentication-methods`), as
/// Auth0.swift's `myAccount(token:)` calls it: enrol one (a challenge, then its verification),
/// list, read and delete them. The ceremony is the hosted page's enrolment
/// (``PasskeyLogin/startEnrollment(user:authTime:application:ip:)``), for the token's user and
/// application; listing and deleting are ``PasskeyManagement``'s.
///
/// The token must be for the My Account API (``LoginSettings/myAccountAudience``) or one of
/// Sesame's own opaque tokens: a JWT for another API was given to that API, which must not be
/// able to change the person's ways in with it.
public struct MyAccountPasskeys: Sendable {
    let passkeys: PasskeyLogin
    let management: PasskeyManagement

    /// The scope an enrolment needs (reading and deleting need ``PasskeyManagement/Scopes``').
    public static let createScope = "create:me:authentication_methods"
    /// The only method type Sesame enrols through this API.
    public static let passkeyType = "passkey"

    /// Starts enrolling a passkey for the token's user: creation options and the session that
    /// finishes it, and the id of the method being enrolled (for the `Location` header).
    /// - Throws: 400 for another `type`; 401/403 for the token (audience, scope, an unproven
    ///   address, an old login); what ``PasskeyLogin/startEnrollment(user:authTime:application:ip:)`` throws.
    public func startEnrollment(
        type: String?, _ grant: AccessGrant, ip: String
    ) async throws -> (id: String, challenge: PasskeyChallenge) {
        try authorize(grant, scope: Self.createScope)
        guard let type else { throw SesameError.invalidRequest("Missing required parameter: type") }
        guard type == Self.passkeyType else {
            throw SesameError.invalidRequest("type must be passkey: Sesame enrols passkeys only.")
        }
        try grant.requireVerifiedAddress()
        guard let application = try await passkeys.storage.application(clientID: grant.clientID) else {
            throw SesameError.invalidToken
        }
        let challenge = try await passkeys.startEnrollment(
            user: grant.user, authTime: grant.authTime, application: application, ip: ip)
        return (Self.methodID(authSession: challenge.authSession), challenge)
    }

    /// Finishes an enrolment: `id` must be the one its start answered, and the session one
    /// this user's token started for the same application; it is spent before anything else.
    /// - Throws: 404 for an id that is not this session's; 400 for a bad answer; what
    ///   ``PasskeyLogin/finishEnrollment(authSession:response:user:authTime:clientID:ip:)`` throws.
    public func verifyEnrollment(
        id: String, authSession: String?, response: Data?, _ grant: AccessGrant, ip: String?
    ) async throws -> MyAccountPasskey {
        try authorize(grant, scope: Self.createScope)
        // Checked before the session is spent, so a mistyped id does not cost the ceremony.
        if let authSession, Self.methodID(authSession: authSession) != id { throw Self.notFound }
        let passkey = try await passkeys.finishEnrollment(
            authSession: authSession, response: response, user: grant.user, authTime: grant.authTime,
            clientID: grant.clientID, ip: ip)
        return describe(passkey, of: grant.user)
    }

    /// The token owner's passkeys, oldest first.
    public func list(_ grant: AccessGrant) async throws -> [MyAccountPasskey] {
        try authorize(grant, scope: nil)
        return try await management.list(grant).map { describe($0, of: grant.user) }
    }

    /// One of the owner's passkeys; another person's answers as one that does not exist.
    public func method(_ id: String, _ grant: AccessGrant) async throws -> MyAccountPasskey {
        guard let passkey = try await list(grant).first(where: { $0.passkey.id == id }) else { throw Self.notFound }
        return passkey
    }

    /// Deletes one of the owner's passkeys (``PasskeyManagement/delete(_:_:)``).
    public func delete(_ id: String, _ grant: AccessGrant) async throws {
        try authorize(grant, scope: nil)
        try await management.delete(id, grant)
    }

    /// The id of the method an enrolment makes, derived from its session so that the id in the
    /// `Location` header names this enrolment and no other.
    static func methodID(authSession: String) -> String {
        "passkey_" + SHA256.hash(data: Data(authSession.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    /// Refuses a token for another API, and one without `scope`.
    private func authorize(_ grant: AccessGrant, scope: String?) throws {
        if let audience = grant.audience, !passkeys.settings.isMyAccountAudience(audience) {
            throw SesameError(
                .unauthorized, .invalidToken,
                "The access token is for \(audience): ask for one with audience \(passkeys.settings.myAccountAudience).")
        }
        if let scope { try grant.require(scope: scope) }
    }

    private func describe(_ passkey: PasskeyCredential, of user: User) -> MyAccountPasskey {
        MyAccountPasskey(passkey: passkey, identityUserID: user.id, relyingPartyID: passkeys.relyingParties.rpID)
    }

    static let notFound = SesameError(.notFound, .notFound, "No authentication method with this id.")
}

/// A passkey as the My Account API describes it: the credential, the identity it signs in
/// and the relying party it was made for.
public struct MyAccountPasskey: Sendable {
    public let passkey: PasskeyCredential
    /// The id of the user's identity (``User/id``), Auth0's `identity_user_id`.
    public let identityUserID: String
    public let relyingPartyID: String
}

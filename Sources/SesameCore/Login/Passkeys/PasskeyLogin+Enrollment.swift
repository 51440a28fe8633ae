public import Foundation
import SesameAPI
import SesameWebAuthn

extension PasskeyLogin {
    /// Starts adding a passkey to a signed-in person's account (the hosted page's offer after a
    /// code or link login). The caller has checked the person's browser session is fresh.
    public func startEnrollment(user: User, application: Application, ip: String) async throws -> PasskeyChallenge {
        let connection = try await passkeyConnection(user.connection)
        try await RateLimiter(storage: storage).hit(
            "passkey_register", ip: ip, rule: settings.passkeySignupLimitPerIP, at: clock.now())
        let policy = connection.passkeyPolicy
        let relyingParty = try await relyingParties.relyingParty(for: policy)
        let (token, challenge) = try await createSession(.enrollment, application, connection, user)
        let name = user.email ?? user.phoneNumber ?? user.userID
        let existing = try await storage.passkeys(userID: user.id).map {
            PasskeyRequestOptions.CredentialDescriptor(id: $0.id, transports: $0.transports.isEmpty ? nil : $0.transports)
        }
        var options = PasskeyRequestOptions.CreationOptions(
            challenge: Base64URL.encode(challenge), timeout: policy.timeoutMilliseconds,
            rp: .init(id: relyingParty.rpID, name: relyingParty.rpID),
            user: .init(id: Base64URL.encode(Array(user.id.utf8)), name: name, displayName: user.name ?? name),
            pubKeyCredParams: policy.algorithms.map { .init(alg: $0) },
            authenticatorSelection: .init(
                residentKey: policy.residentKey, requireResidentKey: policy.residentKey == "required",
                userVerification: policy.userVerification),
            attestation: policy.attestation)
        options.excludeCredentials = existing.isEmpty ? nil : existing
        return PasskeyChallenge(authSession: token, options: .creation(options))
    }

    /// Finishes adding a passkey: the session must be an enrolment of this very user, started
    /// for this application; it is consumed first, so a challenge is answered at most once.
    public func finishEnrollment(
        authSession: String?, response: Data?, user: User, clientID: String, ip: String?
    ) async throws -> PasskeyCredential {
        guard let authSession else { throw SesameError.invalidRequest("Missing required parameter: auth_session") }
        guard let response else { throw SesameError.invalidRequest("Missing required parameter: authn_response") }
        let hashes = hasher.candidates(authSession, purpose: .passkeySession)
        guard let session = try await storage.consumePasskeySession(hashes: hashes, at: clock.now()),
            session.ceremony == .enrollment, session.clientID == clientID, session.pendingUser?.id == user.id
        else {
            throw SesameError.invalidGrant("The passkey session is unknown, expired or already used: start again.")
        }
        let connection = try await passkeyConnection(session.connection)
        let relyingParty = try await relyingParties.relyingParty(for: connection.passkeyPolicy)
        let passkey = try await verifiedPasskey(response, session, relyingParty, owner: user, clientID: clientID, ip: ip)
        do {
            try await storage.createPasskey(passkey)
        } catch let error as StorageError where error.isAlreadyExists {
            throw SesameError.invalidRequest("This passkey is already registered.")
        }
        await coordinator.audit(.passkeyRegistered, user: user.userID, client: clientID, ip: ip, detail: passkey.id)
        return passkey
    }
}

extension PasskeyLogin {
    /// Whether `user` has any passkey (the hosted page offers one only to those without).
    public func hasPasskeys(_ user: User) async throws -> Bool {
        try await !storage.passkeys(userID: user.id).isEmpty
    }

    /// Seconds after a login within which the person may add a passkey.
    public var recentLoginWindow: Int { settings.recentLoginWindow }
}

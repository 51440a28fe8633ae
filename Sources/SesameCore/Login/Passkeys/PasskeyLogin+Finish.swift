public import Foundation
import SesameAPI
import SesameWebAuthn

extension PasskeyLogin {
    /// Finishes a ceremony (grant `urn:okta:params:oauth:grant-type:webauthn`): consumes the
    /// session first, so a challenge is answered at most once whatever the outcome, then
    /// verifies the response, creates the user on signup, and issues tokens.
    public func finish(
        authSession: String?, response: Data?, request: TokenGrantRequest, ip: String?
    ) async throws -> TokenResponse {
        try request.application.requireGrant(GrantType.webauthn)
        let clientID = request.application.clientID
        switch try await proof(authSession: authSession, response: response, clientID: clientID, ip: ip, signup: true) {
        case .user(let user):
            return try await coordinator.completeLogin(user, method: .passkey, request: request, ip: ip)
        case .takenAddress(let unsaved):
            // The answer a new account gets, for an account that is not made: the tokens name a
            // user that does not exist, so they open nothing, and, like any new passkey
            // account's, they carry no refresh token (the address is unproven).
            var user = unsaved
            let now = clock.now()
            (user.updatedAt, user.lastLogin, user.loginsCount) = (now, now, 1)
            return try await coordinator.issuer.issue(for: user, request, authTime: now, now: now)
        }
    }

    /// The user a sign-in ceremony proves, before the login is recorded (the hosted page): the
    /// session is consumed first, so a challenge is answered at most once whatever the outcome.
    /// Signups finish only through ``finish(authSession:response:request:ip:)``: a signup
    /// session answers here as an unknown one, whether or not its address is taken.
    public func verifiedUser(authSession: String?, response: Data?, clientID: String, ip: String?) async throws -> User {
        guard
            case .user(let user) = try await proof(
                authSession: authSession, response: response, clientID: clientID, ip: ip, signup: false)
        else { throw Self.unknownSession }
        return user
    }

    /// What a ceremony proves: a user (created on signup), or a signup for an address that
    /// already has an account, whose holder was sent a notice.
    private enum Proof {
        case user(User)
        case takenAddress(User)
    }

    private static let unknownSession = SesameError.invalidGrant(
        "The passkey session is unknown, expired or already used: start again.")

    private func proof(
        authSession: String?, response: Data?, clientID: String, ip: String?, signup: Bool
    ) async throws -> Proof {
        let (session, response, relyingParty) = try await consumeSession(authSession, response, clientID: clientID)
        switch session.ceremony {
        case .registration:
            guard signup else { throw Self.unknownSession }
            return try await register(response, session, relyingParty, clientID: clientID, ip: ip)
        case .authentication:
            return .user(try await authenticate(response, session, relyingParty, clientID: clientID, ip: ip))
        case .enrollment:
            // An added passkey proves nothing yet: enrolment sessions never sign anyone in.
            throw Self.unknownSession
        }
    }

    private func register(
        _ json: Data, _ session: PasskeySession, _ relyingParty: WebAuthnRelyingParty, clientID: String, ip: String?
    ) async throws -> Proof {
        guard let user = session.pendingUser else { throw SesameError.invalidGrant("The passkey session has no signup.") }
        let passkey = try await verifiedPasskey(json, session, relyingParty, owner: user, clientID: clientID, ip: ip)
        do {
            try await storage.createUser(user, withPasskey: passkey)
        } catch let error as StorageError where error.isAlreadyExists {
            // A taken address answers like a free one (no account enumeration); its holder is
            // told instead. A taken passkey is the caller's own authenticator: no oracle.
            guard try await storage.user(connection: user.connection, identifier: user.identifier) != nil,
                let application = try await storage.application(clientID: clientID),
                let connection = try await storage.connection(name: user.connection)
            else {
                throw SesameError.invalidRequest("A user with this identifier or this passkey already exists. Sign in instead.")
            }
            await passwordless.sendSignupNotice(
                to: user.identifier, connection: connection, application: application, ip: ip)
            return .takenAddress(user)
        }
        await coordinator.audit(.passkeyRegistered, user: user.userID, client: clientID, ip: ip, detail: passkey.id)
        return .user(user)
    }

    private func authenticate(
        _ json: Data, _ session: PasskeySession, _ relyingParty: WebAuthnRelyingParty, clientID: String, ip: String?
    ) async throws -> User {
        let credential = try decode { try AuthenticationCredential(json: json) }
        guard let passkey = try await storage.passkey(id: Base64URL.encode(credential.rawID)), !passkey.disabled else {
            await coordinator.audit(.passkeyFailed, client: clientID, ip: ip, detail: "unknown or disabled credential")
            throw SesameError.invalidGrant("This passkey is not registered, or it was removed or disabled.")
        }
        if let handle = credential.response.userHandle, handle != Array(passkey.userID.utf8) {
            await coordinator.audit(.passkeyFailed, client: clientID, ip: ip, detail: "user handle mismatch \(passkey.id)")
            throw SesameError.invalidGrant("The passkey's user handle does not match its owner.")
        }
        let verified = try await verifying(clientID: clientID, ip: ip) {
            try relyingParty.verifyAuthentication(
                credential: credential, expectedChallenge: session.challenge, credentialPublicKey: passkey.publicKey,
                storedSignCount: passkey.signCount, storedBackupEligible: passkey.backupEligible)
        }
        guard
            try await storage.recordPasskeyUse(
                id: passkey.id, expectedCount: passkey.signCount, newCount: verified.newSignCount,
                backedUp: verified.backedUp, at: clock.now())
        else {
            throw SesameError.invalidGrant("This passkey was used at the same moment elsewhere, or disabled: try again.")
        }
        guard let user = try await storage.user(id: passkey.userID) else {
            throw SesameError.invalidGrant("This passkey is not registered, or it was removed or disabled.")
        }
        return user
    }

    /// Consumes the session an answer names, before anything else, so a challenge is answered
    /// at most once whatever the outcome; returns it with the answer and the relying party.
    /// - Parameter accepting: what else the session must be (an enrolment of this user, say).
    func consumeSession(
        _ authSession: String?, _ response: Data?, clientID: String, accepting: (PasskeySession) -> Bool = { _ in true }
    ) async throws -> (session: PasskeySession, response: Data, relyingParty: WebAuthnRelyingParty) {
        guard let authSession else { throw SesameError.invalidRequest("Missing required parameter: auth_session") }
        guard let response else { throw SesameError.invalidRequest("Missing required parameter: authn_response") }
        let hashes = hasher.candidates(authSession, purpose: .passkeySession)
        guard let session = try await storage.consumePasskeySession(hashes: hashes, at: clock.now()),
            session.clientID == clientID, accepting(session)
        else {
            throw SesameError.invalidGrant("The passkey session is unknown, expired or already used: start again.")
        }
        let connection = try await passkeyConnection(session.connection)
        return (session, response, try await relyingParties.relyingParty(for: connection.passkeyPolicy))
    }

    /// Verifies a registration response against the session's challenge: the new passkey of `owner`.
    func verifiedPasskey(
        _ json: Data, _ session: PasskeySession, _ relyingParty: WebAuthnRelyingParty, owner: User, clientID: String,
        ip: String?
    ) async throws -> PasskeyCredential {
        let credential = try decode { try RegistrationCredential(json: json) }
        let verified = try await verifying(clientID: clientID, ip: ip) {
            try await relyingParty.verifyRegistration(
                credential: credential, expectedChallenge: session.challenge, verificationTime: clock.now())
        }
        return PasskeyCredential(
            id: Base64URL.encode(verified.credentialID), userID: owner.id, name: Self.defaultName(verified),
            publicKey: verified.credentialPublicKey, algorithm: verified.credentialAlgorithm.rawValue,
            signCount: verified.signCount, backupEligible: verified.backupEligible, backedUp: verified.backedUp,
            format: verified.format.rawValue, aaguid: verified.aaguid.uuidString.lowercased(),
            transports: verified.transports ?? [], createdAt: clock.now())
    }

    /// Runs a WebAuthn check, turning its failure into `invalid_grant` that names the failed
    /// step, and auditing it.
    private func verifying<T>(
        clientID: String, ip: String?, _ check: () async throws -> T
    ) async throws -> T {
        do {
            return try await check()
        } catch let error as WebAuthnError {
            await coordinator.audit(.passkeyFailed, client: clientID, ip: ip, detail: error.name)
            throw SesameError.invalidGrant("Passkey verification failed (\(error.name)): \(error.message)")
        }
    }

    private func decode<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as WebAuthnError {
            throw SesameError.invalidRequest("authn_response is not a valid credential: \(error.description)")
        }
    }

    private static func defaultName(_ verified: VerifiedRegistration) -> String {
        verified.deviceType == .multiDevice ? "Synced passkey" : "Security key"
    }
}

public import Foundation
import SesameAPI
import SesameWebAuthn

extension PasskeyLogin {
    /// Starts adding a passkey to a signed-in person's account (the hosted page's offer after a
    /// code or link login).
    /// - Parameter authTime: when the person's browser session signed in; nil without one.
    /// - Throws: 403 `access_denied` unless that was within ``recentLoginWindow``.
    public func startEnrollment(
        user: User, authTime: Date?, application: Application, ip: String
    ) async throws -> PasskeyChallenge {
        try requireRecentLogin(authTime)
        let connection = try await passkeyConnection(user.connection)
        try await RateLimiter(storage: storage).hit(
            "passkey_register", ip: ip, rule: settings.passkeySignupLimitPerIP, at: clock.now())
        let existing = try await storage.passkeys(userID: user.id).map {
            PasskeyRequestOptions.CredentialDescriptor(id: $0.id, transports: $0.transports.isEmpty ? nil : $0.transports)
        }
        return try await creationChallenge(
            .enrollment, application, connection, user, name: user.email ?? user.phoneNumber ?? user.userID,
            exclude: existing.isEmpty ? nil : existing)
    }

    /// Finishes adding a passkey: the session must be an enrolment of this very user, started
    /// for this application; it is consumed first, so a challenge is answered at most once.
    /// - Throws: 403 `access_denied` unless `authTime` is within ``recentLoginWindow``, as
    ///   ``startEnrollment(user:authTime:application:ip:)``.
    public func finishEnrollment(
        authSession: String?, response: Data?, user: User, authTime: Date?, clientID: String, ip: String?
    ) async throws -> PasskeyCredential {
        try requireRecentLogin(authTime)
        let (session, response, relyingParty) = try await consumeSession(authSession, response, clientID: clientID) {
            $0.ceremony == .enrollment && $0.pendingUser?.id == user.id
        }
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

    /// Refuses to add a passkey for a login older than ``recentLoginWindow`` (or none): an old
    /// session, or a stolen cookie replayed later, cannot add a way in.
    public func requireRecentLogin(_ authTime: Date?) throws {
        guard let authTime, clock.now().timeIntervalSince(authTime) <= TimeInterval(recentLoginWindow) else {
            throw Self.staleLogin
        }
    }

    /// The refusal of a passkey for an old login, or for no login at all.
    public static var staleLogin: SesameError { SesameError(.forbidden, .accessDenied, "Sign in again to add a passkey.") }
}

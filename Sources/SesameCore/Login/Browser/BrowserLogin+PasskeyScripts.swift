public import Foundation

/// What the hosted page's scripts ask for, answered as JSON: `passkey.js` a sign-in
/// challenge, and `enroll.js`, after a code or link login, the creation of a passkey for the
/// person this browser signed in just now.
extension BrowserLogin {
    /// A passkey challenge for the page: the application is identified by its registered
    /// callback, as for codes, so a confidential application's page needs no client secret.
    /// - Throws: 400 for a bad application or callback; 403 for a form without this browser's
    ///   forgery token; what ``PasskeyLogin/startAuthentication(application:realm:ip:)`` throws.
    public func passkeyChallenge(
        _ authorization: BrowserAuthorization, from browser: BrowserContext
    ) async throws -> PasskeyChallenge {
        let application = try await scriptApplication(authorization, browser)
        return try await passkeys.startAuthentication(application: application, realm: nil, ip: browser.ip)
    }

    /// Creation options for a new passkey of this browser's signed-in person.
    /// - Throws: as ``passkeyChallenge(_:from:)``; 403 without a session, or for a login older
    ///   than the recent-login window.
    public func enrollmentOptions(
        _ authorization: BrowserAuthorization, from browser: BrowserContext
    ) async throws -> PasskeyChallenge {
        let application = try await scriptApplication(authorization, browser)
        let (user, authTime) = try await sessionUser(browser)
        return try await passkeys.startEnrollment(user: user, authTime: authTime, application: application, ip: browser.ip)
    }

    /// Stores the passkey `enroll.js` created for this browser's signed-in person.
    /// - Throws: as ``enrollmentOptions(_:from:)``, and what the ceremony's checks throw.
    public func enroll(
        _ authorization: BrowserAuthorization, authSession: String?, response: Data?, from browser: BrowserContext
    ) async throws -> PasskeyCredential {
        let application = try await scriptApplication(authorization, browser)
        let (user, authTime) = try await sessionUser(browser)
        return try await passkeys.finishEnrollment(
            authSession: authSession, response: response, user: user, authTime: authTime,
            clientID: application.clientID, ip: browser.ip)
    }

    /// The application of a script's post, which answers JSON: refused outright without the
    /// forgery token.
    private func scriptApplication(_ authorization: BrowserAuthorization, _ browser: BrowserContext) async throws -> Application {
        let application = try await application(authorization)
        guard browser.formIsGenuine else {
            throw SesameError(.forbidden, .accessDenied, "This page had expired: reload it and try again.")
        }
        return application
    }

    /// The user of this browser's session and when they signed in: enrollment refuses a login
    /// older than its recent-login window, and no session at all.
    private func sessionUser(_ browser: BrowserContext) async throws -> (user: User, authTime: Date) {
        guard let (session, user) = try await sessions.resume(browser.sessionSecret) else { throw PasskeyLogin.staleLogin }
        return (user, session.authTime)
    }
}
